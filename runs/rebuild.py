"""Rebuild every projection from the event log (the source of truth)."""

from __future__ import annotations

from django.db import transaction

from runs import projections
from runs.models import Event, Run, Session


def rebuild_projections() -> dict[str, int]:
    """Drops the projections and replays all events in order, in one transaction. Returns counts."""
    with transaction.atomic():
        Run.objects.all().delete()  # cascades to nodes, attempts, acks and outputs
        Session.objects.update(session_key=None, title="")
        sessions = events = 0
        for session in Session.objects.order_by("pk"):
            sessions += 1
            for event in Event.objects.filter(session=session).order_by("seq").iterator():
                event.session = session
                projections.apply(event)
                events += 1
            if session.last_seq != events_in(session):
                raise RuntimeError(f"session {session.public_id}: event log has gaps")
    return {"sessions": sessions, "events": events}


def events_in(session: Session) -> int:
    return Event.objects.filter(session=session).count()
