"""Rebuild every projection from the event log (the source of truth).

One session at a time, each in its own short transaction: the write lock is held for one session's
events, never for the whole store, so agents keep working while a large store is rebuilt (a session
being written waits for at most its own rebuild). A rebuilt session is complete and consistent the
moment its transaction commits; sessions not yet reached still have their old, equally consistent
projections.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from runs.models import Event, Session
from runs.store.events import parse
from runs.store.projections import Projector
from runs.store.staged import visible_sessions

Progress = Callable[[int, int, int], None]  # (sessions done, sessions in all, events applied so far)


class EventLogGap(RuntimeError):
    """A session's event log skips a seq: its history is damaged and is not rebuilt."""


def rebuild_session(session: Session) -> int:
    """Rebuilds one session's projections from its events, in one transaction; returns the events applied."""
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        Projector.clear(session)
        projector = Projector(session, deferred=True)  # rows in bulk at flush: see runs/store/projections.py
        applied = 0
        for seq, event in enumerate(Event.objects.filter(session=session).order_by("seq").iterator(), 1):
            if event.seq != seq:
                raise EventLogGap(f"session {session.public_id}: the event log has a gap before seq {event.seq}")
            projector.apply(parse(event.kind, event.data), event.created_at, event.actor, event.client_name)
            applied += 1
        projector.flush()
    return applied


def rebuild_projections(progress: Progress | None = None) -> dict[str, int]:
    """Rebuilds every session present when it starts; returns counts. `progress` is called after each.
    A session an import is still writing is left to it (its rows are its import's, not yet part of the
    store); one that was abandoned is removed by cleanup (runs/store/staged.py)."""
    ids = list(visible_sessions().order_by("pk").values_list("pk", flat=True))
    applied = 0
    for done, pk in enumerate(ids, 1):
        session = visible_sessions().filter(pk=pk).first()
        if session is not None:  # deleted meanwhile (retention): nothing to rebuild
            applied += rebuild_session(session)
        if progress is not None:
            progress(done, len(ids), applied)
    return {"sessions": len(ids), "events": applied}
