"""The health check (open) and the MCP tool timings."""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest
from ninja import Router

from runs.api.errors import described, responses
from runs.contract.base import Shape
from runs.contract.dashboard import ToolTimings
from runs.contract.errors import ErrorResult
from runs.readmodels import timings as timings_view
from workrail_site.version import VERSION

router = Router()


class Health(Shape):
    status: Literal["ok"]
    version: str


@router.get(
    "/health",
    auth=None,
    response={200: Health, 500: ErrorResult},
    by_alias=True,
    summary="Health check",
    description="Open (no auth): the API answers, and which WorkRail version it is.",
    tags=["health"],
    openapi_extra={"responses": {500: {"description": "INTERNAL_ERROR"}}},
)
def health(request: HttpRequest) -> Health:
    return Health(status="ok", version=VERSION)


@router.get(
    "/timings",
    response=responses(ToolTimings),
    by_alias=True,
    summary="MCP tool timings",
    description="The most recent MCP tool calls and p50/p95/max per tool.",
    tags=["timings"],
    openapi_extra=described(),
)
def timings(request: HttpRequest) -> ToolTimings:
    return timings_view.tool_timings()
