"""A run card's one status line: the state's chip, then one sentence of where the agent is, said once on the run
page, the step's name first, as every row and heading names a step (step_places.named): "Approve the plan · step 2
of 3 · waiting for your confirmation for 5 min"; "Record what the slice showed · step 2 of 3 · round 2 of
3 · part 2 of 2 · branch 2 · agent working for 10 min";
"Build · step 2 of 4 · refused 3 min ago, the agent must resend it";
"Finished 2 h ago · 5 steps answered" (friction16 9: the place first and the name in parentheses buried it).

Reviewers read the run page saying where the agent is in several places (the page's head, the card's state
line, the branch line, the pending-step line, the panel's title and its step line): now this line says it, and
what sits under it is history or detail (the panel keeps what to do and the message to copy, not a second
"where"). For a run of several branches, the line is about the branch the agent works on (the newest open
one, as the run's whereabouts are: attention.places); the branch shown, when it is another, is named once, in
one banner that leads with it, this line then the way to the latest ("Viewing branch 1 (done). The agent works
on branch 2: …", friction24a 9).

Also here, from the same branches: what canceling the run stops (only the branches still open; a finished or
canceled branch stops nothing), for the cancel button and its confirmation, and how a branch's steps add up to
the run's when branches share the steps before their fork.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from runs.contract.dashboard import (
    BranchOutcomeEntry,
    GraphNode,
    RunDetail,
    StateName,
    StepPlace,
    Timed,
    Whereabouts,
)
from runs.readmodels import people, step_places
from runs.readmodels.branch_summary import numbers_words
from runs.readmodels.timeline_page import StepCounts

# What the agent's place is, after the step, by the whereabouts' place (attention.Place.shown names them): the
# words before the moment (the page prints it in the reader's own zone) and after it.
# One time language (friction17a 4): how long a state has lasted ("agent working for 10 min"), how long ago
# something happened ("refused 5 min ago"), never a clock beside "last activity just now".
_DOING: dict[str, Timed] = {
    "waiting_for_user": Timed("waiting for your confirmation ", "", "for"),
    "stalled": Timed("stalled ", "", "for"),  # as the sessions list says it (friction18a 3)
    "working": Timed("agent working ", "", "for"),
}
_BLOCKED: dict[str, Timed] = {
    "agent": Timed("refused ", ", the agent must resend it", "ago"),
    "stopped": Timed("refused ", ", the agent has not resent it", "ago"),  # its move turned the person's
    "user": Timed("waiting for something only you can give ", "", "for"),
    "delegations": Timed("waiting for its delegated runs ", "", "for"),
}


@dataclass(frozen=True)
class StatusLine:
    """The run card's first line. `chip`: what the state's chip reads its move from (the run's whereabouts);
    `words` around `since`: the where sentence (the page prints `since` as a <time> between `timed`'s two
    parts); `showing`: the branch shown when it is not the one the line is about, and its state; `latest`: then
    the number of the branch the line is about, which the card's one banner names before `words` ("Viewing
    branch 1 (done). The agent works on branch 2: Record what the slice showed · round 2 of 3 →"), so `words`
    leave the branch out, and, while the agent works there, how long it has (friction24a 9)."""

    state: StateName
    chip: Whereabouts | None
    words: str
    since: datetime | None = None
    timed: Timed | None = None
    showing: BranchOutcomeEntry | None = None
    latest: int | None = None
    # The same sentence in its typed parts, as the card prints it on one line: `title` (the step's name, bold),
    # then `said`: the counters (step · round · part · branch) and the state's words around `since`
    # (`said_timed`). The counters on a line of their own under it read as a leftover (friction28b 5); the name
    # alone on the first line was for friction25a 8 (one line of counters read as a pile): the name stays bold.
    title: str = ""
    said: str = ""
    said_timed: Timed | None = None
    # The branch the line is about, leading it ("Branch 2"), where the pill above it names other branches (a
    # replaced one whose agent may still work, Whereabouts.replaced): each line names its branch, once
    # (friction63a 4, 63b 5: "Your move · Replaced" over "… · branch 2 · agent working" read as one branch's).
    lead: str = ""

    @property
    def agent_works(self) -> bool:
        """The line is about a branch the agent works on: the banner says so in words, without a pill."""
        return self.state == "running"


def _step(place: StepPlace | None, title: str) -> str:
    """ "Approve the plan · step 2 of 3": where the line starts, the step named as rows and headings name it
    (step_places.named), capitalized as a sentence starts."""
    said = step_places.named(title, place) or "Its step"
    return f"{said[:1].upper()}{said[1:]}"


def _parts(place: StepPlace | None, title: str, on_branch: str) -> tuple[str, str]:
    """The line's two parts before its state: the step's name as a sentence starts ("Its step" when neither it
    nor its place is known), and its counters ("step 2 of 3 · round 2 of 3 · part 2 of 2 · branch 2"), which
    then lead `said`, capitalized when no name comes before them."""
    counters = " · ".join(w for w in (place.brief if place is not None else "", on_branch.removeprefix(" · ")) if w)
    named = title[:1].upper() + title[1:] if title else ("" if counters else "Its step")
    return named, counters if named else counters[:1].upper() + counters[1:]


def _after(counters: str, words: Timed) -> Timed:
    """The state's words after the counters, on the line's one sentence: "step 2 of 3 · waiting for … "."""
    return Timed(f"{counters} · {words.before}" if counters else words.before, words.after, words.form)


def _node(detail: RunDetail, node_id: str | None) -> GraphNode | None:
    return next((n for n in detail.graph.nodes if n.node_id == node_id), None) if node_id else None


def answered_on(detail: RunDetail, tip: str | None) -> int:
    """How many steps were answered on the path to node `tip`: the nodes an answer made (not a checkpoint, a
    fork or the start)."""
    nodes = {n.node_id: n for n in detail.graph.nodes}
    node, answered = nodes.get(tip or ""), 0
    while node is not None:
        answered += node.via == "step"
        node = nodes.get(node.parent_id or "")
    return answered


def of_run(detail: RunDetail) -> StatusLine:
    """The line for the run `detail` shows, whichever of its branches is shown."""
    run, where = detail.run, detail.where
    branches = [o for o in [detail.branch, *detail.other_branches] if o is not None]
    counts = next((o for o in branches if o.is_newest), None)
    shown = detail.branch
    showing = shown if shown is not None and counts is not None and shown is not counts else None
    latest = counts.number if showing is not None and counts is not None else None
    # The banner names the latest branch before the line when another is shown; the line names it otherwise.
    on_branch = f" · branch {counts.number}" if counts is not None and len(branches) > 1 and latest is None else ""
    lead = ""
    if on_branch and where is not None and where.replaced and counts is not None:
        lead, on_branch = f"Branch {counts.number}", ""
    if run.status == "complete":
        tip = counts.tip_node_id if counts is not None else detail.graph.tip
        answered = StepCounts(answered=answered_on(detail, tip)).words
        around = Timed("Finished ", f"{on_branch} · {answered}", "ago")
        return StatusLine(
            run.state,
            where,
            f"Finished{on_branch} · {answered}",
            run.updated_at,
            around,
            showing,
            latest,
            said=f"Finished{on_branch} · {answered}",
            said_timed=around,
        )
    node = _node(detail, counts.tip_node_id if counts is not None else detail.graph.tip)
    title = (counts.step_title if counts is not None else None) or (node.title if node is not None else "")
    step = _step(node.place if node is not None else None, title or "") + on_branch
    named, counters = _parts(node.place if node is not None else None, title or "", on_branch)
    if run.status == "canceled":
        # Who, always said (people.py): by the recorded door and owner, or that nobody recorded who.
        by, after = (f" {detail.canceled_by}", "") if detail.canceled_by else ("", people.NOT_RECORDED_WHO)
        around = Timed(f"{step} · canceled{by} ", after, "ago")
        return StatusLine(
            run.state,
            where,
            f"{step} · canceled{by}{after}",
            run.updated_at,
            around,
            showing,
            latest,
            said=" · ".join(w for w in (counters, f"canceled{by}{after}") if w),
            said_timed=_after(counters, Timed(f"canceled{by} ", after, "ago")),
            title=named,
        )
    place = where.place if where is not None else "working"
    since = where.since if where is not None else None
    if place == "blocked" and counts is not None and counts.blocked is not None:
        held_by = counts.blocked.whose_move
        stopped = held_by == "agent" and where is not None and where.move == "yours"
        said = _BLOCKED["stopped"] if stopped else _BLOCKED.get(held_by, _BLOCKED["agent"])
        since = counts.blocked.since
    elif place == "paused" and where is not None and where.came is not None:
        said = where.came  # "imported under a minute ago · no agent has it yet" (friction18a 4)
    else:
        said = _DOING.get(place, _DOING["working"])
    if since is None or (latest is not None and run.state == "running"):
        # Seen from another branch, "The agent works on branch 2: <step>" says all a working line would.
        return StatusLine(run.state, where, step, None, None, showing, latest, title=named, said=counters, lead=lead)
    around = Timed(f"{step} · {said.before}", said.after, said.form)
    return StatusLine(
        run.state,
        where,
        f"{step} · {said.before}{said.after}",
        since,
        around,
        showing,
        latest,
        said=" · ".join(w for w in (counters, f"{said.before}{said.after}") if w),
        said_timed=_after(counters, said),
        title=named,
        lead=lead,
    )


@dataclass(frozen=True)
class CancelStops:
    """What canceling a run stops: its branches still open (a finished or canceled branch stops nothing), told
    apart as the branch cards tell them: in progress (an agent on it, or it waits for someone) and left behind.
    "both open branches" beside two branches badged "Left behind" read as a contradiction (friction16b 7, 16a 1),
    so `confirm` names each kind in the cards' words."""

    in_progress: list[int]
    left_behind: list[int] = field(default_factory=list)
    branches: int = 1  # every branch of the run, open or not: what "Cancel" covers on a branched run

    @property
    def open_branches(self) -> list[int]:
        return sorted(self.in_progress + self.left_behind)

    @property
    def button(self) -> str:
        """ "Cancel run…" on a run of one branch; "Cancel run (all branches)…" on a run of several, from the count of
        its branches (friction28b 14: seen from a side branch, "Cancel run…" read as maybe canceling only the branch in
        view; friction26b 5 had made it one label, which left that question open). That it stops every branch
        (friction22a B5), and which, the confirmation says (`confirm`). No count: every branch counted read as if
        finished work would be undone (friction23a A2, 23b 14), and the open ones by kind crowded the card's head
        on a phone (friction17b 18). friction60a 13, 60b 14: "Cancel run…" and "Cancel the whole run…" read as two
        actions; one label, the branches said after it."""
        return "Cancel run (all branches)…" if self.branches > 1 else "Cancel run…"

    @property
    def confirm(self) -> str:
        said = []
        if self.in_progress:
            said.append(f"{numbers_words(self.in_progress)} in progress")
        if self.left_behind:
            said.append(f"{numbers_words(self.left_behind)} left behind")
        where = f", with {' and '.join(said)}" if len(self.open_branches) > 1 else ""
        run = "every branch of the run" if self.branches > 1 else "the run"
        return (
            f"Are you sure? This cannot be undone: {run} stops{where}, and an agent still on it is told the run"
            " was canceled. Steps already answered stay recorded."
        )


def cancel_stops(detail: RunDetail) -> CancelStops:
    branches = [o for o in [detail.branch, *detail.other_branches] if o is not None]
    going = [o for o in branches if o.status in ("open", "blocked")]
    return CancelStops(
        sorted(o.number for o in going if not o.left_behind),
        sorted(o.number for o in going if o.left_behind),
        branches=detail.run.branch_count,
    )
