"""Writing to a session's event log: a Journal collects one transaction's events.

Each event gets the next seq (gap-free: the session row carries the last one) and is applied to the
projections at once, so later code in the transaction sees its rows; the events themselves are
inserted together at `flush`, with one update of the session row.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from django.db import OperationalError, connection, transaction
from django.utils import timezone

from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Event, Session
from runs.store import actors, call_notes, statements
from runs.store.events import EventPayload
from runs.store.projections import Projector
from runs.store.statements import SelectOne

_DATA, _CREATED_AT = Event._meta.get_field("data"), Event._meta.get_field("created_at")
_session_locked = SelectOne(lambda pk: Session.objects.select_for_update().only("last_seq").filter(pk=pk))


class Journal:
    def __init__(self, session: Session, now: datetime, *, new: bool = False) -> None:
        """A journal on `session`; `new`: the session was created in this transaction (no other writer
        can see it yet, so it needs no lock)."""
        if not transaction.get_connection().in_atomic_block:
            raise RuntimeError("events must be recorded inside a transaction")
        if connection.vendor != "sqlite" and not new:
            # SQLite's IMMEDIATE transaction already holds the write lock; elsewhere lock the session row
            # so that two writers cannot take the same seq.
            locked = _session_locked.get(session.pk)
            assert locked is not None, "the session of a journal exists"
            session.last_seq = locked.last_seq
        self.session = session
        self.now = now
        call_notes.saw_session(session.public_id)  # for the call's timing row, when a tool call writes
        self.projector = Projector(session)
        # The events' rows, values prepared for the database in Event's field order (session, seq, kind, data,
        # created_at, actor, door, client_name): inserted together at flush, with no model instances on the hot path.
        self._rows: list[list[Any]] = []
        self._prepared_now = _CREATED_AT.get_db_prep_save(now, connection)
        self._activity = False  # whether any recorded event moves the session's last activity
        actor = actors.current()  # who the request acts for: one per transaction
        self._by = [actor.owner, str(actor.door), actor.client_name]

    def record(self, payload: EventPayload) -> None:
        self.session.last_seq += 1
        data = _DATA.get_db_prep_save(payload.data(), connection)
        self._rows.append(
            [self.session.pk, self.session.last_seq, payload.kind.value, data, self._prepared_now, *self._by]
        )
        self._activity = self._activity or payload.is_activity
        self.projector.apply(payload, self.now, self._by[0], self._by[2])

    def flush(self) -> None:
        if not self._rows:
            return
        statements.insert_prepared(Event, self._rows)
        # The session row is written once, with what the projector changed in it.
        if self._activity:
            self.projector.flush(last_seq=self.session.last_seq, updated_at=self.now)
            self.session.updated_at = self.now
        else:
            self.projector.flush(last_seq=self.session.last_seq)
        self._rows.clear()
        self._activity = False


def lock_session_key(key: str) -> None:
    """Serialize the writers that look up, then maybe create, the session with this key: without it, two
    runs started at once with one new ticketId would both create it on PostgreSQL (the second failing on
    the unique key). A transaction-scoped advisory lock there; SQLite's IMMEDIATE transaction already
    holds the whole store's write lock."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("a session key is locked inside a transaction")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ["workrail-session-key:" + key])


def new_session(now: datetime) -> Session:
    session = Session(public_id="ses_" + secrets.token_hex(8), created_at=now, updated_at=now)
    statements.insert(session)
    return session


def random_id() -> int:
    """A random positive 63-bit id: node and attempt ids end up in tokens, so they must not be guessable
    sequences (the MAC already prevents forgery; randomness keeps ids meaningless)."""
    return secrets.randbits(63) or 1


def session_token_id(session: Session) -> int:
    """The number a sessionToken carries: the hex part of the session's public id."""
    return int(session.public_id.removeprefix("ses_"), 16)


def session_public_id(token_id: int) -> str:
    return f"ses_{token_id:016x}"


@contextmanager
def write() -> Iterator[datetime]:
    """A write transaction and its timestamp; a lock time-out becomes a retryable error, not a crash."""
    try:
        with transaction.atomic():
            yield timezone.now()
    except OperationalError as exc:
        if "locked" not in str(exc):
            raise
        raise WorkRailError(
            ErrorCode.STORE_BUSY,
            "The WorkRail database is busy.",
            "Retry the same call in a moment; nothing was recorded.",
            retryable=True,
        ) from exc
