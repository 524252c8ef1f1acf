"""Sessions an import is still writing (`Session.importing`): what hides them, and removing one.

A bundle can hold hundreds of thousands of events, and SQLite lets one writer in at a time; an import
in one transaction held the store for tens of seconds while every agent waited. So an import writes
its session in many short transactions (exports/bundle/importing.py), and until the last one the
session is *staged*: `importing` is set, its public id and its runs' are stand-ins (STAND_IN prefix)
that no one was ever given, and its session key is left empty, so no lookup by id or key reaches it
and no agent joins it. Listings leave it out (`visible_sessions`), and so do searches
(`SearchEntry.objects`).
The last transaction gives the session and its runs their own ids and key and clears `importing`:
the session appears whole, or not at all.

Removing a staged session (the import's own, when it fails; an abandoned one, by cleanup) is done a
slice of rows at a time, each slice in its own short transaction, children first, for the same
reason. It starts by taking the session from its import: the stand-in id becomes a DISCARDED one, and
the import checks its stand-in id under the write lock before each transaction, so an import that
was only paused (not killed) stops instead of writing into a session being removed.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.db import models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from runs.models import Node, Run, Session
from runs.store.session_rows import UNDER_SESSION, raw_delete

STAND_IN = "imp_"  # the public ids of a staged session and of its runs
DISCARDED = "del_"  # a staged session being removed
# An import moves its session's updated_at with every transaction (well under a second apart): one
# quiet this long was killed, or paused past any reasonable wait, and will not finish.
ABANDONED_AFTER = timedelta(minutes=15)
ROWS_PER_DELETE = 2000  # rows per removal transaction: a few milliseconds of the write lock


def stand_in_id() -> str:
    return STAND_IN + secrets.token_hex(8)


def visible_sessions() -> QuerySet[Session]:
    """The sessions of the store, staged imports left out."""
    return Session.objects.filter(importing=False)


def discard(session_pk: int, stand_in: str, *, rows: int | None = None) -> bool:
    """Removes the staged session `session_pk` while it still has the public id `stand_in` (its import's),
    with everything under it; False when it is not there so (published, or already being removed)."""
    with transaction.atomic():
        claimed = Session.objects.filter(pk=session_pk, public_id=stand_in, importing=True).update(
            public_id=DISCARDED + stand_in.removeprefix(STAND_IN)
        )
    if claimed:
        _remove(session_pk, rows or ROWS_PER_DELETE)
    return bool(claimed)


def discard_abandoned(now: datetime | None = None, *, rows: int | None = None) -> int:
    """Removes the staged sessions whose import stopped writing ABANDONED_AFTER ago, and any whose
    removal was itself cut short; returns how many."""
    removed = 0
    for pk, public_id in abandoned(now).values_list("pk", "public_id"):
        if public_id.startswith(DISCARDED):
            _remove(pk, rows or ROWS_PER_DELETE)
            removed += 1
        else:
            removed += discard(pk, public_id, rows=rows)
    return removed


def abandoned(now: datetime | None = None) -> QuerySet[Session]:
    cutoff = (now or timezone.now()) - ABANDONED_AFTER
    return Session.objects.filter(importing=True, updated_at__lt=cutoff)


def _remove(session_pk: int, rows: int) -> None:
    _unlink_delegations(session_pk, rows)
    for model, path in UNDER_SESSION:
        _delete_in_slices(model, {path: session_pk}, rows)
    with transaction.atomic():
        raw_delete(Session.objects.filter(pk=session_pk, importing=True))


def _unlink_delegations(session_pk: int, rows: int) -> None:
    """A delegated run points at its parent run and at the node that handed it out: letting go of both
    first lets nodes and runs go in any slices."""
    linked = Run._base_manager.filter(Q(parent_run__isnull=False) | Q(parent_node__isnull=False), session_id=session_pk)
    while True:
        with transaction.atomic():
            pks = list(linked.values_list("pk", flat=True)[:rows])
            if not pks:
                return
            Run._base_manager.filter(pk__in=pks).update(parent_run=None, parent_node=None)


def _delete_in_slices(model: type[models.Model], where: dict[str, int], rows: int) -> None:
    """Deletes the rows of `model` matching `where`, newest first, `rows` per transaction."""
    manager = model._base_manager
    while True:
        with transaction.atomic():
            pks = list(manager.filter(**where).order_by("-pk").values_list("pk", flat=True)[:rows])
            if not pks:
                return
            if model is Node:
                # Newest first, a node's children (newer) are gone before it; its parent's link to its
                # newest child is the one reference left into this slice.
                Node._base_manager.filter(latest_child_id__in=pks).update(latest_child=None)
            raw_delete(manager.filter(pk__in=pks))
