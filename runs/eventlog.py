"""Appending to a session's event log. Callers hold a transaction; each append takes the next seq
(gap-free: the session row carries the last one) and applies the event to the projections."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from django.db import transaction

from runs import projections
from runs.models import Event, EventKind, Session


def new_session(now: datetime) -> Session:
    return Session.objects.create(public_id="ses_" + secrets.token_hex(8), created_at=now, updated_at=now)


def append(session: Session, kind: EventKind, data: dict[str, Any], now: datetime) -> Event:
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("events must be appended inside a transaction")
    session.last_seq += 1
    session.updated_at = now
    session.save(update_fields=["last_seq", "updated_at"])
    event = Event.objects.create(session=session, seq=session.last_seq, kind=kind, data=data, created_at=now)
    projections.apply(event)
    return event


def random_id() -> int:
    """A random positive 63-bit id: node and attempt ids end up in tokens, so they must not be guessable
    sequences (the MAC already prevents forgery; randomness keeps ids meaningless)."""
    return secrets.randbits(63) or 1
