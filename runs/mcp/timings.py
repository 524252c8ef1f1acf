"""Tool-call timings for the dashboard: the duration and outcome of each MCP tool call.

Recording must not slow the call it measures, so `record` only appends to memory; a background
thread writes what piled up about once a second, in one insert, and keeps the table bounded (the
newest `settings.WORKRAIL_TOOL_TIMINGS_KEPT` rows). Timings are telemetry, not history: a crash may
lose the last second of them, never an event. Only `manage.py mcp` turns the recorder on; elsewhere
(tests, benchmarks calling the services) `record` does nothing unless a test enables it.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections import deque
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import close_old_connections

from runs.mcp import deferred, readiness
from runs.store.call_notes import CallNote

logger = logging.getLogger("workrail.timings")

FLUSH_INTERVAL_S = 1.0
PRUNE_EVERY_FLUSHES = 30  # trimming the table costs a query; do it now and then, not on every flush


@dataclass(frozen=True)
class Timing:
    tool: str
    outcome: str
    duration_ms: float
    started_at: datetime
    run_id: str = ""  # what the call was about and how it failed (runs/store/call_notes.py)
    session_id: str = ""
    exception: str = ""
    message: str = ""  # a failed call's error message, as the agent was told it


MESSAGE_CHARS = 300  # ToolCall.message's length


_pending: deque[Timing] = deque(maxlen=10_000)  # a stalled writer cannot grow memory without end
_enabled = threading.Event()
_wake = threading.Event()
_flushes = 0
_lock = threading.Lock()


def enable(*, background: bool = True) -> None:
    """Starts recording. With `background`, a daemon thread writes every FLUSH_INTERVAL_S and once
    more at exit; without it, the caller writes with `flush()`."""
    if _enabled.is_set():
        return
    _enabled.set()
    if background:
        threading.Thread(target=_writer, name="workrail-timings", daemon=True).start()
        atexit.register(flush)


def disable() -> None:
    """Stops recording; a background writer wakes and ends (a server embedded in a test, or shut down)."""
    _enabled.clear()
    _pending.clear()
    _wake.set()


def record(
    tool: str,
    outcome: str,
    duration_ms: float,
    started_at: datetime,
    *,
    note: CallNote | None = None,
    message: str = "",
) -> None:
    """Keeps one call's timing; `note`: the run or session it was about and an unexpected exception's kind;
    `message`: a failed call's error message, as its answer gave it."""
    if _enabled.is_set():
        about = note or CallNote()
        _pending.append(
            Timing(
                tool,
                outcome[:40],
                duration_ms,
                started_at,
                about.run_id,
                about.session_id,
                about.exception,
                message[:MESSAGE_CHARS],
            )
        )


def flush() -> int:
    """Writes the recorded timings (runs/store/tool_calls.py); returns how many. Safe from any thread."""
    global _flushes
    with _lock:
        batch = [_pending.popleft() for _ in range(len(_pending))]
        if not batch:
            return 0
        try:
            trim = (_flushes + 1) % PRUNE_EVERY_FLUSHES == 1
            deferred.service("save_timings")(batch, keep=settings.WORKRAIL_TOOL_TIMINGS_KEPT if trim else None)
            _flushes += 1
        except Exception:  # telemetry never takes anything down with it
            logger.warning("could not record %d tool timings", len(batch), exc_info=True)
        finally:
            if threading.current_thread() is not threading.main_thread():
                close_old_connections()
        return len(batch)


def _writer() -> None:
    while _enabled.is_set():
        _wake.wait(FLUSH_INTERVAL_S)
        _wake.clear()
        if _pending:
            try:
                readiness.wait_until_ready()
            except Exception:  # the database never came up: the calls themselves say so
                _pending.clear()
                continue
            flush()
