"""Recent MCP tool calls and their p50/p95 per tool, from the bounded table runs/mcp/timings.py fills."""

from __future__ import annotations

import math

from django.conf import settings

from runs.contract.dashboard import ToolCallEntry, ToolStats, ToolTimings
from runs.models import ToolCall

RECENT_SHOWN = 100
NOT_ERRORS = {"ok", "blocked"}  # a blocked answer is the contract working, not a failure


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
