"""The developer's view of sessions: the sessions list and one session with its runs.

Read-only, and built for size: the list reads only the session rows (their summaries are kept by
the projector) in two queries whatever the page or the number of sessions; a session page reads a
fixed number of queries whatever the number of runs or nodes.
"""

from __future__ import annotations

import math
from collections import Counter, OrderedDict
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePath
from typing import Any

from django.db.models import Case, Count, Exists, IntegerField, OuterRef, Q, QuerySet, Value, When

from runs.contract.dashboard import (
    BranchOutcomeEntry,
    CheckpointEntry,
    EventEntry,
    EventPage,
    RunSummary,
    SessionDetail,
    SessionGroup,
    SessionGroupHeading,
    SessionPage,
    SessionSort,
    SessionStatusName,
    SessionSummary,
    StateName,
    TimelineLane,
    Whereabouts,
)
from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.preferences import mode_of
from runs.models import (
    Checkpoint,
    Event,
    Node,
    Run,
    RunStatus,
    SearchEntry,
    Session,
    SessionKind,
    SessionStatus,
)
from runs.readmodels import attention, branches, naming, outcomes, paused, people, states, step_text
from runs.readmodels.clock import stall_cutoff
from runs.store import ownership
from runs.store.pinned import compiled_workflow
from runs.store.staged import visible_sessions

PER_PAGE_DEFAULT = 50
PER_PAGE_MAX = 200
MAX_QUERY_CHARS = 200
MAX_QUERY_WORDS = 8
CHECKPOINTS_SHOWN = 200
EVENTS_PAGE_MAX = 500
STALLED = "stalled"

_SORTS: dict[str, tuple[str, ...]] = {
    "activity": ("updated_at", "pk"),
    "-activity": ("-updated_at", "-pk"),
    "created": ("created_at", "pk"),
    "-created": ("-created_at", "-pk"),
    "title": ("title", "pk"),
    "-title": ("-title", "-pk"),
}
# A branch is a branch of one repository: grouping by branch groups by repository first.
_GROUP_FIELDS = {"branch": ("workspace_path", "git_branch"), "workspace": ("workspace_path",)}


def shown_status(status: str, last_activity: datetime, cutoff: datetime, waiting: bool = False) -> Any:
    """A stored status as the developer sees it: in progress but quiet for too long is stalled, unless it
    is quiet because it waits for the user (`waiting`: runs/store/waiting.py): then the move is theirs."""
    quiet = status == RunStatus.IN_PROGRESS and last_activity < cutoff and not waiting
    return STALLED if quiet else status


def not_found(what: str, value: str, fix: str) -> WorkRailError:
    return WorkRailError(ErrorCode.NOT_FOUND, f"No {what} has the id '{value[:80]}'.", fix)


# --- the sessions list -------------------------------------------------------------------------------


def list_sessions(
    *,
    query: str = "",
    status: SessionStatusName | None = None,
    state: StateName | None = None,
    sort: SessionSort = "-activity",
    group: SessionGroup = "none",
    page: int = 1,
    per_page: int = PER_PAGE_DEFAULT,
    urgent_first: bool = False,
    move: states.Move | None = None,
    count_yours: bool = False,
) -> SessionPage:
    """`urgent_first`: within each group, the sessions that need someone most come first (states.urgency, by
    each row's state and the move its pill shows: needs you, blocked once it is yours, stalled, running with the
    blocks the agent retries, then the settled ones), each kind in `sort`'s order. `move`: only
    the sessions whose move it is (the dashboard's filters by whose move, the colours of the rows' pills;
    `status` aside, and with `state` those of that state: states.SPLIT_FILTERS); `count_yours`: count the
    sessions yours (SessionPage.yours) without filtering."""
    # NUL separates words too: PostgreSQL text cannot hold it (no stored text contains one).
    query = " ".join(query.replace("\x00", " ").split())[:MAX_QUERY_CHARS]
    per_page = max(1, min(per_page, PER_PAGE_MAX))
    cutoff = stall_cutoff()
    matching = _search(visible_sessions().filter(ownership.visible()), query)
    counts, by_state, alone = _counts(matching, cutoff)
    mine = _yours(matching, cutoff, alone) if move or count_yours or urgent_first else None
    if mine is not None and move and state:  # one state's rows of one move (states.SPLIT_FILTERS)
        total = matching.filter(
            _move_condition(move, mine.condition, cutoff) & _state_conditions(cutoff)[state]
        ).count()
    elif mine is not None and move:
        total = move_counts(by_state, mine.count)[move]
    else:
        total = by_state.get(state, 0) if state else counts.get(status, 0) if status else sum(counts.values())
    pages = max(1, math.ceil(total / per_page))
    page = max(1, min(page, pages))
    ordering: tuple[Any, ...] = _SORTS[sort]
    if mine is not None and move:
        chosen = matching.filter(_move_condition(move, mine.condition, cutoff))
        chosen = _with_state(chosen, state, cutoff) if state else chosen
    else:
        chosen = _with_state(matching, state, cutoff) if state else _with_status(matching, status, cutoff)
    if urgent_first and mine is not None:
        chosen = chosen.annotate(urgency=_urgency(cutoff, mine.condition))
        ordering = ("urgency", *ordering)
    if group in _GROUP_FIELDS:
        ordering = (*_GROUP_FIELDS[group], *ordering)
    rows = list(chosen.order_by(*ordering)[(page - 1) * per_page : page * per_page])
    told = _forked_summaries([session for session in rows if session.branch_count > session.run_count], cutoff)
    where = attention.of_sessions(rows, cutoff)
    items = [summary(session, cutoff, told.get(session.pk), where.get(session.pk)) for session in rows]
    found = SessionPage(
        items=items,
        total=total,
        page=page,
        pages=pages,
        per_page=per_page,
        query=query,
        status=status,
        sort=sort,
        group=group,
        groups=_groups(items, group),
        status_counts=counts,
        state=state,
        state_counts=by_state,
        has_owners=people.store_has_owners(),
    )
    found._yours = mine.count if mine is not None else 0
    return found


def summary(
    session: Session, cutoff: datetime, status_summary: str | None = None, where: Whereabouts | None = None
) -> SessionSummary:
    status = shown_status(session.status, session.updated_at, cutoff, session.waiting_for_user)
    if where is not None and where.state == "paused":
        status = session.status  # nobody had its most urgent run: the stall clock does not apply (paused.py)
    return SessionSummary(
        session_id=session.public_id,
        title=session.title,
        session_key=session.session_key,
        status=status,
        # Its most urgent run's state (attention.chosen names that run), else its own.
        state=where.state if where is not None else states.of_status(status, session.waiting_for_user),
        workflow_ids=session.workflow_ids.split(),
        run_count=session.run_count,
        branch_count=session.branch_count,
        git_branch=session.git_branch,
        workspace_path=session.workspace_path,
        created_at=session.created_at,
        last_activity=session.updated_at,
        status_summary=status_summary,
        owner=session.owner,
        where=where,
    )


@dataclass(frozen=True)
class WorkflowTag:
    """A workflow as the sessions list names it: by its name; its id shown too only when another workflow
    of the same session has that name (else the id is the tag's title, for whoever needs it)."""

    workflow_id: str
    name: str
    id_shown: bool
    # The state of the session's newest run of it, in the chips' vocabulary (states.py): a row names another
    # run with its state, "+1 run: Focused Plan Routine (running)" (friction13 12). None where not read.
    state: states.StateName | None = None


def workflow_tags(items: list[SessionSummary]) -> dict[str, list[WorkflowTag]]:
    """Each listed session's workflows by name (its runs' pinned workflows, the newest run's name for an
    id) and the state of its newest run of each, by session id: two queries for the page (one more for
    the runs of an imported session)."""
    ids = {workflow_id for item in items for workflow_id in item.workflow_ids}
    names: dict[str, str] = {}
    newest: dict[tuple[str, str], states.StateName] = {}
    if ids:
        runs = paused.with_import_marks(
            Run.objects.filter(session__public_id__in=[item.session_id for item in items], workflow_id__in=ids)
            .select_related("session")
            .order_by("created_at", "pk")
        )
        cutoff = stall_cutoff()
        listed = list(runs)
        halted = paused.imported_untouched(listed)
        for run in listed:
            names[run.workflow_id] = str(compiled_workflow(run.pinned_id).get("name") or run.workflow_id)
            newest[(run.session.public_id, run.workflow_id)] = run_status(run, cutoff, run.pk in halted)[1]
    return {
        item.session_id: [
            WorkflowTag(tag.workflow_id, tag.name, tag.id_shown, newest.get((item.session_id, tag.workflow_id)))
            for tag in tagged(item.workflow_ids, names)
        ]
        for item in items
    }


@dataclass(frozen=True)
class RowTitle:
    """How the sessions list titles one row: the session's own title first, its key under it when the title
    is a goal the agent gave, and the session's other workflows only where the row's "Where it is" cell
    does not already name them."""

    title: str  # the agent's goal, else the session's key, else its stored title (its first workflow's name)
    key: str  # the key under a goal ("MR-77"); "" when the title is the key or there is none (the id is in the tooltip)
    others: list[WorkflowTag]  # workflows neither the title nor the row's "Where it is" names

    @property
    def others_lead(self) -> str:
        """What the other workflows are, before their names: other runs of the session ("+1 run")."""
        return f"+{len(self.others)} run{'s' if len(self.others) != 1 else ''}"


def where_note(session: SessionSummary) -> str:
    """What a sessions-list row says in brackets after the workflow its "Where it is" names: which of the
    session's runs that is when it has several, and how many branches its runs have only when one branched
    ("run 2 of 2 · 3 branches", "3 branches", ""). The one place a row counts branches, at every size
    (friction26a 8, 26b 9: a "Run branches" column read "1" on nearly every row, and the phone card said it apart).
    The branches counted are the named run's own (friction27a 4: the session's total, beside one run's name, said
    "run 2 of 2 · 4 branches" of a run of one)."""
    where = session.where
    if where is None or where.run_id is None:
        return f"{session.branch_count} branches" if session.branched else ""
    parts = [f"run {where.run_number} of {session.run_count}"] if session.run_count > 1 else []
    if where.branches > 1:
        parts.append(f"{where.branches} branches")
    return " · ".join(parts)


def row_titles(items: list[SessionSummary]) -> dict[str, RowTitle]:
    """Each listed session's title, key and other workflows (RowTitle), by session id: one query for the page."""
    tags = workflow_tags(items)
    return {item.session_id: row_title(item, tags[item.session_id]) for item in items}


def row_title(item: SessionSummary, tags: list[WorkflowTag]) -> RowTitle:
    """A session's stored title is the agent's goal, else its ticket or key, else its first workflow's name
    (runs/execution/recording.py, session_title). The first workflow's name is not put in place of a key:
    the row's "Where it is" names the run's workflow already, so it would be said twice on one line."""
    name = naming.session_name(item.session_key, item.title, item.session_id)
    stored = item.title.strip()
    said_by_key = item.session_key is not None and item.session_key in {stored, naming.TICKET_PREFIX + stored}
    if item.session_key is not None and stored and not said_by_key:
        title, key = stored, name
    else:
        title, key = name, ""
    where = item.where.run_name if item.where is not None else ""
    return RowTitle(title=title, key=key, others=[tag for tag in tags if tag.name not in {title, where}])


def tagged(workflow_ids: list[str], names: dict[str, str]) -> list[WorkflowTag]:
    """One session's workflows by name (`names`, by id; the id when unknown), the id shown beside a name
    two of them share."""
    named = [(workflow_id, names.get(workflow_id, workflow_id)) for workflow_id in workflow_ids]
    counts = Counter(name for _, name in named)
    return [WorkflowTag(w, name, counts[name] > 1 and name != w) for w, name in named]


# The status in words of sessions with a forked run, by (session id, last_seq, stalled): every recorded
# event moves last_seq, so an entry is never stale (and the clock only turns an open run stalled). The live
# list re-renders on every event anywhere; a forked session's branches are then read again only if that
# session changed. Bounded, oldest dropped first.
_WORDS: OrderedDict[tuple[str, int, bool], str] = OrderedDict()
WORDS_KEPT = 4096


def _forked_summaries(sessions: list[Session], cutoff: datetime) -> dict[int, str]:
    """The status in words of the sessions with a forked run (by session pk), whose stored status would
    hide a finished branch behind an open one. A fixed number of queries for the page (none for the
    sessions already read at their last_seq); sessions whose runs never forked are not read (their status
    says it all)."""
    keys = {session.pk: (session.public_id, session.last_seq, _stalled(session, cutoff)) for session in sessions}
    missing = [session for session in sessions if keys[session.pk] not in _WORDS]
    if missing:
        read = Run.objects.filter(session__in=missing, parent_run__isnull=True).order_by("created_at", "pk")
        runs = list(paused.with_import_marks(read))
        words = _session_words(runs, branches.read_many(runs), cutoff)
        for session in missing:
            _WORDS[keys[session.pk]] = words.get(session.pk, "")
        while len(_WORDS) > WORDS_KEPT:
            _WORDS.popitem(last=False)
    found = {}
    for session in sessions:
        said = _WORDS.get(keys[session.pk])
        if said:
            found[session.pk] = said
    return found


def _stalled(session: Session, cutoff: datetime) -> bool:
    return shown_status(session.status, session.updated_at, cutoff, session.waiting_for_user) == STALLED


def run_words(run: Run, told: list[BranchOutcomeEntry], cutoff: datetime, halted: bool = False) -> str:
    """A run's status in words: stalled when the dashboard shows it stalled (never "where the agent works"),
    waiting for you when its newest step waits for the user's confirmation. A `halted` run (paused.py) is
    never stalled: no agent had it."""
    stalled = not halted and shown_status(run.status, run.updated_at, cutoff, run.waits_for_user) == STALLED
    waiting = run.waits_for_user and run.status == RunStatus.IN_PROGRESS
    return outcomes.summary_words(told, stalled=stalled, waiting=waiting)


def _session_words(runs: list[Run], trees: dict[int, branches.RunBranches], cutoff: datetime) -> dict[int, str]:
    """Each session's status in words from its root runs' branches, by session pk."""
    told = outcomes.of_runs(trees.values())
    halted = paused.of_runs([run for run in runs if run.parent_run_id is None], trees)
    by_session: dict[int, list[tuple[str, str]]] = {}
    for run in runs:
        if run.parent_run_id is None and run.pk in told:
            name = str(compiled_workflow(run.pinned_id).get("name") or run.workflow_id)
            words = run_words(run, told[run.pk], cutoff, run.pk in halted)
            by_session.setdefault(run.session_id, []).append((name, words))
    return {pk: outcomes.session_words(words) for pk, words in by_session.items()}


def _search(sessions: QuerySet[Session], query: str) -> QuerySet[Session]:
    """Every word must appear in the session's title, key, workflows, branch, or in the identity or
    recent notes its runs' search entries keep (already lower-cased)."""
    for word in query.split()[:MAX_QUERY_WORDS]:
        lowered = word.lower()
        in_entries = SearchEntry.objects.filter(session=OuterRef("pk")).filter(
            Q(identity_text__contains=lowered) | Q(notes_text__contains=lowered)
        )
        sessions = sessions.filter(
            Q(public_id=word)
            | Q(title__icontains=word)
            | Q(session_key__icontains=word)
            | Q(workflow_ids__icontains=word)
            | Q(git_branch__icontains=word)
            | Exists(in_entries)
        )
    return sessions


def _with_status(sessions: QuerySet[Session], status: str | None, cutoff: datetime) -> QuerySet[Session]:
    if status == STALLED:
        return sessions.filter(status=SessionStatus.IN_PROGRESS, updated_at__lt=cutoff, waiting_for_user=False)
    if status == SessionStatus.IN_PROGRESS:
        return sessions.filter(Q(updated_at__gte=cutoff) | Q(waiting_for_user=True), status=SessionStatus.IN_PROGRESS)
    if status:
        return sessions.filter(status=status)
    return sessions


def _counts(sessions: QuerySet[Session], cutoff: datetime) -> tuple[dict[str, int], dict[str, int], int]:
    """Sessions per shown status, per state (states.py), and how many without runs are a person's move
    (_yours), in one aggregate query."""
    quiet = Q(status=SessionStatus.IN_PROGRESS, updated_at__lt=cutoff, waiting_for_user=False)
    aggregates: dict[str, Count] = {
        f"status_{name}": Count("pk", filter=Q(status=name) & ~quiet)
        for name in SessionStatus.values
        if name != STALLED
    }
    aggregates[f"status_{STALLED}"] = Count("pk", filter=quiet)
    aggregates |= {f"state_{name}": Count("pk", filter=c) for name, c in _state_conditions(cutoff).items()}
    aggregates["yours_alone"] = Count("pk", filter=_without_runs_yours(cutoff))
    counted = sessions.aggregate(**aggregates)
    by_status = {name.removeprefix("status_"): n for name, n in counted.items() if name.startswith("status_") and n}
    by_state: dict[str, int] = {name: counted[f"state_{name}"] for name in states.ORDER if counted.get(f"state_{name}")}
    return by_status, by_state, counted["yours_alone"]


def _state_conditions(cutoff: datetime) -> dict[StateName, Q]:
    """Which sessions are in each state, most urgent first, as the badge names them (the state of the most
    urgent of their own runs): each condition excludes the ones before it."""
    conditions: dict[StateName, Q] = {}
    before = Q()
    for name, condition in _first_match_conditions(cutoff).items():
        conditions[name] = condition & ~before if before else condition
        before = before | condition if before else condition
    return conditions


def _urgency(cutoff: datetime, yours: Q) -> Case:
    """A session's place in the list (states.urgency), in SQL: its state is the first condition it meets, as
    for the counts, and its move the one its row's pill shows (`yours`: the sessions whose move is yours, by
    _yours, the rule of the rows' tags). Where a state's place depends on whose move it is (blocked), each
    move has its own case."""
    whens = []
    for name, condition in _first_match_conditions(cutoff).items():
        usual = states.urgency(name, states.MOVES[name])
        if states.urgency(name, "yours") != usual:
            whens.append(When(condition & yours, then=Value(states.urgency(name, "yours"))))
        elif name == "running":  # yours only for a replaced branch's agent (friction62b 1): sorted as its pill reads
            whens.append(When(condition & yours, then=Value(states.urgency("superseded", "yours"))))
        whens.append(When(condition, then=Value(usual)))
    return Case(*whens, default=Value(states.urgency("running", "agents")), output_field=IntegerField())


def _first_match_conditions(cutoff: datetime) -> dict[StateName, Q]:
    """The states' conditions in the order they are tried: a session is in the first one it meets."""
    in_progress = Q(status=SessionStatus.IN_PROGRESS)
    waiting = Q(waiting_for_user=True)
    blocked_run = Exists(Run.objects.filter(session=OuterRef("pk"), parent_run__isnull=True, status=RunStatus.BLOCKED))
    return {
        "notes": Q(status=SessionStatus.NOTES),
        "needs_you": waiting,
        "blocked": Q(blocked_run),
        # Before the stall clock: a run no agent has touched since it came here is quiet, not stalled.
        "paused": paused.sessions_with_paused_run(),
        "stalled": in_progress & Q(updated_at__lt=cutoff),
        "running": in_progress,
        "done": Q(status=SessionStatus.COMPLETE),
        "canceled": Q(status=SessionStatus.CANCELED),
    }


@dataclass(frozen=True)
class Yours:
    """The sessions whose move is yours (states.move): which (a condition on sessions) and how many."""

    condition: Q
    count: int


def _without_runs_yours(cutoff: datetime) -> Q:
    """The sessions without runs that are a person's move: their row's tag reads their own state (needs you,
    stalled)."""
    return (
        Q(kind=SessionKind.WORKFLOW, status=SessionStatus.IN_PROGRESS)
        & (Q(waiting_for_user=True) | Q(updated_at__lt=cutoff))
        & ~Q(Exists(Run.objects.filter(session=OuterRef("pk"), parent_run__isnull=True)))
    )


def _yours(sessions: QuerySet[Session], cutoff: datetime, alone: int) -> Yours:
    """Which of `sessions` are a person's move, by the rule their rows' tags follow (session_move): exactly
    the rows whose move is yours. A session without runs is judged in SQL by its own state; the others that may
    be a person's move (an open run that waits for the user, is blocked or quiet, or paused: no agent touched
    it since it came here, paused.py; or has several branches, one perhaps replaced while its agent works) are
    read as their rows are (attention.of_sessions, kept by last_seq) and
    judged in Python: a blocked step is the agent's move until it has stopped, which only its refusals say.
    `alone`: how many sessions without runs are (counted with the states, _counts)."""
    open_runs = Run.objects.filter(
        session=OuterRef("pk"), parent_run__isnull=True, status__in=(RunStatus.IN_PROGRESS, RunStatus.BLOCKED)
    )
    may_be = Q(kind=SessionKind.WORKFLOW) & (
        Exists(open_runs.filter(Q(waits_for_user=True) | Q(status=RunStatus.BLOCKED) | Q(updated_at__lt=cutoff)))
        | paused.sessions_with_paused_run()
        # a branch replaced while its agent may still work: the row's pill is "Your move · Replaced" (friction62b 1)
        | Exists(open_runs.filter(branch_count__gt=1))
    )
    candidates = list(sessions.filter(may_be))
    where = attention.of_sessions(candidates, cutoff)
    mine = [s.pk for s in candidates if session_move(s, where.get(s.pk), cutoff) == "yours"]
    return Yours(condition=_without_runs_yours(cutoff) | Q(pk__in=mine), count=alone + len(mine))


def session_move(session: Session, where: Whereabouts | None, cutoff: datetime) -> states.Move:
    """Whose move a session's row says: its named run's (attention.chosen), else its own state's."""
    if where is not None:
        return where.move or states.move(where.state)  # type: ignore[return-value]
    shown = shown_status(session.status, session.updated_at, cutoff, session.waiting_for_user)
    return states.move(states.of_status(shown, session.waiting_for_user))


def state_moves(query: str, state: StateName) -> dict[states.Move, int]:
    """How many of the sessions in `state` that match `query` are each one's move, as their rows' pills say: the
    chips of a one-state filter whose rows are of two moves (states.SPLIT_FILTERS). Not for a settled state."""
    cutoff = stall_cutoff()
    matching = _search(visible_sessions().filter(ownership.visible()), query).filter(_state_conditions(cutoff)[state])
    yours = _yours(matching, cutoff, matching.filter(_without_runs_yours(cutoff)).count()).count
    return {"yours": yours, "agents": matching.count() - yours}


def move_counts(by_state: dict[str, int], yours: int) -> dict[states.Move, int]:
    """How many sessions are each one's move, from the count per state (SessionPage.state_counts) and of
    those yours (SessionPage.yours): nobody's are the settled states' (states.MOVES), the agent's the rest."""
    nobody = sum(n for name, n in by_state.items() if states.move(name) == "nobody")
    return {"yours": yours, "agents": sum(by_state.values()) - yours - nobody, "nobody": nobody}


def _move_condition(move: states.Move, yours: Q, cutoff: datetime) -> Q:
    """The sessions whose move is `move`, as their rows' pills say it: `yours` (_yours), the settled states'
    (nobody's), and the agent's: every other one."""
    conditions = _state_conditions(cutoff)
    nobody = Q()
    for name in states.ORDER:
        if states.MOVES[name] == "nobody" and name in conditions:
            nobody |= conditions[name]
    if move == "yours":
        return yours
    if move == "nobody":
        return nobody
    return ~yours & ~nobody


def _with_state(sessions: QuerySet[Session], state: StateName, cutoff: datetime) -> QuerySet[Session]:
    return sessions.filter(_state_conditions(cutoff)[state])


def _groups(items: list[SessionSummary], group: SessionGroup) -> list[SessionGroupHeading]:
    if group not in _GROUP_FIELDS:
        return []
    headings: list[SessionGroupHeading] = []
    for index, item in enumerate(items):
        branch = item.git_branch if group == "branch" else None
        if headings and (headings[-1].workspace_path, headings[-1].git_branch) == (item.workspace_path, branch):
            headings[-1].count += 1
            continue
        if branch is None:
            label = item.workspace_path or "(none)"
        else:
            label = " · ".join(part for part in (branch or "(none)", item.workspace_path) if part)
        headings.append(
            SessionGroupHeading(
                label=label,
                first_index=index,
                count=1,
                workspace_path=item.workspace_path,
                repository_name=PurePath(item.workspace_path).name if item.workspace_path else "",
                git_branch=branch,
            )
        )
    return headings


def any_repository() -> bool:
    """Whether any session a person may see recorded a repository: else grouping by one would put every
    session under "No repository recorded", so the list is not grouped unless asked (friction15a 9)."""
    return visible_sessions().filter(ownership.visible()).exclude(workspace_path="").exists()


def activity_version() -> str:
    """Changes whenever any session records an event: what the live sessions list polls."""
    newest = visible_sessions().order_by("-updated_at").values_list("updated_at", "last_seq").first()
    return "0" if newest is None else f"{newest[0].timestamp():.6f}:{newest[1]}"


# --- one session -------------------------------------------------------------------------------------


def get_session(session_id: str) -> Session:
    session = visible_sessions().filter(public_id=session_id[:40]).first()
    if session is None:
        raise not_found(
            "session", session_id, "Pick a session from the sessions list (/sessions/ or /api/v1/sessions)."
        )
    ownership.require_mine(session)
    return session


def run_status(run: Run, cutoff: datetime, halted: bool = False) -> tuple[str, states.StateName]:
    """A run's status as shown (stalled once quiet past `cutoff`, unless `halted`: no agent has touched it since
    it came here, so its status stays as stored) and its state in the chips' words: one rule for a run's card
    and for the list's "+1 run: … (running)"."""
    shown = run.status if halted else shown_status(run.status, run.updated_at, cutoff, run.waits_for_user)
    return shown, states.of_status(shown, run.waits_for_user, halted)


def run_summary(
    run: Run,
    session_id: str,
    cutoff: datetime,
    delegated_by: str | None = None,
    status_summary: str | None = None,
    halted: bool = False,
) -> RunSummary:
    """`halted`: no agent has touched the run since it came here (paused.py): its state is paused, and the
    stall clock does not apply (its status stays as stored: nobody had it to stall)."""
    shown, state = run_status(run, cutoff, halted)
    summary = RunSummary(
        run_id=run.public_id,
        session_id=session_id,
        workflow_id=run.workflow_id,
        workflow_name=str(compiled_workflow(run.pinned_id).get("name") or run.workflow_id),
        workflow_hash=run.pinned_id,
        status=shown,
        state=state,
        node_count=run.node_count,
        branch_count=run.branch_count,
        delegated_by=delegated_by,
        created_at=run.created_at,
        updated_at=run.updated_at,
        status_summary=status_summary,
    )
    summary._client_name, summary._imported_at = run.client_name, run.imported_at
    return summary


def _checkpoint_titles(nodes: list[Node]) -> dict[int, str]:
    """The step each checkpointed node was at, its title as the agent saw it (loop variables filled in):
    rendered again from the nodes' states, per run's pinned workflow."""
    by_workflow: dict[str, list[int]] = {}
    for node in nodes:
        if not node.is_complete:
            by_workflow.setdefault(node.run.pinned_id, []).append(node.pk)
    titles: dict[int, str] = {}
    for pinned, pks in by_workflow.items():
        titles |= {pk: text.title for pk, text in step_text.as_seen(compiled_workflow(pinned), pks).items()}
    return titles


def session_trees(
    session_id: str, known: dict[int, branches.RunBranches] | None = None
) -> dict[int, branches.RunBranches]:
    """The branches of every run of the session (by run pk), `known` ones not read again: the session page
    reads them once and hands them to session_detail and to the timeline's marks (timeline_marks.py)."""
    runs = list(Run.objects.filter(session=get_session(session_id)))
    known = known or {}
    return {**branches.read_many([run for run in runs if run.pk not in known]), **known}


def session_detail(session_id: str, known: dict[int, branches.RunBranches] | None = None) -> SessionDetail:
    """The session with its runs. `known` are branches already read (by run pk: the page's shown run), not
    read again."""
    session = get_session(session_id)
    cutoff = stall_cutoff()
    read = Run.objects.filter(session=session).select_related("parent_run").order_by("created_at", "pk")
    runs = list(paused.with_import_marks(read))
    known = known or {}
    trees = {**branches.read_many([run for run in runs if run.pk not in known]), **known}
    told = outcomes.of_runs(trees.values())
    halted = paused.of_runs(runs, trees)
    summaries = [
        run_summary(
            run,
            session.public_id,
            cutoff,
            run.parent_run.public_id if run.parent_run else None,
            run_words(run, told[run.pk], cutoff, run.pk in halted),
            run.pk in halted,
        )
        for run in runs
    ]
    made = list(
        Checkpoint.objects.filter(session=session)
        .select_related("node__run")
        .order_by("-created_at", "-pk")[:CHECKPOINTS_SHOWN]
    )
    titles = _checkpoint_titles([c.node for c in made if c.node is not None])
    checkpoints = [
        CheckpointEntry(
            run_id=c.node.run.public_id if c.node else None,
            node_id=str(c.node.public_id) if c.node else None,
            step_id=(c.node.pending_step_id or None) if c.node else None,
            notes_markdown=c.notes_markdown,
            artifacts=c.artifacts,
            created_at=c.created_at,
            step_title=titles.get(c.node.pk) if c.node else None,
            workflow_name=str(compiled_workflow(c.node.run.pinned_id).get("name") or c.node.run.workflow_id)
            if c.node
            else None,
        )
        for c in made
    ]
    checkpoints.reverse()  # the newest ones, shown oldest first
    own = [run for run in runs if run.parent_run_id is None]
    found = attention.places(own, trees, halted=halted)
    where = attention.chosen(found, cutoff)
    if session.kind != SessionKind.WORKFLOW:
        where = attention.NOTES_ONLY
    return SessionDetail(
        session=summary(session, cutoff, _session_words(runs, trees, cutoff).get(session.pk), where),
        preferences=session.preferences,
        mode=mode_of(session.preferences),
        runs=summaries,
        checkpoints=checkpoints,
        timeline=_timeline(session, runs),
        last_seq=session.last_seq,
        people=people.people(session.pk),
        run_lines=attention.each(found, cutoff) if session.kind == SessionKind.WORKFLOW else [],
        mode_applies=not own or any(run.status in (RunStatus.IN_PROGRESS, RunStatus.BLOCKED) for run in own),
    )


def _timeline(session: Session, runs: list[Run]) -> list[TimelineLane]:
    """A lane per run: when each of its nodes was made, placed on the session's time span."""
    times: dict[int, list[datetime]] = {run.pk: [] for run in runs}
    for run_pk, created_at in Node.objects.filter(run__session=session).values_list("run_id", "created_at"):
        times.setdefault(run_pk, []).append(created_at)
    every = [t for moments in times.values() for t in moments]
    if not every:
        return []
    start, end = min(every), max(every)
    span = (end - start).total_seconds() or 1.0
    return [
        TimelineLane(
            run_id=run.public_id,
            label=run.workflow_id,
            points=sorted(round((t - start).total_seconds() / span, 4) for t in times.get(run.pk, [])),
            first_at=min(times[run.pk], default=None),
            last_at=max(times[run.pk], default=None),
        )
        for run in runs
    ]


def session_events(session_id: str, *, after: int = 0, limit: int = 100) -> EventPage:
    """The session's event log, oldest first, a page at a time (keyset paging on seq)."""
    session = get_session(session_id)
    limit = max(1, min(limit, EVENTS_PAGE_MAX))
    rows = list(Event.objects.filter(session=session, seq__gt=max(after, 0)).order_by("seq")[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return EventPage(
        session_id=session.public_id,
        items=[
            EventEntry(seq=e.seq, kind=e.kind, data=e.data, created_at=e.created_at, actor=e.actor, door=e.door)
            for e in rows
        ],
        next_after=rows[-1].seq if more and rows else None,
    )
