"""Paused: no agent has touched an open run since it came here, so no agent can be working on it.

Two ways a run comes here without an agent: its session was imported (the agent that held its tokens is on
another machine), or a person started its newest branch by hand from the dashboard (nobody has handed the
branch's call to an agent yet). Either way the move is the person's: resume the agent (actions.py).

Read from stored events only, never from words: for an import, the session's `session_imported` event
against the run's newest agent event (a node made, an ackToken issued, a step acknowledged, an output or a
checkpoint recorded) after it; for a branch started by hand, what branches.py already knows (its newest
branch is the one node a person made: outcomes._awaiting_agent). Once an agent continues, the run is
running again. Paused comes before the stall clock: a run nobody held has not stalled.

The sessions list filters, counts and sorts in SQL (overview._first_match_conditions): `sessions_with_paused_run`
says the same there, by the event log alone (a branch started by hand counts as its `operator_forked` event
with no agent event after it, which is when its newest branch is still only that node).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.fields.json import KT

from runs.models import Event, EventKind, Run, RunStatus
from runs.readmodels.branches import RunBranches

# What an agent's calls record about a run: any of these after the run came here means an agent holds it.
AGENT_KINDS = (
    EventKind.NODE_CREATED,
    EventKind.ATTEMPT_ISSUED,
    EventKind.STEP_ACKED,
    EventKind.OUTPUT_RECORDED,
    EventKind.CHECKPOINT_RECORDED,
)

How = Literal["imported", "by_hand"]


@dataclass(frozen=True)
class Paused:
    """Why no agent has a run, and since when: the import, or the branch a person started."""

    how: How
    since: datetime


def may_pause(run: Run) -> bool:
    """Only an open run not waiting for the user's confirmation (that one is theirs already) can be paused."""
    return run.status == RunStatus.IN_PROGRESS and not run.waits_for_user


def of_runs(runs: Iterable[Run], trees: dict[int, RunBranches]) -> dict[int, Paused]:
    """Which of `runs` are paused (by run pk), and why: their branches `trees` (by run pk) say which newest
    branch a person started by hand; the event log says which runs no agent touched since an import."""
    runs = list(runs)
    found = imported_untouched(runs)
    for run in runs:
        started = by_hand(trees.get(run.pk)) if may_pause(run) else None
        if started is not None:
            found[run.pk] = Paused("by_hand", started)
    return found


def by_hand(tree: RunBranches | None) -> datetime | None:
    """When a person started the run's newest branch by hand, if it is still only that node (no agent
    answered or checkpointed there: outcomes._awaiting_agent says the same of a branch)."""
    newest = next((b for b in tree.branches if b.is_newest), None) if tree is not None else None
    if tree is None or newest is None or newest.status != "open" or len(newest.nodes) != 1:
        return None
    node = newest.nodes[0]
    return tree.nodes[node].created_at if node in tree.started_by_hand else None


def with_import_marks(runs: QuerySet[Run]) -> QuerySet[Run]:
    """`runs` read with what imported_untouched needs, in the same query: their session's newest import (its
    seq and moment, None when never imported) and whether an agent event names the run after it."""
    imported = Event.objects.filter(session=OuterRef("session_id"), kind=EventKind.SESSION_IMPORTED).order_by("-seq")
    marked = runs.annotate(
        imported_seq=Subquery(imported.values("seq")[:1]),
        session_imported_at=Subquery(imported.values("created_at")[:1]),
    )
    return marked.annotate(touched_since_import=Exists(_agent_events_after("imported_seq")))


def imported_untouched(runs: Iterable[Run]) -> dict[int, Paused]:
    """Of `runs`, those no agent has touched since their session was imported (by run pk). No query for runs
    read with_import_marks; else two at most, whatever their number (one when no session was imported)."""
    runs = list(runs)
    if not runs:
        return {}
    if all(hasattr(run, "imported_seq") for run in runs):
        return {
            run.pk: Paused("imported", getattr(run, "session_imported_at"))  # noqa: B009 (an annotation, not a field)
            for run in runs
            if may_pause(run) and getattr(run, "imported_seq") is not None and not getattr(run, "touched_since_import")  # noqa: B009
        }
    imports: dict[int, tuple[int, datetime]] = {}
    rows = Event.objects.filter(session_id__in={run.session_id for run in runs}, kind=EventKind.SESSION_IMPORTED)
    for session_id, seq, at in rows.values_list("session_id", "seq", "created_at"):
        if session_id not in imports or seq > imports[session_id][0]:
            imports[session_id] = (seq, at)
    candidates = [run for run in runs if may_pause(run) and run.session_id in imports]
    if not candidates:
        return {}
    after = Q()
    for session_id, (seq, _) in imports.items():
        after |= Q(session_id=session_id, seq__gt=seq)
    touched = set(Event.objects.filter(after, kind__in=AGENT_KINDS).values_list("data__runId", flat=True).distinct())
    return {
        run.pk: Paused("imported", imports[run.session_id][1]) for run in candidates if run.public_id not in touched
    }


def sessions_with_paused_run() -> Q:
    """The sessions (a condition on Session) with an open run of their own that no agent has touched since it
    came here: since the session's import, or since a person started the run's newest branch by hand."""
    open_runs = Run.objects.filter(
        session=OuterRef("pk"), parent_run__isnull=True, status=RunStatus.IN_PROGRESS, waits_for_user=False
    )
    imported = Event.objects.filter(session=OuterRef("session_id"), kind=EventKind.SESSION_IMPORTED)
    forked = Event.objects.annotate(run_key=KT("data__runId")).filter(
        session=OuterRef("session_id"), kind=EventKind.OPERATOR_FORKED, run_key=OuterRef("public_id")
    )
    return Q(Exists(_untouched_since(open_runs, imported))) | Q(Exists(_untouched_since(open_runs, forked)))


def _untouched_since(open_runs: QuerySet[Run], came: QuerySet[Event]) -> QuerySet[Run]:
    """The runs of `open_runs` with no agent event after the newest of `came` (how they came here)."""
    at = open_runs.annotate(came=Subquery(came.order_by("-seq").values("seq")[:1])).filter(came__isnull=False)
    return at.exclude(Exists(_agent_events_after("came")))


def _agent_events_after(seq: str) -> QuerySet[Event]:
    """The agent events naming the outer run after the seq its annotation `seq` holds."""
    # The run's id as text (KT): PostgreSQL compares no jsonb value with a varchar column.
    return Event.objects.annotate(run_key=KT("data__runId")).filter(
        session=OuterRef("session_id"),
        kind__in=AGENT_KINDS,
        run_key=OuterRef("public_id"),
        seq__gt=OuterRef(seq),
    )
