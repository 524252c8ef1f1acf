"""The record that a session was shared: one `session_exported` event per file produced.

Reports (Markdown, PDF) and bundles all go through record_export(), so every export of a kept session
leaves the same trace in its event log, whichever door made it (a command, the dashboard, the API).
The event is not activity (runs.store.events.SessionExported.is_activity): reading a session out does not
move its last activity, so it neither reorders the sessions list nor delays its retention.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from runs.models import Session
from runs.store import events
from runs.store.journal import Journal, write

ExportFormat = Literal["bundle", "markdown", "pdf"]
ExportVia = Literal["command", "dashboard", "api"]


def digest_of(data: bytes) -> str:
    """The digest recorded for a produced file: 'sha256:<hex>' of its bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def record_export(
    session: Session, format: ExportFormat, digest: str, via: ExportVia, run_id: str | None = None
) -> None:
    """Records that `session` (or its run `run_id`) was exported as `format`, producing a file whose
    digest is `digest` (see digest_of), through `via`. In its own transaction."""
    with write() as now:
        # Read again inside the transaction: the caller's object may be stale (its last_seq is where the
        # next event goes, and an agent may have written since).
        fresh = Session.objects.get(pk=session.pk)
        journal = Journal(fresh, now)
        journal.record(events.SessionExported(export_format=format, run_id=run_id, digest=digest, via=via))
        journal.flush()
