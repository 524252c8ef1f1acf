"""Recent MCP tool calls and their p50/p95 per tool, from the bounded table runs/mcp/timings.py fills."""

from __future__ import annotations

import math

from django.conf import settings

from runs.contract.dashboard import ToolCallEntry, ToolStats, ToolTimings
from runs.contract.errors import ErrorCode
from runs.models import ToolCall

RECENT_SHOWN = 100
NOT_ERRORS = {"ok", "blocked"}  # a blocked answer is the contract working, not a failure


# What a failed call's code means, for the timings page (a call's outcome is its error code; the message
# itself is not kept). Codes not listed here are said by their own words.
_ERROR_WORDS = {
    ErrorCode.INVALID_INPUT: "the call's arguments were not valid",
    ErrorCode.NOT_FOUND: "what it named does not exist",
    ErrorCode.WORKFLOW_NOT_FOUND: "no workflow has that id",
    ErrorCode.WORKFLOW_INVALID: "the workflow file has errors",
    ErrorCode.TOKEN_MALFORMED: "the token sent was not a token",
    ErrorCode.TOKEN_BAD_SIGNATURE: "the token sent was not signed by this server",
    ErrorCode.TOKEN_UNKNOWN: "the token sent names nothing stored here",
    ErrorCode.TOKEN_SCOPE_MISMATCH: "a token of the wrong kind was sent",
    ErrorCode.RUN_CANCELED: "the run was canceled",
    ErrorCode.NODE_COMPLETE: "that branch is already complete",
    ErrorCode.ARTIFACT_INVALID: "an artifact sent did not fit its contract",
    ErrorCode.CONTEXT_CHANGE_INVALID: "a context change was not allowed",
    ErrorCode.NOT_YOUR_SESSION: "the session belongs to someone else",
    ErrorCode.STORE_BUSY: "the store was busy",
    ErrorCode.INTERNAL_ERROR: "the server failed (see its log)",
}
_CODES = {code.value: code for code in ErrorCode}


def outcome_words(outcome: str) -> str:
    """What a recent call's outcome means in words: "" for "ok", the held step for "blocked", an error
    code's meaning, or that a failure kept no code (a call recorded as a plain "error")."""
    if outcome == "ok":
        return ""
    if outcome == "blocked":
        return "the step was held: the output lacked something"
    code = _CODES.get(outcome)
    if code is None:
        return "failed without an error code (its message is not kept)"
    return _ERROR_WORDS.get(code, code.value.lower().replace("_", " "))


def percentile(ordered: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def tool_timings(*, recent: int = RECENT_SHOWN) -> ToolTimings:
    rows = list(ToolCall.objects.order_by("-pk").values_list("tool", "outcome", "duration_ms", "started_at"))
    durations: dict[str, list[float]] = {}
    errors: dict[str, int] = {}
    for tool, outcome, duration, _ in rows:
        durations.setdefault(tool, []).append(duration)
        errors[tool] = errors.get(tool, 0) + (outcome not in NOT_ERRORS)
    stats = []
    for tool in sorted(durations):
        ordered = sorted(durations[tool])
        stats.append(
            ToolStats(
                tool=tool,
                calls=len(ordered),
                errors=errors[tool],
                p50_ms=round(percentile(ordered, 0.50), 3),
                p95_ms=round(percentile(ordered, 0.95), 3),
                max_ms=round(ordered[-1], 3),
            )
        )
    return ToolTimings(
        recent=[
            ToolCallEntry(tool=tool, outcome=outcome, duration_ms=round(duration, 3), started_at=at)
            for tool, outcome, duration, at in rows[: max(0, recent)]
        ],
        stats=stats,
        kept=settings.WORKRAIL_TOOL_TIMINGS_KEPT,
    )
