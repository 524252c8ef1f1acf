"""A recorded tool call for pages that show timings: the fields `runs.store.tool_calls.save` reads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Timed:
    tool: str
    outcome: str
    duration_ms: float
    started_at: datetime
    run_id: str = ""
    session_id: str = ""
    exception: str = ""
    message: str = ""
