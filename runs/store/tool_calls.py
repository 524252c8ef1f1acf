"""The bounded table of MCP tool-call timings (ToolCall): written in batches by the MCP server's
recorder (runs/mcp/timings.py), read by the dashboard (runs/readmodels/timings.py)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol

from django.db import transaction

from runs.models import ToolCall


class Timed(Protocol):
    @property
    def tool(self) -> str: ...
    @property
    def outcome(self) -> str: ...
    @property
    def duration_ms(self) -> float: ...
    @property
    def started_at(self) -> datetime: ...
    @property
    def run_id(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def exception(self) -> str: ...
    @property
    def message(self) -> str: ...


def save(batch: Iterable[Timed], *, keep: int | None = None) -> None:
    """Inserts the batch in one statement; with `keep`, then trims the table to its newest `keep` rows.
    In a transaction, so that on SQLite it takes its turn in the write queue with the tool calls'
    writes (workrail_site/sqlite_backend/write_queue.py) rather than starve beside them."""
    with transaction.atomic():
        ToolCall.objects.bulk_create(
            ToolCall(
                tool=t.tool,
                outcome=t.outcome,
                duration_ms=t.duration_ms,
                started_at=t.started_at,
                run_id=t.run_id,
                session_id=t.session_id,
                exception=t.exception,
                message=t.message,
            )
            for t in batch
        )
        if keep is not None:
            prune(keep)


def prune(keep: int) -> int:
    """Deletes all but the newest `keep` rows; returns how many went."""
    # Rows are inserted oldest first, so the primary key orders them by age.
    cutoff = ToolCall.objects.order_by("-pk").values_list("pk", flat=True)[keep : keep + 1].first()
    if cutoff is None:
        return 0
    deleted, _ = ToolCall.objects.filter(pk__lte=cutoff).delete()
    return deleted
