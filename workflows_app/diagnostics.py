"""Structured problems found while loading workflows.

A diagnostic says where (file and JSON pointer), what is wrong and how to fix it. Errors make a
workflow unrunnable; warnings leave it runnable. Either way the rest of the catalog loads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Code(StrEnum):
    """The closed set of catalog diagnostic codes (documented in docs/errors.md)."""

    FILE_UNREADABLE = "FILE_UNREADABLE"
    INVALID_JSON = "INVALID_JSON"
    SCHEMA_VIOLATION = "SCHEMA_VIOLATION"
    INVALID_ID = "INVALID_ID"
    RESERVED_NAMESPACE = "RESERVED_NAMESPACE"
    LEGACY_ID = "LEGACY_ID"
    DUPLICATE_ID = "DUPLICATE_ID"
    DUPLICATE_STEP_ID = "DUPLICATE_STEP_ID"
    UNKNOWN_LOOP_BODY = "UNKNOWN_LOOP_BODY"
    INVALID_LOOP = "INVALID_LOOP"
    EMPTY_STEP = "EMPTY_STEP"
    INVALID_CONDITION = "INVALID_CONDITION"
    UNKNOWN_REFERENCE = "UNKNOWN_REFERENCE"
    UNRESOLVED_REFERENCE = "UNRESOLVED_REFERENCE"
    UNKNOWN_DELEGATION = "UNKNOWN_DELEGATION"
    INVALID_CONTRACT = "INVALID_CONTRACT"
    TEMPLATE_CYCLE = "TEMPLATE_CYCLE"
    WORKFLOW_TOO_LARGE = "WORKFLOW_TOO_LARGE"
    IGNORED_FIELD = "IGNORED_FIELD"
    SOURCE_MISSING = "SOURCE_MISSING"
    INVALID_BINDINGS = "INVALID_BINDINGS"
    INVALID_TAGS = "INVALID_TAGS"
    NOT_A_REGULAR_FILE = "NOT_A_REGULAR_FILE"
    LOAD_FAILED = "LOAD_FAILED"
    # Workflow repositories (WORKRAIL_WORKFLOW_REPOS; workflows_app/repos)
    REPO_NOT_SYNCED = "REPO_NOT_SYNCED"
    REPO_FETCH_FAILED = "REPO_FETCH_FAILED"
    REPO_REF_NOT_FOUND = "REPO_REF_NOT_FOUND"
    REPO_DIR_NOT_FOUND = "REPO_DIR_NOT_FOUND"
    REPO_INVALID_WORKFLOW = "REPO_INVALID_WORKFLOW"
    REPO_TOO_LARGE = "REPO_TOO_LARGE"
    REPO_FILE_SKIPPED = "REPO_FILE_SKIPPED"


@dataclass(frozen=True)
class Diagnostic:
    code: Code
    severity: Severity
    message: str
    fix: str
    file: str | None = None
    pointer: str = ""
    workflow_id: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "code": self.code.value,
            "severity": self.severity.value,
            "message": self.message,
            "fix": self.fix,
            "file": self.file,
            "pointer": self.pointer,
            "workflowId": self.workflow_id,
        }
        if self.details:
            data["details"] = self.details
        return data


def error(code: Code, message: str, fix: str, *, pointer: str = "", **extra: Any) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, fix, pointer=pointer, **extra)


def warning(code: Code, message: str, fix: str, *, pointer: str = "", **extra: Any) -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, message, fix, pointer=pointer, **extra)


def pointer_of(path: list[str | int] | tuple[str | int, ...]) -> str:
    """RFC 6901 JSON pointer for a path of keys and indexes."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)
