"""Errors as data. Every failure a caller can cause or meet has a code from this closed set,
a message, whether retrying the same call can help, and what to do next (docs/errors.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    INVALID_INPUT = "INVALID_INPUT"
    WORKFLOW_NOT_FOUND = "WORKFLOW_NOT_FOUND"
    WORKFLOW_INVALID = "WORKFLOW_INVALID"
    TOKEN_MALFORMED = "TOKEN_MALFORMED"
    TOKEN_VERSION_UNSUPPORTED = "TOKEN_VERSION_UNSUPPORTED"
    TOKEN_BAD_SIGNATURE = "TOKEN_BAD_SIGNATURE"
    TOKEN_UNKNOWN = "TOKEN_UNKNOWN"
    TOKEN_SCOPE_MISMATCH = "TOKEN_SCOPE_MISMATCH"
    RUN_CANCELED = "RUN_CANCELED"
    ARTIFACT_INVALID = "ARTIFACT_INVALID"
    FEATURE_DISABLED = "FEATURE_DISABLED"
    RATE_LIMITED = "RATE_LIMITED"
    STORE_BUSY = "STORE_BUSY"
    INTERNAL_ERROR = "INTERNAL_ERROR"


@dataclass
class WorkRailError(Exception):
    code: ErrorCode
    message: str
    suggestion: str
    retryable: bool = False
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "code": self.code.value,
            "message": self.message,
            "retryable": self.retryable,
            "suggestion": self.suggestion,
        }
        if self.details:
            data["details"] = self.details
        return data


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["code", "message", "retryable", "suggestion"],
    "properties": {
        "code": {"enum": [code.value for code in ErrorCode]},
        "message": {"type": "string"},
        "retryable": {"type": "boolean"},
        "suggestion": {"type": "string"},
        "details": {"type": "object"},
    },
    "additionalProperties": False,
}
