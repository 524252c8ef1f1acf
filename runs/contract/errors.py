"""The error body every door returns: {code, message, retryable, suggestion, details?}."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from runs.contract.base import Shape
from runs.errors import ErrorCode


class ErrorBody(Shape):
    code: ErrorCode = Field(description="One of a closed set of codes (docs/errors.md).")
    message: str = Field(description="What went wrong.")
    retryable: bool = Field(description="Whether sending the same call again can succeed.")
    suggestion: str = Field(description="What to do next.")
    details: dict[str, Any] | None = Field(default=None, description="Machine-readable specifics, when any.")


class ErrorResult(Shape):
    """The structured content of a tool answer with isError: true."""

    error: ErrorBody
