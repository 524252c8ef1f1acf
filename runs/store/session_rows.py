"""The rows that hang under a session, children first, and the one way they are deleted.

Two places delete whole sessions: retention, expired ones in batches (runs/store/retention.py), and
an import's staged session, removed a slice at a time (runs/store/staged.py). Both walk the tables in
this order and delete with one DELETE statement per table, not with Django's collector, which loads
every object to cascade it one by one. One list, so that a table added under a session is deleted by
both (tests/runs/store/test_cleanup.py fails when a new model points at one of these and is not listed).
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models import QuerySet

from runs.models import (
    Ack,
    Attempt,
    Checkpoint,
    Event,
    Gap,
    Node,
    Observation,
    Output,
    Run,
    RunSynthesis,
    SearchEntry,
)

# Each table under a session, children before what they point at, with the lookup from it to the
# session's pk. The foreign keys are deferred to commit on SQLite and PostgreSQL, so within one
# transaction the order is for clarity (and for a backend checking at once); across the slices of a
# staged removal it is what keeps every reference pointing at a row that is still there.
UNDER_SESSION: tuple[tuple[type[models.Model], str], ...] = (
    (SearchEntry, "session_id"),
    (Checkpoint, "session_id"),
    (Observation, "session_id"),
    (Gap, "run__session_id"),
    (RunSynthesis, "run__session_id"),
    (Output, "node__run__session_id"),
    (Ack, "node__run__session_id"),
    (Attempt, "node__run__session_id"),
    (Node, "run__session_id"),
    (Run, "session_id"),
    (Event, "session_id"),
)


def raw_delete(queryset: QuerySet[Any]) -> int:
    """One DELETE statement, without the collector, signals or Event's append-only refusal. The one
    sanctioned way to delete events, and only with the whole session they belong to (an expired one,
    or a staged one that was never part of the store): what remains can always be rebuilt from its log."""
    return int(queryset._raw_delete(queryset.db))
