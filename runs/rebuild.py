"""Rebuild every projection from the event log (the source of truth)."""

from __future__ import annotations

from django.db import transaction

from runs.events import parse
from runs.models import Event, Session
from runs.projections import Projector


def rebuild_projections() -> dict[str, int]:
    """Drops the projections and replays all events in order, in one transaction. Returns counts."""
    with transaction.atomic():
        Projector.clear()
        sessions = applied = 0
        for session in Session.objects.order_by("pk"):
            sessions += 1
            projector = Projector(session)
            for seq, event in enumerate(Event.objects.filter(session=session).order_by("seq").iterator(), 1):
                if event.seq != seq:
                    raise RuntimeError(f"session {session.public_id}: the event log has a gap before seq {event.seq}")
                projector.apply(parse(event.kind, event.data), event.created_at)
                applied += 1
            projector.flush()
    return {"sessions": sessions, "events": applied}
