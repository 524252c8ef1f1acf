"""Errors as data. Every failure a caller can cause or meet has a code from this closed set,
a message, whether retrying the same call can help, and what to do next (docs/errors.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NotRequired, TypedDict

from pydantic import Field

from runs.contract.base import Shape
from workflows_app.engine.jsontypes import JsonObject


class ErrorCode(StrEnum):
    INVALID_INPUT = "INVALID_INPUT"
    NOT_FOUND = "NOT_FOUND"
    CONFIGURATION_ERROR = "CONFIGURATION_ERROR"
    WORKFLOW_NOT_FOUND = "WORKFLOW_NOT_FOUND"
    WORKFLOW_INVALID = "WORKFLOW_INVALID"
    TOKEN_MALFORMED = "TOKEN_MALFORMED"
    TOKEN_VERSION_UNSUPPORTED = "TOKEN_VERSION_UNSUPPORTED"
    TOKEN_BAD_SIGNATURE = "TOKEN_BAD_SIGNATURE"
    TOKEN_UNKNOWN = "TOKEN_UNKNOWN"
    TOKEN_SCOPE_MISMATCH = "TOKEN_SCOPE_MISMATCH"
    RUN_CANCELED = "RUN_CANCELED"
    NODE_COMPLETE = "NODE_COMPLETE"
    CONTEXT_CHANGE_INVALID = "CONTEXT_CHANGE_INVALID"
    ARTIFACT_INVALID = "ARTIFACT_INVALID"
    FEATURE_DISABLED = "FEATURE_DISABLED"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    CSRF_FAILED = "CSRF_FAILED"
    ORIGIN_REFUSED = "ORIGIN_REFUSED"
    NOT_YOUR_SESSION = "NOT_YOUR_SESSION"
    RATE_LIMITED = "RATE_LIMITED"
    STORE_BUSY = "STORE_BUSY"
    REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
    BUNDLE_TOO_LARGE = "BUNDLE_TOO_LARGE"
    BUNDLE_CORRUPT = "BUNDLE_CORRUPT"
    BUNDLE_VERSION_UNSUPPORTED = "BUNDLE_VERSION_UNSUPPORTED"
    BUNDLE_INVALID = "BUNDLE_INVALID"
    BUNDLE_ALREADY_IMPORTED = "BUNDLE_ALREADY_IMPORTED"
    REPORT_TOO_LARGE = "REPORT_TOO_LARGE"
    REPORT_STOPPED = "REPORT_STOPPED"
    PDF_UNAVAILABLE = "PDF_UNAVAILABLE"
    PASSWORD_NOT_SHOWN = "PASSWORD_NOT_SHOWN"
    INTERNAL_ERROR = "INTERNAL_ERROR"


# The HTTP status that goes with each code, for the doors that answer over HTTP (the API, the dashboard).
HTTP_STATUS: dict[ErrorCode, int] = {
    ErrorCode.INVALID_INPUT: 400,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.CONFIGURATION_ERROR: 500,
    ErrorCode.WORKFLOW_NOT_FOUND: 404,
    ErrorCode.WORKFLOW_INVALID: 409,
    ErrorCode.TOKEN_MALFORMED: 400,
    ErrorCode.TOKEN_VERSION_UNSUPPORTED: 400,
    ErrorCode.TOKEN_BAD_SIGNATURE: 400,
    ErrorCode.TOKEN_UNKNOWN: 400,
    ErrorCode.TOKEN_SCOPE_MISMATCH: 400,
    ErrorCode.RUN_CANCELED: 409,
    ErrorCode.NODE_COMPLETE: 409,
    ErrorCode.CONTEXT_CHANGE_INVALID: 400,
    ErrorCode.ARTIFACT_INVALID: 400,
    ErrorCode.FEATURE_DISABLED: 403,
    ErrorCode.UNAUTHENTICATED: 401,
    ErrorCode.CSRF_FAILED: 403,
    # `manage.py mcp --http`: a request from a web page of another site, or sent to a host name this server was
    # not told it has (DNS rebinding). A foreign Host header is answered 421 (Misdirected Request).
    ErrorCode.ORIGIN_REFUSED: 403,
    # A valid token of a session another owner started: a team's store is shared, its sessions are not.
    ErrorCode.NOT_YOUR_SESSION: 403,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.STORE_BUSY: 503,
    # A form or JSON body over Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB): refused before it is read whole.
    ErrorCode.REQUEST_TOO_LARGE: 413,
    ErrorCode.BUNDLE_TOO_LARGE: 413,
    ErrorCode.BUNDLE_CORRUPT: 400,
    ErrorCode.BUNDLE_VERSION_UNSUPPORTED: 400,
    ErrorCode.BUNDLE_INVALID: 400,
    # The bundle is fine, but its session is here already: importing it again would duplicate it.
    ErrorCode.BUNDLE_ALREADY_IMPORTED: 409,
    # A request that is fine, for a report too large to lay out as PDF within its budget (the Markdown is not).
    ErrorCode.REPORT_TOO_LARGE: 422,
    # The client left or the dashboard is shutting down: nobody is there to read it, but a log line shows it.
    ErrorCode.REPORT_STOPPED: 503,
    # This machine lacks what PDFs are laid out with (Pango): the Markdown report works.
    ErrorCode.PDF_UNAVAILABLE: 503,
    # The connect page's password, asked for by anyone but a signed-in staff user on this machine.
    ErrorCode.PASSWORD_NOT_SHOWN: 403,
    ErrorCode.INTERNAL_ERROR: 500,
}


class HeldIssue(StrEnum):
    """Why a step is blocked, besides the engine's own issue codes: what the service checks before the
    engine sees the output (workflows_app.engine.codes.IssueCode has the rest)."""

    PLACEHOLDER_UNCHANGED = "PLACEHOLDER_UNCHANGED"  # a `<fill in ...>` from nextCall came back as it was
    USER_DEPENDENCY_UNMET = "USER_DEPENDENCY_UNMET"  # something only the user can give is missing
    DELEGATIONS_PENDING = "DELEGATIONS_PENDING"  # a parallel step's delegated runs are not all complete


class ErrorDict(TypedDict):
    """The error body as JSON: what ErrorBody describes, as every door sends it."""

    code: str
    message: str
    retryable: bool
    suggestion: str
    details: NotRequired[JsonObject]


@dataclass
class WorkRailError(Exception):
    code: ErrorCode
    message: str
    suggestion: str
    retryable: bool = False
    details: JsonObject = field(default_factory=dict)  # machine-readable specifics, sent as JSON

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def as_dict(self) -> ErrorDict:
        data: ErrorDict = {
            "code": self.code.value,
            "message": self.message,
            "retryable": self.retryable,
            "suggestion": self.suggestion,
        }
        if self.details:
            data["details"] = self.details
        return data


# The error body every door returns: {code, message, retryable, suggestion, details?}.
class ErrorBody(Shape):
    code: ErrorCode = Field(description="One of a closed set of codes (docs/errors.md).")
    message: str = Field(description="What went wrong.")
    retryable: bool = Field(description="Whether sending the same call again can succeed.")
    suggestion: str = Field(description="What to do next.")
    details: JsonObject | None = Field(default=None, description="Machine-readable specifics, when any.")


class ErrorResult(Shape):
    """The structured content of a tool answer with isError: true."""

    error: ErrorBody
