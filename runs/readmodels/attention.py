"""Whose move it is: where each session and run stands, in a few words, and a panel for every state a
person may have to act on.

The sessions list says, per row, where the session is ("step 4 of 9, waiting for your confirmation",
"step 2 of 9, the agent did not attach the list of changed files", "step 3 of 9, stalled since
14:02 UTC", "done", "canceled") and names the run in that state: of a session's own runs, the one that
needs someone most (waiting for the user, then blocked, then stalled, then working), else the newest.

A run's page has a panel beside the blocked one (blocked.py) for each other state to act on:
- stalled: in progress, no step for WORKRAIL_STALL_MINUTES, and not waiting for the user: since when,
  the stateToken that resumes the agent there and the sentence to give it;
- waiting for the user: the step asks for the user's confirmation (runs/store/waiting.py): what it asks;
- canceled: when, by whom, where it stopped, and that its tokens no longer answer;
- left behind: an unfinished branch that is not the newest (the agent rewound, or a branch was started
  by hand): where it stopped, and the stateToken and sentence that take an agent back there.

"Stalled" is the dashboard's clock-relative view (overview.shown_status): it is applied when a page is
read, never stored; everything else here comes from the stored projections (branches.py, outcomes.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol

from django.conf import settings
from django.utils import timezone

from runs.contract.dashboard import (
    AttentionPanel,
    BlockedStep,
    BranchOutcomeEntry,
    PanelName,
    PlaceName,
    RunSummary,
    StateName,
    StepPlace,
    Timed,
    Whereabouts,
)
from runs.models import Node, PinnedWorkflow, Run, RunStatus, Session, SessionKind
from runs.readmodels import (
    actions,
    agent_message,
    blocked,
    branches,
    listing,
    outcomes,
    paused,
    people,
    recap,
    states,
    step_places,
    step_text,
    time_axis,
)
from runs.readmodels.artifact_names import artifact_name
from runs.store import tokens
from runs.store.pinned import compiled_workflow, steps_by_id
from runs.store.tokens import TokenKind
from workflows_app.prose import what_to_confirm

# What is wrong with a blocked step, in plain words, by the refusal's issue code ({name}: the artifact as
# people call it, artifact_names.py). The state's badge stands beside them: they do not say "refused".
_LACKS = {
    "ARTIFACT_MISSING": "the agent did not attach {name}",
    "ARTIFACT_INVALID": "{name} the agent attached is not valid",
    "NOTES_REQUIRED": "the agent wrote no notes",
    "PLACEHOLDER_UNCHANGED": "the agent left blanks unfilled",
    "VALIDATION_FAILED": "the agent's answer failed the step's checks",
    "OUTPUT_INVALID": "the agent's answer has the wrong shape",
    "ASSESSMENT_MISSING": "the agent gave no assessment",
    "ASSESSMENT_INVALID": "the agent's assessment is not valid",
    "ASSESSMENT_FOLLOWUP_REQUIRED": "the follow-up its assessment asks for is due",
    "LOOP_DECISION_MISSING": "the agent did not decide whether to go round the loop again",
    "LOOP_CONTROL_UNMATCHED": "the agent's loop decision names another loop",
}
# Which run of a session the list names: the one that needs someone most, then the newest.
_URGENCY: dict[PlaceName, int] = {"waiting_for_user": 0, "blocked": 1, "paused": 2, "stalled": 3, "working": 4}
# Beside a "Paused" badge: how the run came here without an agent (paused.py).
CAME: dict[paused.How, str] = {"imported": "imported", "by_hand": "started by hand"}
# Its pill says "No agent yet" (states.LABELS, friction62a 1): the line says how it came, not that again.
PAUSED_WORDS: dict[paused.How, str] = dict(CAME)
WAITING_WORDS = "waiting for your confirmation"
# The same, around the moment it came, for the run card's line (friction18a 4: "no agent has had it for under a
# minute" read backwards): "imported under a minute ago".
PAUSED_TIMED: dict[paused.How, Timed] = {how: Timed(f"{came} ", "", "ago") for how, came in CAME.items()}


# Whose chat, where no agent has the run (imported, started by hand): a new one, as a branch left behind beside a
# working one says it (friction28b 1: one word for it on every such panel).
_NOBODYS = "a new"


def paste_words(into: str, *, lead: bool = False) -> str:
    """What to do with the message for the agent, as every panel says it, matching what is on screen: the
    button copies it (its text is folded under it, only for checking), the person pastes it. `into`: whose
    chat ("a new"); `lead`: it opens a sentence."""
    return f"{'Copy' if lead else 'copy'} the message and paste it into {into} chat"


def stamp(moment: datetime, now: datetime | None = None) -> str:
    """A moment in a few characters: "14:02 UTC" today, else "2026-11-27 14:02 UTC"."""
    moment = moment.astimezone(UTC)
    today = (now or timezone.now()).astimezone(UTC).date()
    return moment.strftime("%H:%M UTC" if moment.date() == today else "%Y-%m-%d %H:%M UTC")


def said_when(moment: datetime, form: str, now: datetime | None = None) -> str:
    """A moment in plain words by the dashboard's one time language (Timed's forms): "for 45 min", "5 min
    ago" (the day and the clock past a day), "in 28 min", or the day and the clock; what a program reads in
    `words` and `title`, and what a page shows before its script says it in the reader's zone."""
    if form == "for":
        return time_axis.lasting(moment, now)
    if form == "in":
        return time_axis.until(moment, now)
    if form == "ago":
        return time_axis.ago(moment, now or timezone.now()) or stamp(moment, now)
    return stamp(moment, now)


def blocked_words(entry: BlockedStep) -> str:
    """What holds a blocked step, in a few plain words beside its state's badge: "the agent did not attach
    the list of changed files"."""
    if entry.whose_move == "user":
        return "waiting for something only you can give"
    if entry.whose_move == "delegations":
        return "waiting for its delegated runs"
    name = artifact_name(entry.expected_artifact.kind if entry.expected_artifact else "")
    lacks = [_LACKS[issue.code].format(name=name) for issue in entry.issues if issue.code in _LACKS]
    said = list(dict.fromkeys(lacks))
    if not said:
        return "the agent's answer was refused"
    return " and ".join(said) if len(said) <= 2 else ", ".join(said[:-1]) + " and " + said[-1]


# --- where a run stands, without the clock ------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """Where one run stands, as stored: the clock (stalled or not) is applied when a page is read."""

    run_id: str
    run_name: str
    number: int  # among the session's own runs
    status: str  # the run's stored status
    waits_for_user: bool
    step: StepPlace | None  # where its pending step sits in the outline; None when not known
    step_title: str  # its pending step's title ("" when none is pending)
    blocked: str  # blocked_words, "" unless blocked
    last_activity: datetime
    since: datetime
    paused: paused.Paused | None = None  # no agent has touched it since it came here (imported, started by hand)
    held_by: str = "agent"  # a blocked step's BlockedStep.whose_move: who must act for it to go on
    last_refused_at: datetime | None = None  # a blocked step's newest refusal: the agent's last try
    branch: int = 0  # its newest branch's number: the run page's panel for it is "{place}-{branch}"
    branches: int = 1  # how many branches it has (Run.branch_count)
    # The branches a branch started by hand set aside, with their moments (outcomes.set_aside_moments): the
    # clock applied, the replaced ones, whose agents the person is to tell to stop (Whereabouts.also).
    set_aside: tuple[tuple[int, datetime], ...] = ()

    def shown(self, cutoff: datetime) -> Shown:
        """The place, its words and since when, with the clock applied."""
        step = step_places.named(self.step_title, self.step)
        lead = f"{step} · " if step else ""
        # Beside a "Done" or "Canceled" badge the line says what the badge does not: when, or where.
        if self.status == RunStatus.COMPLETE:
            finished = said_when(self.last_activity, "ago")
            return Shown("completed", f"finished {finished}", self.last_activity, "finished ", "ago")
        if self.status == RunStatus.CANCELED:
            if step:
                return Shown("canceled", f"canceled at {step}", self.last_activity)
            # "canceled 28 Nov, 14:02", as "finished 28 Nov, 14:02": "at" is for a step ("canceled at Review").
            canceled = said_when(self.last_activity, "ago")
            return Shown("canceled", f"canceled {canceled}", self.last_activity, "canceled ", "ago")
        if self.status == RunStatus.BLOCKED and self.blocked:
            return Shown("blocked", lead + self.blocked, self.since, reason=self.blocked if step else "", head=step)
        if self.waits_for_user:
            return Shown("waiting_for_user", lead + WAITING_WORDS, self.since)
        if self.paused is not None:  # before the clock: nobody stalled, nobody had it
            return Shown("paused", lead + PAUSED_WORDS[self.paused.how], self.paused.since)
        if self.last_activity < cutoff:
            since = max(self.last_activity, self.since)  # never before its newest step was given
            stalled = said_when(since, "for")
            return Shown("stalled", f"{lead}stalled {stalled}", since, f"{lead}stalled ", "for")
        # Beside an "Agent's move · Working" pill: where it is, not "working" again.
        return Shown("working", step or "running", self.since)


@dataclass(frozen=True)
class Shown:
    """Where a run stands once the clock is applied: the place, its words and since when."""

    name: PlaceName
    words: str
    since: datetime
    # When the words end with `since` ("stalled for 45 min"): the words before it, for a page to print the
    # moment itself, and the form it says it in (Timed).
    before: str | None = None
    form: str = "time"
    # A blocked step's reason, and the words before it (its step): a list row says the reason on a line of its
    # own (friction17b 17). "" when the words hold none.
    reason: str = ""
    head: str = ""


def places(
    runs: list[Run],
    trees: dict[int, branches.RunBranches],
    names: dict[str, str] | None = None,
    at: dict[int, StepPlace] | None = None,
    titles: dict[int, str] | None = None,
    halted: dict[int, paused.Paused] | None = None,
) -> list[Place]:
    """Where each of `runs` (one session's own runs, oldest first) stands; `trees` are the branches of
    those still open, by run pk (the others need none); `names` the workflows' names by hash (read when
    not given); `at` the places of their nodes, by pk (read when not given: one query). One query for
    the refusals of blocked branches (none when nothing is blocked)."""
    refused = blocked.refusals_of(trees[run.pk] for run in runs if run.pk in trees)
    names = names if names is not None else workflow_names(runs)
    newest_of = {run.pk: _newest(trees.get(run.pk)) for run in runs}
    tips = {b.tip: run for run in runs if (b := newest_of[run.pk]) is not None}
    if at is None:
        at = step_places.of_nodes(tips)
    if titles is None:
        titles = _titles(tips, trees)
    if halted is None:
        halted = paused.of_runs(runs, trees)
    found = []
    for number, run in enumerate(runs, start=1):
        tree = trees.get(run.pk)
        newest = newest_of[run.pk]
        step: StepPlace | None = None
        title, words, since = "", "", run.updated_at
        held_by, last_refused = "agent", None
        if tree is not None and newest is not None:
            step = at.get(newest.tip)
            tip = tree.nodes[newest.tip]
            since = tip.created_at
            title = titles.get(newest.tip) or _as_written(run, tip.step_id)
            refusal = refused.get((run.pk, newest.number))
            if refusal is not None:
                entry = blocked.as_entry(refusal)
                words, since = blocked_words(entry), refusal.since
                held_by, last_refused = entry.whose_move, entry.last_refused_at
        if tree is not None:
            refusals = {n: r.since for (pk, n), r in refused.items() if pk == run.pk}
            set_aside = outcomes.set_aside_moments(tree, refusals)
        else:
            set_aside = ()
        found.append(
            Place(
                run_id=run.public_id,
                run_name=names.get(run.pinned_id) or run.workflow_id,
                number=number,
                status=run.status,
                waits_for_user=run.waits_for_user,
                step=step,
                step_title=title,
                blocked=words,
                last_activity=run.updated_at,
                since=since,
                paused=halted.get(run.pk),
                held_by=held_by,
                last_refused_at=last_refused,
                branch=newest.number if newest is not None else 0,
                branches=run.branch_count,
                set_aside=set_aside,
            )
        )
    return found


def _as_written(run: Run, step_id: str) -> str:
    return step_text.as_written(steps_by_id(run.pinned_id).get(step_id), step_id).title


def _titles(tips: dict[int, Run], trees: dict[int, branches.RunBranches]) -> dict[int, str]:
    """The titles of the newest steps `tips` (node pk: run) stand at, as the agent was given them, where the
    workflow writes them with a placeholder ("Review {{area}}"): one query for them all, whatever they are."""
    written = {pk: _as_written_raw(run, trees[run.pk].nodes[pk].step_id) for pk, run in tips.items()}
    return step_text.titles_seen(tips, [pk for pk in tips if "{{" in written[pk]])


def _as_written_raw(run: Run, step_id: str) -> str:
    """A step's title as the workflow writes it, its placeholders as they are."""
    step = steps_by_id(run.pinned_id).get(step_id)
    return str(step.get("title") or "") if step is not None else ""


def _newest(tree: branches.RunBranches | None) -> branches.Branch | None:
    """The newest branch of a run still open (where it stands), unless it completed."""
    newest = next((b for b in tree.branches if b.is_newest), None) if tree is not None else None
    return newest if newest is not None and newest.status != "complete" else None


def workflow_names(runs: list[Run]) -> dict[str, str]:
    """The workflow name of each pinned workflow of `runs`, in one query."""
    hashes = {run.pinned_id for run in runs}
    if not hashes:
        return {}
    rows = PinnedWorkflow.objects.filter(workflow_hash__in=hashes).values_list("workflow_hash", "compiled__name")
    return {workflow_hash: str(name) for workflow_hash, name in rows if name}


def chosen(found: Iterable[Place], cutoff: datetime) -> Whereabouts | None:
    """The run a session's row names, and where it is."""
    shown = [(place, place.shown(cutoff)) for place in found]
    if not shown:
        return None
    place, said = min(shown, key=lambda s: (_URGENCY.get(s[1].name, 9), -s[0].number))
    return _whereabouts(place, said, cutoff)


def each(found: Iterable[Place], cutoff: datetime) -> list[Whereabouts]:
    """Where each run is, in the order given: a session's head says one short line per run."""
    return [_whereabouts(place, place.shown(cutoff), cutoff) for place in found]


def yours_among(runs: Iterable[RunSummary], lines: list[Whereabouts]) -> int:
    """How many of a session's runs wait on the person: each run's move as its card's pill says it (its
    where-line's move, the clock applied, else its state's). Only the run shown has its panel open, so the runs
    column's heading counts them (friction19b 14: both runs paused, one panel, nothing said "2 need you")."""
    moves = {line.run_id: line.move or states.move(line.state) for line in lines}
    return sum(1 for run in runs if moves.get(run.run_id, states.move(run.state)) == "yours")


def _whereabouts(place: Place, said: Shown, cutoff: datetime) -> Whereabouts:
    name = said.name
    state = states.of_place(name)
    where = Whereabouts(
        place=name,
        words=said.words,
        run_id=place.run_id,
        run_name=place.run_name,
        run_number=place.number,
        since=said.since,
        state=state,
    )
    where._timed = Timed(said.before, "", said.form) if said.before is not None else None
    where._place_words = step_places.full_words(place.step)
    where._brief = place.step.brief if place.step is not None and name not in ("completed", "canceled") else ""
    where._branches = place.branches
    where._branch = place.branch if place.branches > 1 else 0
    where._reason = (said.head, said.reason) if said.reason else ("", "")
    if name == "blocked":  # as the run page's blocked panel says it (move_of_blocked)
        last_try = place.last_refused_at or place.since
        where._move = blocked_move(place.held_by, last_try, cutoff)
        where._held_by_you = place.held_by == "user"
        if place.held_by == "agent":  # who acts, and when that changes, as the blocked panel says it
            where._then = _blocked_then(where._move, last_try)
    else:
        where._move = states.move(state)
    if where._move != "yours":
        # friction60a 7: "Agent's move · Working" over a branch row "Your move · Replaced": the run's line, and
        # the sessions list's row, say the person's move too, from the rule that draws that row.
        replaced = outcomes.superseded_among(place.set_aside, cutoff)
        where._also = stop_words(replaced)
        if where._also:
            where._replaced = tuple(replaced)
            # friction62b 1: the run's one pill says the person's move ("Your move · Replaced": the template tag
            # chip_state), and its filter counts it, the branch at work a plain line beside it.
            where._move = "yours"
    if name == "paused" and place.paused is not None:
        where._came = PAUSED_TIMED[place.paused.how]
        where._paused_how = place.paused.how
    if place.branch and name in _PANELS:
        where._panel = f"{name}-{place.branch}"
    return where


# The places whose run page has a panel saying what to do (its id: the place, then the branch's number).
_PANELS: frozenset[PlaceName] = frozenset({"blocked", "paused", "stalled", "waiting_for_user"})
# friction16a 7: "yours from Nov 30, 12:25 AM" read as cryptic; the row says the same moment as a condition
# (friction18a 11: "your move in 29 min if the agent has not resent it" was hard to parse).
# friction25b 14: "has not resent it" left "it" vague in a row; it names the refused step.
BECOMES_YOURS = "becomes your move "
# friction61b 3, 62a 1: what is known, not whether the agent retries ("Retrying" beside "if it does not retry").
IF_NO_RETRY = " if no corrected answer comes"


def _blocked_then(move: states.Move, last_try: datetime) -> tuple[str, Timed | None, datetime | None]:
    """What a sessions-list row adds after a blocked step's reason (friction15b 5): while the agent's move,
    when it becomes yours (the words, the words around the moment, the moment); once yours, why: how long the
    agent has not resent it. The same moments as the blocked panel's (hand_over_at, quiet_minutes)."""
    if move == "yours":
        return f"the agent has not resent the refused step for {quiet_minutes(last_try)} min", None, None
    at = hand_over_at(last_try)
    # friction17a 4: "your move in 28 min", not a clock in a list that is otherwise relative.
    around = Timed(BECOMES_YOURS, IF_NO_RETRY, "in")
    return f"{around.before}{said_when(at, 'in')}{around.after}", around, at


def hand_over_at(last_try: datetime) -> datetime:
    """When a blocked step the agent has not resent becomes the person's move (blocked_move's stall window)."""
    return last_try + timedelta(minutes=settings.WORKRAIL_STALL_MINUTES)


def quiet_minutes(last_try: datetime, now: datetime | None = None) -> int:
    """How many whole minutes since the agent's last try at a blocked step."""
    return int(((now or timezone.now()) - last_try).total_seconds() // 60)


# The places of a page's sessions, by (session id, last_seq): every recorded event moves last_seq, so an
# entry is never stale (the clock is applied on reading). Bounded, oldest dropped first.
_KEPT: OrderedDict[tuple[str, int], list[Place]] = OrderedDict()
KEPT = 4096
NOTES_ONLY = Whereabouts(
    place="notes", words="notes only", run_id=None, run_name="", run_number=0, since=None, state="notes"
)


def of_sessions(sessions: list[Session], cutoff: datetime) -> dict[int, Whereabouts]:
    """Where each of `sessions` is (by session pk): a fixed number of queries for the page (none for the
    sessions already read at their last_seq)."""
    missing = [s for s in sessions if (s.public_id, s.last_seq) not in _KEPT and s.kind == SessionKind.WORKFLOW]
    if missing:
        read = Run.objects.filter(session__in=missing, parent_run__isnull=True).order_by("created_at", "pk")
        runs = list(paused.with_import_marks(read))
        still_open = [run for run in runs if run.status in (RunStatus.IN_PROGRESS, RunStatus.BLOCKED)]
        trees = branches.read_many(still_open)
        names = workflow_names(runs)
        tips = {b.tip: run for run in runs if (b := _newest(trees.get(run.pk))) is not None}
        at = step_places.of_nodes(tips)  # one query for the whole page
        titles = _titles(tips, trees)  # and one for their steps' titles, where they hold placeholders
        halted = paused.of_runs(runs, trees)  # no query: read with the runs (with_import_marks)
        by_session: dict[int, list[Run]] = {}
        for run in runs:
            by_session.setdefault(run.session_id, []).append(run)
        for session in missing:
            _KEPT[(session.public_id, session.last_seq)] = places(
                by_session.get(session.pk, []), trees, names, at, titles, halted
            )
        while len(_KEPT) > KEPT:
            _KEPT.popitem(last=False)
    found: dict[int, Whereabouts] = {}
    for session in sessions:
        if session.kind != SessionKind.WORKFLOW:
            found[session.pk] = NOTES_ONLY
            continue
        where = chosen(_KEPT.get((session.public_id, session.last_seq), []), cutoff)
        if where is not None:
            found[session.pk] = where
    return found


# --- the panels of a run's page -------------------------------------------------------------------------


def _state_token(outcome: BranchOutcomeEntry) -> str:
    return tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, int(outcome.tip_node_id))


def _place(state: RunState, outcome: BranchOutcomeEntry) -> StepPlace | None:
    pk = state.tree.by_public_id(int(outcome.tip_node_id))
    return state.places.get(pk) if pk is not None else None


def _where(outcome: BranchOutcomeEntry, step: StepPlace | None) -> str:
    """ "Review api · step 4 of 9", as the dashboard names a step (step_places.named)."""
    return step_places.named(outcome.step_title or outcome.step_id or "", step) or "its step"


def _said_to_agent(outcome: BranchOutcomeEntry, step: StepPlace | None) -> str:
    """ "step 4 of 9 (Review api)", as the message for the agent names the step (agent_message.where)."""
    return agent_message.where(step, outcome.step_title or outcome.step_id or "")


def branch_line(outcome: BranchOutcomeEntry, step: StepPlace | None, last_step: str = "") -> str:
    """A branch in the dashboard's words beside its state's badge, which says how it stands: "Branch 2 · step
    4 of 9 (Review api)", "Branch 1 · Request changes, 1 critical finding". A branch left behind says no more
    than where it stopped: its badge names its state, in the one word the dashboard has for it. A finished
    branch with no verdict names the step it finished with (`last_step`), as every other branch names one."""
    if outcome.status == "complete":
        said = ", ".join(
            part for part in (outcome.verdict or "", outcomes.findings_words(outcome.findings, False)) if part
        )
        said = said or (f"finished with {last_step}" if last_step else "")
        return f"Branch {outcome.number}" + (f" · {said}" if said else "")
    line = f"Branch {outcome.number} · {_where(outcome, step)}"
    if outcome.blocked is not None:
        line += " · " + blocked_words(outcome.blocked)
    if outcome.state == "superseded":
        line += f" · {SUPERSEDED_WORDS}"
    return line


# A replaced (superseded) branch's line, after where it stands (its list prints how long ago it last moved): what
# its neutral pill leaves to the person (states.MEANINGS says it in full; friction22a B9).
SUPERSEDED_WORDS = "its agent may still be working: tell it in its chat to stop"


def stop_words(replaced: list[int]) -> str:
    """What the person is to do about the replaced branches `replaced`, after a line whose pill says the
    agent's move: "tell branch 1's agent to stop", "tell the agents of branches 1 and 3 to stop"; "" for none."""
    if not replaced:
        return ""
    if len(replaced) == 1:
        return f"tell branch {replaced[0]}'s agent to stop"
    return f"tell the agents of branches {listing.joined([str(n) for n in replaced])} to stop"


@dataclass(frozen=True)
class RunState:
    """What a run page needs to choose its panels: the run, its branches, their outcomes, the shown one."""

    run: Run
    tree: branches.RunBranches
    told: list[BranchOutcomeEntry]
    shown: BranchOutcomeEntry | None
    stalled: bool  # the run's shown status (overview.shown_status)
    canceled_by: str
    places: dict[int, StepPlace] = field(default_factory=dict)  # by node pk (step_places.of_run)
    paused: paused.Paused | None = None  # no agent has touched the run since it came here (paused.py)


def panels(state: RunState) -> list[AttentionPanel]:
    """The shown branch's panel (stalled, waiting for the user, canceled or left behind), then one per
    other branch left behind while the run goes on. Once the run is finished, those branches are history:
    the run page lists them as left behind, with no "Resume…" up front (their node pages still offer it)."""
    found = []
    shown = state.shown
    if shown is not None:
        panel = _panel_of_shown(state, shown)
        if panel is not None:
            found.append(panel)
    if not is_finished(state.run):
        found.extend(_left_behind(state, o) for o in state.told if o.left_behind and (shown is None or o is not shown))
    return found


def is_finished(run: Run) -> bool:
    """Whether a run is over for good (done or canceled): no branch of it is pending work any more."""
    return run.status in (RunStatus.COMPLETE, RunStatus.CANCELED)


def _panel_of_shown(state: RunState, shown: BranchOutcomeEntry) -> AttentionPanel | None:
    if shown.left_behind:
        return _left_behind(state, shown)
    if not shown.is_newest or shown.status == "blocked":
        return None
    if shown.status == "canceled":
        return _canceled(state, shown)
    if shown.status != "open":
        return None
    if state.paused is not None:
        return _paused(state, shown, state.paused)
    if shown.awaiting_agent:
        return None
    if state.run.waits_for_user:
        return _waiting(state, shown)
    if state.stalled:
        return _stalled(state, shown)
    return None


@dataclass(frozen=True)
class _Title:
    """A panel's title: the words `before` and `after` the moment `at`, which the page prints in the reader's
    own time zone (AttentionPanel.timed); without a moment, `before` alone."""

    before: str
    at: datetime | None = None
    after: str = ""
    form: str = "time"  # how the moment is said (Timed)


def _panel(
    state: RunState,
    outcome: BranchOutcomeEntry,
    kind: PanelName,
    badge: StateName,
    title: _Title,
    *,
    next_move: str,
    for_you: str,
    since: datetime,
    resumes: bool = False,
    asks: str | None = None,
    to_approve: recap.PlacedEntry | None = None,
) -> AttentionPanel:
    """Every panel of a branch: its state and title, what to do and why, where its step is; for a panel whose
    move is to resume an agent there (`resumes`: stalled, paused, left behind), the stateToken and the
    message to give it; for a step waiting for the user, what it asks and the notes it asks them to approve."""
    step = _place(state, outcome)
    token = _state_token(outcome) if resumes else None
    panel = AttentionPanel(
        kind=kind,
        state=badge,
        branch=outcome.number,
        title=f"{title.before}{said_when(title.at, title.form)}{title.after}" if title.at else title.before,
        next_move=next_move,
        for_you=for_you,
        step=step,
        step_title=outcome.step_title or "",
        since=since,
        node_id=outcome.tip_node_id,
        state_token=token,
        sentence=agent_message.text(token, _said_to_agent(outcome, step)) if token else None,
        asks=asks,
        to_approve=to_approve.entry["notesMarkdown"] if to_approve else None,
        to_approve_from=to_approve.entry["title"] if to_approve else None,
    )
    if to_approve:
        panel._to_approve_node = str(state.tree.public(to_approve.node_pk))
    if title.at:
        panel._timed = Timed(title.before, title.after, title.form)
    return panel


# What the stalled panel asks: a check the person can make, in the agent's chat, before the message (friction24a
# 13: "If the agent has stopped, ..." asked them to judge what the dashboard cannot see). Which chat takes it, the
# same or a new one, is the line under the button's, said once (friction28b 1: the panel said it twice).
STALLED_NEXT = "Check the agent's chat first: if it is idle or gone, copy the message."


class _RunTimes(Protocol):
    @property
    def updated_at(self) -> datetime: ...
    @property
    def created_at(self) -> datetime: ...


def stalled_since(run: _RunTimes, step_given: datetime) -> datetime:
    """Since when a stalled step has been quiet: the run's last thing recorded, never before the run started,
    nor before the step was given. The run page's panel and the step's page say the same moment."""
    return max(run.updated_at, run.created_at, step_given)


def _stalled(state: RunState, shown: BranchOutcomeEntry) -> AttentionPanel:
    since = stalled_since(state.run, shown.at)
    quiet = int((timezone.now() - since).total_seconds() // 60)
    return _panel(
        state,
        shown,
        "stalled",
        "stalled",
        _Title(f"{states.label('stalled')} ", since, f": {actions.verb('resume')} if it stopped", "for"),
        next_move=STALLED_NEXT,
        for_you=(
            f"No step has been recorded for {quiet} minutes (a run is called stalled after "
            f"{settings.WORKRAIL_STALL_MINUTES}), and the step does not wait for you: the agent may have stopped, "
            "lost its context, or still be at work on something long."
        ),
        since=since,
        resumes=True,
    )


# What the paused panel says of how the run came here without an agent (paused.py), and why nobody has it.
_CAME: dict[paused.How, tuple[str, str]] = {
    "imported": (
        "imported ",
        "This session was imported from another machine or store: the agent that held it is not connected here, "
        "so nothing runs until you hand the run to one.",
    ),
    "by_hand": (
        "started by hand ",
        "A person started this branch by hand from the dashboard and nobody has given its call to an agent yet, "
        "so nothing runs until you hand it to one.",
    ),
}


def _paused(state: RunState, shown: BranchOutcomeEntry, halted: paused.Paused) -> AttentionPanel:
    how, why = _CAME[halted.how]
    panel = _panel(
        state,
        shown,
        "paused",
        "paused",
        _Title(f"{states.label('paused')}: {how}", halted.since, "", "ago"),
        next_move=_paused_move(state, halted),
        for_you=(
            f"{why} Once an agent carries on, the run reads {states.label('running')} again. A paused run never "
            f"turns {states.label('stalled')}: nobody had it."
        ),
        since=halted.since,
        resumes=True,
    )
    panel._new_chat = True  # nobody has it: "an agent's chat", not the one that started it
    return panel


def start_order(runs: list[RunSummary], lines: list[Whereabouts]) -> list[RunSummary]:
    """Which of a session's imported runs that no agent has yet (paused.py) to start first, when there are several
    (friction64: the panels said nothing of it): the run that last moved on the machine it came from first (its
    updated_at, which an import keeps from the bundle's events), the session's run order between equals. It is the
    order the product already keeps for a new chat: resume_session offers the most recently updated run first
    (runs/execution/resume.py), the one the agent was on when the session was exported. [] for fewer than two."""
    imported = {line.run_id for line in lines if line.place == "paused" and line.paused_how == "imported"}
    found = [run for run in runs if run.run_id in imported]
    return sorted(found, key=lambda run: run.updated_at, reverse=True) if len(found) > 1 else []


def start_order_words(runs: list[RunSummary], order: list[RunSummary], shown: str) -> str:
    """The shown paused run's line of that order: "2 runs here have no agent yet: start them in the order they
    last moved before the import, this run first, then Risk-Scaled Merge Request Review (run 1)."; "" where the
    shown run is not among them."""
    if shown not in {run.run_id for run in order}:
        return ""
    number = {run.run_id: n for n, run in enumerate(runs, 1)}
    names = ["this run" if run.run_id == shown else f"{run.workflow_name} (run {number[run.run_id]})" for run in order]
    said = f"{names[0]} first, then " + ", then ".join(names[1:])
    return (
        f"{len(order)} runs here have no agent yet: start them in the order they last moved before the import, {said}."
    )


def _paused_move(state: RunState, halted: paused.Paused) -> str:
    """What to do for a paused branch: paste the message into a new chat; for a branch started by hand that
    replaced branches whose agents may still be at work, first tell those to stop, in the order the step's
    hand-over page numbers them (friction60b 4: the run page said only "a new chat" where the hand-over said to
    stop branch 1's agent first, then paste into that chat or a new one)."""
    replaced = sorted(o.number for o in state.told if o.state == "superseded") if halted.how == "by_hand" else []
    if not replaced:
        return f"{paste_words(_NOBODYS, lead=True)}: it picks up at this step, nothing lost."
    return (
        f"{stop_replaced(replaced)}; then {paste_words('that')} or a new one: it picks up at this step, nothing lost."
    )


def stop_replaced(replaced: Iterable[int]) -> str:
    """The to-do that tells the agents of branches a branch started by hand replaced to stop, without its full
    stop: "In branch 1's chat, tell its agent to stop" (the run page's paused panel and the step's hand-over)."""
    numbers = list(replaced)
    names = listing.joined([str(n) for n in numbers])
    if len(numbers) == 1:
        return f"In branch {names}'s chat, tell its agent to stop"
    return f"In the chats of branches {names}, tell their agents to stop"


def _waiting(state: RunState, shown: BranchOutcomeEntry) -> AttentionPanel:
    tip = int(shown.tip_node_id)
    pk = state.tree.by_public_id(tip)
    seen = step_text.as_seen(compiled_workflow(state.run.pinned_id), [pk] if pk is not None else [])
    # Since when it waits, as the stalled and blocked panels say theirs: how long the person kept it waiting.
    # The status line's pill already says "Your move · Confirm": the title says what it waits for, once.
    waits = WAITING_WORDS.capitalize()
    panel = _panel(
        state,
        shown,
        "waiting_for_user",
        "needs_you",
        _Title(f"{waits} ", shown.at, "", "for") if shown.at else _Title(waits),
        next_move=waiting_words(shown.step_title or ""),
        for_you=WAITING_WHY,
        since=shown.at,
        asks=seen[pk].prompt if pk is not None and pk in seen else None,
        to_approve=latest_notes(pk) if pk is not None else None,
    )
    replies = agent_message.replies(shown.step_title or "")
    panel._replies = (replies.confirmed, replies.changes_parts)
    return panel


# The waiting panel's "Why", on the run page and the step page's "Resume here" alike (friction22b A9).
WAITING_WHY = (
    "The workflow asks you to confirm this step before the agent goes on. Nothing is stalled: the run waits for "
    "you as long as it takes."
)


def waiting_words(step_title: str) -> str:
    """The waiting panel's lead, written to the user: what the step asks them, from its title where the
    heuristics can say it ("The agent is waiting for you to approve the plan"), else the title quoted;
    then where the answer goes: the agent's chat, where the person pastes one of the two replies the copy buttons
    hold (agent_message.replies; the dashboard cannot confirm by itself)."""
    asked = what_to_confirm(step_title)
    if asked:
        lead = f"The agent is waiting for you to {asked}."
    elif step_title:
        lead = f"The agent is waiting for your go-ahead on “{step_title}”."
    else:
        lead = "The agent is waiting for your go-ahead before it goes on."
    return f"{lead} {REPLY_WORDS}"


# Under a step waiting for the user's confirmation, before its two copy buttons (agent_message.replies). Why a
# copy and not a button that confirms: the agent waits in its chat, and hears only what is said there
# (friction20a 10: a reader looked for an Approve button that acts by itself; friction28b 15: first-time readers
# still looked for one, so the panel's first line says the dashboard cannot talk to the agent, and how you confirm).
# Where to paste it is the line under the replies, said once (friction28b 1).
REPLY_WORDS = "The dashboard cannot talk to it: you confirm by copying a reply below."


def latest_notes(node_pk: int) -> recap.PlacedEntry | None:
    """The newest entry with notes on the path to a node, with the node it led to: what the agent last wrote
    (the step before's output, or a checkpoint it saved on the way), which a step waiting for the user's
    confirmation usually asks them to approve."""
    node = Node.objects.filter(pk=node_pk).first()
    if node is None:
        return None
    return next((found for found in recap.newest_placed(node) if found.entry["notesMarkdown"].strip()), None)


def _canceled(state: RunState, shown: BranchOutcomeEntry) -> AttentionPanel:
    # Who, in sight without opening "Why": the cancel event's door and owner (people.py), always said.
    at = state.run.updated_at
    said = states.label("canceled")
    title = (
        _Title(f"{said} {state.canceled_by} ", at, "", "ago")
        if state.canceled_by
        else _Title(f"{said} ", at, people.NOT_RECORDED_WHO, "ago")
    )
    return _panel(
        state,
        shown,
        "canceled",
        "canceled",
        title,
        next_move="Nothing to do, unless the work should go on: then have the agent start the workflow again.",
        for_you=(
            "The run stops for good: an agent still on it is told the run was canceled. What it "
            "recorded stays here to read."
        ),
        since=at,
    )


def _left_behind(state: RunState, outcome: BranchOutcomeEntry) -> AttentionPanel:
    newest = next((o for o in state.told if o.is_newest), None)
    by_hand = newest is not None and bool(newest.tip_node_id) and _started_by_hand(state.tree, newest)
    # Started by hand, nobody told the agent that was here (friction16a 10): it may still be at work in its chat.
    why = (
        f"when branch {newest.number} was started by hand. {AGENT_NOT_TOLD}"
        if newest is not None and by_hand
        else "when the agent branched from an earlier step: no agent works on it any more."
    )
    goes_on = f": the work goes on along branch {newest.number}" if newest is not None else ""
    beside = [newest.number] if newest is not None and newest is not outcome and newest.status == "open" else []
    panel = _panel(
        state,
        outcome,
        "left_behind",
        "left_behind",
        _Title(f"{states.label('left_behind')}{goes_on}"),
        # Nothing to do unless the person wants it back, which is resuming it at its latest step: the quiet
        # button under this line, or the row's "Resume here →" (_attention.html), say the same (friction13 2).
        next_move=LEFT_BEHIND_BACK,
        for_you=(
            f"This branch was left behind {why} Given the message, an agent "
            "resumes here, and its next step grows this branch."
        ),
        since=outcome.at,
        resumes=True,
    )
    # Not the rule of which branch the run page shows: nobody needs it to decide (friction24a 14, round 53).
    panel._then = resuming_left_behind(beside, "its latest step")
    panel._new_chat = bool(beside)  # its line says "a new chat"
    return panel


# What starting a branch by hand does not do, said before it (step_actions: the branch form) and after it (the
# branch left behind): the dashboard has no line to the agent's chat.
AGENT_NOT_TOLD = "An agent working here is not told: it may carry on in its chat until you tell it there to stop."


# Beside a branch left behind's quiet copy of the message (actions.COPY), on the run page: nothing is asked
# (friction18a 9), said in words: the button is the quiet outline because it is optional (friction24a 14); then
# what resuming it does (resuming_left_behind), in the step page's words.
LEFT_BEHIND_BACK = "Optional: only if you want this branch back."


def resuming_left_behind(beside: list[int], where: str) -> tuple[str, ...]:
    """What resuming a branch left behind does (friction18a 8), on the run page and the step page alike, in short
    lines, each shown on its own: it goes on from `where` ("its latest step", "this step"), and nothing happens to
    the branches an agent works on (`beside`, their numbers). Its latest step's token adds the next step to it, a
    new node, and overwrites nothing; the branches then go on at once, each with its agent. Which branch the run
    page then shows is a rule nobody needs to act (friction24a 8: it read as the page jumping away), so unsaid.
    Said plainly (friction19b 15: two agents on one run,
    and the run page's branch changing, surprised; friction22a B1: one verb, "resuming", the section's own);
    with an agent at work elsewhere, which chat takes the message, a new one, not that agent's (friction23b 7:
    one long sentence, and the chat the person most likely has open was never ruled out)."""
    if not beside:
        return (f"Resuming makes it go on from {where}.",)
    # friction25a 2: its effect on the live branches, beside branching's (step_actions: on a step page the line
    # after this one says a redo would replace them instead, friction26a 3).
    # friction60a 11: "Branch 2 goes on too: two agents at work." read as two agents at work now; it is what
    # resuming would do, so the line says it as a condition.
    goes = (
        f"branch {beside[0]} keeps" if len(beside) == 1 else f"branches {listing.joined([str(n) for n in beside])} keep"
    )
    count = len(beside) + 1
    agents = _COUNTS.get(count, str(count))
    return (
        f"If you resume this branch, {goes} going too: {agents} agents at once. Paste the message into a new chat.",
    )


_COUNTS = {2: "two", 3: "three", 4: "four", 5: "five"}


def _started_by_hand(tree: branches.RunBranches, outcome: BranchOutcomeEntry) -> bool:
    branch = next((b for b in tree.branches if b.number == outcome.number), None)
    return branch is not None and bool(branch.nodes) and branch.nodes[0] in tree.started_by_hand


# --- whose move it is, beside each badge (states.move) ---------------------------------------------------


def move_of_blocked(entry: BlockedStep, cutoff: datetime) -> states.Move:
    return blocked_move(entry.whose_move, entry.last_refused_at, cutoff)


def blocked_move(held_by: str, last_refused_at: datetime, cutoff: datetime) -> states.Move:
    """A blocked step's move, the one rule the sessions list and the run and node pages apply: yours when
    it waits for something only you can give (`held_by` "user"), or when the agent has stopped (its last
    try, `last_refused_at`, is older than the stall window); else the agent's (it was told what to fix and
    resends by itself)."""
    if held_by == "user":
        return "yours"
    return states.move("blocked", stopped=last_refused_at < cutoff)


def move_of_branch(outcome: BranchOutcomeEntry, cutoff: datetime) -> states.Move:
    if outcome.blocked is not None and outcome.state == "blocked":
        return move_of_blocked(outcome.blocked, cutoff)
    return states.move(outcome.state)


@dataclass(frozen=True)
class BlockedGuide:
    """What the blocked panel tells a person to do, by whose move it is (blocked_move): while the agent's,
    that it retries by itself, with the message for the agent folded under when it turns theirs; once
    theirs, the message to give, in sight."""

    move: states.Move
    heading: str  # the verdict: never that the agent must act once the move is the person's
    lead: str  # the line under the verdict: what happens next, or what to do
    fold: str  # the folded message's summary; "" when the message is in sight (the person's move)
    # When the move turns the person's: a page prints the moment itself, in the reader's time zone (the
    # `words_when` tag), in the words around it (turns_around).
    turns_at: datetime | None = None
    # Where the lead starts with a verdict of its own, that verdict, said in bold before the lead's regular
    # words (friction25b 18: two lines of bold); "" where the lead is one plain line.
    lead_verdict: str = ""
    # The heading says the refusal whole (whose move, what happens, since when): a step's page, which shows the
    # heading, says no line of it again under it (friction62b 7: the refusal said three or four times there). The
    # run page shows no heading (its card's status line says it), so it keeps the lead.
    heading_whole: bool = False

    @property
    def tone(self) -> states.Tone:
        """The panel's colour family (states.tone): red once the move is yours, as its pill's."""
        return states.tone("blocked", self.move)

    @property
    def turns_around(self) -> Timed | None:
        """The line that says when the move turns the person's, around that moment: in the refusal's panel, the
        same line on the run page and the step's page (friction60b 12: the step page had it only inside its folded
        "Resume here" card), once on each."""
        return TURNS if self.turns_at is not None else None


# When the move turns the person's, the words around the moment (the `words_when` tag prints it).
TURNS = Timed("It becomes your move ", f"{IF_NO_RETRY}.", "in")
# The title of the fold that holds a refused step's resume message while the agent is to resend it: the step
# page's own, "Resume here · only if the agent stopped" (friction60a 13: one action, one label on both pages).
IF_STOPPED_FOLD = f"{actions.section('resume')} · only if the agent stopped"


# The heading's first word, while the agent is to resend (its pill's word, states.py).
REFUSED = "Refused"
REFUSED_FOR_NOW = "Refused for now"


def blocked_guide(entry: BlockedStep, cutoff: datetime, now: datetime | None = None) -> BlockedGuide:
    move = move_of_blocked(entry, cutoff)
    if entry.whose_move == "user":
        return BlockedGuide(
            move,
            blocked.panel_verdict(entry),
            "If it has stopped, the message gives it the step again.",
            "",
            lead_verdict="Tell the agent what it needs.",
        )
    if move == "yours":
        quiet = time_axis.lasting(entry.last_refused_at, now or timezone.now())
        return BlockedGuide(
            move,
            # How long, said once: the heading, which a step's page shows, where the run page's status line says
            # "refused 45 min ago, the agent has not resent it" in its place; what is wrong, the panel's "Why it
            # was refused" (friction61a 5: each said twice).
            f"Refused: the agent has not resent this step {quiet}.",
            "The message gives it the step again to resend.",
            "",
            lead_verdict="It has probably stopped.",
        )
    turns_at = hand_over_at(entry.last_refused_at)
    if entry.whose_move == "delegations":
        lead = "The agent resends the step by itself once its delegated runs finish: nothing for you to do now."
        # A step's page says it in one sentence, the heading (heading_whole), the countdown under it.
        heading = f"{REFUSED_FOR_NOW}: the agent resends this step by itself once its delegated runs finish."
    else:
        lead = "The agent was told what to fix and normally resends the step by itself: nothing for you to do now."
        heading = f"{REFUSED}: the agent normally resends this step by itself; nothing for you to do now."
    # The moment the move turns to the person lies ahead: said as what will happen then, not as "your move
    # from" a time still to come, which the eighth reviewer read as a clock gone wrong; in a line of its own
    # over the fold (turns_around), not in the fold's title (friction29a 7: a condition, what the fold holds
    # and a countdown in one clickable line). Not a question (friction22a B1: "Agent stopped? …" was one more
    # name for resuming): the title names what it holds, then when it is for.
    return BlockedGuide(move, heading, lead, IF_STOPPED_FOLD, turns_at, heading_whole=True)
