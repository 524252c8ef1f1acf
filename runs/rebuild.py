"""Rebuild every projection from the event log (the source of truth)."""

from __future__ import annotations

from django.db import transaction

from runs.models import Event, Run, Session
from runs.projections import Projector


def rebuild_projections() -> dict[str, int]:
    """Drops the projections and replays all events in order, in one transaction. Returns counts."""
    with transaction.atomic():
        Run.objects.all().delete()  # cascades to nodes, attempts, acks and outputs
        Session.objects.update(session_key=None, title="")
        sessions = events = 0
        for session in Session.objects.order_by("pk"):
            sessions += 1
            projector = Projector(session)
            for seq, event in enumerate(Event.objects.filter(session=session).order_by("seq").iterator(), 1):
                if event.seq != seq:
                    raise RuntimeError(f"session {session.public_id}: the event log has a gap before seq {event.seq}")
                event.session = session
                projector.apply(event)
                events += 1
            projector.flush()
    return {"sessions": sessions, "events": events}
