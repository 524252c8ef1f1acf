"""Retention: delete whole sessions with no activity for a while, then the pinned workflows no run uses.

A session's last activity is `Session.updated_at`: every activity event moves it, an export record
does not (`is_activity` in runs/store/events.py). A session older than the cutoff is deleted whole: its
event log and every projection under it. Never a part of a session, so what remains can always be
rebuilt from its log.

Agents keep working during a cleanup. Sessions are chosen once, without a lock, then deleted in
small batches, each in its own short write transaction that checks again, under the write lock, that
the session is still past the cutoff: a session an agent wrote to meanwhile is kept (SQLite's
IMMEDIATE transaction holds the write lock; elsewhere the session rows are locked, as the Journal
locks them before writing). Rows are removed child-first with one DELETE per table and batch, not by
Django's collector, which loads every object to cascade it one by one.

A session an import is still writing (`Session.importing`) is never chosen, however old its events:
it is not part of the store yet. One whose import stopped long ago (the process was killed) is
removed a slice of rows at a time (runs/store/staged.py), before the expired sessions.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from runs.models import Event, PinnedWorkflow, RateBucket, Run, Session
from runs.store import staged
from runs.store.session_rows import UNDER_SESSION, raw_delete

logger = logging.getLogger("workrail.cleanup")

# Sessions per delete transaction: large enough that 10,000 sessions take a few seconds, small
# enough that an agent waiting for the write lock waits for one batch only (tens of milliseconds).
BATCH_SIZE = 100
KEYS_PER_DELETE = 500  # keys in one DELETE ... WHERE key IN (...): under every backend's parameter limit

# What a batch deletes, children first: the tables under a session (runs/store/session_rows.py), then
# the sessions themselves.
DELETION_ORDER: tuple[tuple[type[models.Model], str], ...] = (
    *((model, f"{path}__in") for model, path in UNDER_SESSION),
    (Session, "pk__in"),
)

Progress = Callable[[int, int], None]  # (selected sessions dealt with so far, selected sessions in all)


@dataclass(frozen=True)
class CleanupResult:
    """What a cleanup deleted, or with `dry_run`, what it would delete."""

    cutoff: datetime  # sessions whose last activity is before this are expired
    retention_days: int
    dry_run: bool
    sessions: int = 0
    runs: int = 0
    events: int = 0
    pinned_workflows: int = 0
    kept_meanwhile: int = 0  # chosen as expired, then written to before their batch: kept
    abandoned_imports: int = 0  # sessions an import staged and never finished (runs/store/staged.py)
    seconds: float = 0.0
    extra: dict[str, int] = field(default_factory=dict)  # rows of the other tables, by table

    def summary(self) -> str:
        """The one log line of a cleanup."""
        verb = "would delete" if self.dry_run else "deleted"
        line = (
            f"cleanup{' (dry run)' if self.dry_run else ''}: {verb} {counted(self.sessions, 'session')} "
            f"({counted(self.runs, 'run')}, {counted(self.events, 'event')}) and "
            f"{counted(self.pinned_workflows, 'pinned workflow')}; no activity since {format_cutoff(self.cutoff)} "
            f"(retention {self.retention_days} days)"
        )
        if self.kept_meanwhile:
            line += f"; kept {counted(self.kept_meanwhile, 'session')} written to during the cleanup"
        if self.abandoned_imports:
            line += f"; {verb} {counted(self.abandoned_imports, 'abandoned import')}"
        return line + f"; in {self.seconds:.1f} s"


def counted(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def format_cutoff(cutoff: datetime) -> str:
    return cutoff.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def cutoff_for(days: int, now: datetime | None = None) -> datetime:
    if days < 1:
        raise ValueError(f"retention must be at least one day, not {days}")
    return (now or timezone.now()) - timedelta(days=days)


def cleanup(
    *,
    older_than_days: int | None = None,
    dry_run: bool = False,
    now: datetime | None = None,
    progress: Progress | None = None,
    batch_size: int = BATCH_SIZE,
) -> CleanupResult:
    """Deletes (or with `dry_run` counts) the sessions with no activity for `older_than_days`
    (default: settings.WORKRAIL_RETENTION_DAYS) and the pinned workflows no remaining run uses.
    `progress` is called once the sessions are chosen (0, n), then after each batch, outside any
    transaction. Writes one summary line to the log."""
    started = time.monotonic()
    days = settings.WORKRAIL_RETENTION_DAYS if older_than_days is None else older_than_days
    now = now or timezone.now()
    cutoff = cutoff_for(days, now)
    empty = CleanupResult(cutoff=cutoff, retention_days=days, dry_run=dry_run)
    result = _count(empty, now) if dry_run else _delete(empty, now, progress, batch_size)
    result = replace(result, seconds=time.monotonic() - started)
    logger.info(result.summary())
    return result


def _count(result: CleanupResult, now: datetime) -> CleanupResult:
    """What a cleanup would delete now, with the same tests it would apply; changes nothing."""
    expired = {"session__updated_at__lt": result.cutoff, "session__importing": False}
    return replace(
        result,
        sessions=staged.visible_sessions().filter(updated_at__lt=result.cutoff).count(),
        runs=Run.objects.filter(**expired).count(),
        events=Event.objects.filter(**expired).count(),
        pinned_workflows=PinnedWorkflow.objects.filter(
            ~Exists(Run.objects.filter(pinned=OuterRef("pk"), session__updated_at__gte=result.cutoff))
        ).count(),
        abandoned_imports=staged.abandoned(now).count(),
    )


def _delete(result: CleanupResult, now: datetime, progress: Progress | None, batch_size: int) -> CleanupResult:
    # Before the sessions: an abandoned import's pinned workflows are then unused, and go below.
    abandoned_imports = staged.discard_abandoned(now)
    expired = staged.visible_sessions().filter(updated_at__lt=result.cutoff)  # a staged one is removed in slices
    chosen = list(expired.order_by("pk").values_list("pk", flat=True))
    if progress is not None:
        progress(0, len(chosen))
    totals: dict[str, int] = {}
    done = 0
    for batch in _batches(chosen, batch_size):
        for table, rows in _delete_batch(batch, result.cutoff).items():
            totals[table] = totals.get(table, 0) + rows
        done += len(batch)
        if progress is not None:
            progress(done, len(chosen))
    sessions = totals.pop(Session._meta.db_table, 0)
    return replace(
        result,
        sessions=sessions,
        runs=totals.pop(Run._meta.db_table, 0),
        events=totals.pop(Event._meta.db_table, 0),
        pinned_workflows=delete_unused_pinned_workflows(),
        kept_meanwhile=len(chosen) - sessions,
        abandoned_imports=abandoned_imports,
        extra=totals,
    )


def _batches[T](items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _delete_batch(batch: Sequence[int], cutoff: datetime) -> dict[str, int]:
    """Deletes the sessions of `batch` still past the cutoff, whole, in one short transaction;
    returns the rows deleted by table."""
    with transaction.atomic():
        # The check that matters: under the write lock (SQLite) or the session row locks (PostgreSQL,
        # where a concurrent writer's update makes the row fail the filter once its lock is released).
        still_expired = list(
            Session.objects.select_for_update()
            .filter(pk__in=batch, updated_at__lt=cutoff, importing=False)
            .values_list("pk", "public_id")
        )
        if not still_expired:
            return {}
        pks = [pk for pk, _ in still_expired]
        run_ids = list(Run.objects.filter(session_id__in=pks).values_list("public_id", flat=True))
        deleted = {
            model._meta.db_table: raw_delete(model._default_manager.filter(**{path: pks}))
            for model, path in DELETION_ORDER
        }
        # The write-rate buckets of the deleted runs and sessions (runs/store/ratelimit.py): nothing will spend them.
        # In slices: a session can have many runs (delegations), and a statement only so many parameters.
        keys = [f"run:{run_id}" for run_id in run_ids] + [f"session:{public_id}" for _, public_id in still_expired]
        deleted[RateBucket._meta.db_table] = sum(
            raw_delete(RateBucket.objects.filter(key__in=some)) for some in _batches(keys, KEYS_PER_DELETE)
        )
    return deleted


def delete_unused_pinned_workflows(among: Collection[str] | None = None) -> int:
    """Deletes the pinned workflows no run refers to (those of deleted runs, and any left from before;
    with `among`, only those of these hashes: what a failed import had pinned).
    On SQLite it runs under the write lock, so a run pinning the same workflow either committed before
    (and the row stays) or starts after (and pins it again). On PostgreSQL the unused rows are first
    locked FOR UPDATE, skipping any a starting run holds (runs/store/pinned.py `pin`), and then
    deleted only if still unused, checked again in a statement that sees every run committed by then:
    a start never fails at commit because its workflow vanished."""
    if among is not None:
        return sum(_delete_unused({"pk__in": some}) for some in _batches(list(among), KEYS_PER_DELETE))
    return _delete_unused({})


def _delete_unused(where: dict[str, Sequence[str]]) -> int:
    unused = PinnedWorkflow.objects.filter(~Exists(Run.objects.filter(pinned=OuterRef("pk"))), **where)
    with transaction.atomic():
        if connection.vendor != "postgresql":
            return raw_delete(unused)
        locked = list(unused.select_for_update(skip_locked=True).values_list("pk", flat=True))
        return sum(raw_delete(unused.filter(pk__in=some)) for some in _batches(locked, KEYS_PER_DELETE))
