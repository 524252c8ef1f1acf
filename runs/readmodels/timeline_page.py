"""A session's timeline as its page shows it, laid out here so that the template only prints it.

A row per run: its name and how long it took in a column of their own (text never sits under the
dots), then a track with a dot per node at the moment it was made. Positions are percentages of the
track's width, so the track stretches with its box while its dots stay round and its text keeps its
size (no viewBox scaling): at phone width the name goes above the track (dashboard.css) and nothing
runs past the card. Below the rows, an axis (time_axis.axis: clock times at round moments, to the minute;
a span under a minute is one tick, its start's clock time; a phone's its own, time_axis.dot_ticks). The
timeline is history: its page folds it shut under one line that says what it holds (`summary`).

Each dot is a node (timeline_marks.py), coloured by its state as the state's badge is, and named by a
tooltip and an accessible name (its step, its state, when); beside the track, in the name's column
where there is always room and never over a dot, the row says in words which states its dots show.
Dots closer than a dot's width never sit on each other: they gather into a cluster, which draws one dot
per state it holds, side by side a dot's width apart from the cluster's first moment on, in the order the
states first occur: a state of one node is a plain dot, a state of several a larger dot that says how many
(named by all of them: "3 steps within 0.02 s: ..."; a legend under the axis says what the number is). So no
state hides inside another's colour: every state the row's words list has a
dot of its colour. The track is narrower on a phone, so the row is laid out twice, for the wide track and
for the narrow one (dashboard.css shows one of the two).

Each row starts where its run started, as its run card says (friction61a false 2), and the axis with the
earliest. One end for every figure (friction12 item 1): the axis, each row's duration and an ended
session's summary line ("→ last step 9:53 PM, 45 min") all
run from the first recorded step to the newest one, never to the moment the page was drawn, so that a row
never says more than the axis holds. The
gap rule depends on the runs' states only, never on how long ago the newest step was (so not on the speed of
the machine that recorded them): when some run still stands (running, needs you, blocked, stalled) the
session reaches on to now, "now" at the axis's end (how long the session went without a step is the summary
line's to say, on the wall clock: "started 9:08 PM · last step 45 min ago"; TimelineSummary). The break
rule (friction24a 4: a "//" under a run that lasted under a minute read as "a long gap was cut out here"; friction62a
3: a run started 50 min before a burst of steps piled them at the axis's end): only the longest quiet stretch, both
longer than BREAK_AFTER and than BREAK_SHARE of the rest, is cut out (`quiet_stretch`): one since the newest step
ends the axis in a compact gap of GAP_SHARE, a break at its start; one before it (before the first step, or between
two) is squeezed to CUT_SHARE, a break at its end, the activity after it drawn to scale again;
a shorter one is drawn to scale, the axis running on from the first step to now with no break, and the newest
step's moment labelled where no tick says it (time_axis.axis, `newest`). A standing row's track runs on, dashed,
to now, and a row quiet for notably longer than the session, or for the stall minutes, says its own on its tail ("no
new step for 50 min"; on a phone on a line of its own under the track). A break is drawn across every row's line that
runs through it, as on the axis. A session whose runs all ended has no gap and no "now": its axis ends at its newest
step, and only then does its summary say how long it took.

The door gives the run page's URL with RUN in place of the run id, and the marks of each run's nodes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from runs.contract.dashboard import SessionDetail, StateName, TimelineLane
from runs.readmodels import branch_summary, clock, states, time_axis, timeline_marks
from runs.readmodels.branches import RunBranches
from runs.readmodels.timeline_marks import ANSWERED, NodeMark

# A dot at either end of the track stays whole: the track's ends are this far in (percent of its width).
INSET = 1.5
# How close (percent of the track) two dots may be before they merge: a numbered dot's width (20 px, room
# for three digits) and a gap, on the wide track (~730 px at 1440 wide) and on a phone's (~335 px at 390).
MERGE_WIDE = 3.0
MERGE_NARROW = 6.6
# The stretch from the newest step to now, when some run still stands: a gap at the track's end (percent of
# the track, room for "45 min" on a phone's), however long it lasted, so that the dots keep the width.
GAP_SHARE = 24.0
# A stretch cut out before the axis's end (timeline_page.quiet_stretch): wider, so that the label before it (the
# session's start, "4:08 AM", ~60 px on a phone's ~335 px axis) stays clear of the "//" drawn just before the
# activity resumes (times.js leaves out a label that would touch it).
CUT_SHARE = 30.0
# The break rule: the stretch from the newest step to now is cut out (GAP_SHARE, a "//") only when it lasted longer
# than this many seconds and than this share of the span the dots take; else the axis runs to now to scale.
BREAK_AFTER = 10 * 60
BREAK_SHARE = 0.5
# Before a break at the axis's end, the activity takes the track's width to scale, and at least this many seconds:
# steps a moment apart stand close, in one numbered dot, and the zoomed axis (time_axis.ZOOM_UNDER) has three ticks
# or more, to the second (friction60a 10: two steps 15 ms apart stood 600 px apart, the axis one label). Five
# minutes, from before the axis could zoom, put 20 s of steps in the track's first tenth (friction64).
MIN_SHOWN = 30.0
# After a break before the axis's end, the track draws at least this many seconds to scale: a burst of steps a few
# seconds apart spreads over the track (friction62a 3), and the axis there is to the minute, as its start's label
# before the break is (a span under time_axis.ZOOM_UNDER is said to the second: "4:07 AM" beside "4:55:30 AM"; and
# to the second the start's label is too wide for its room before the "//" on a phone).
SHOWN_AFTER_BREAK = 3 * 60
# A standing row says its own quiet stretch on its tail when it is longer than the session's (under the axis)
# by at least this many seconds and this share of it: "no new step for 6.1 s" over "last step 6.0 s ago" is noise.
QUIET_MARGIN = 1.0
QUIET_MARGIN_SHARE = 0.1
# The states in which a run still stands: its time runs on until now.
STANDING: frozenset[StateName] = frozenset({"needs_you", "blocked", "stalled", "running"})


def at(fraction: float, width: float = 100 - 2 * INSET) -> str:
    """Where a fraction of the session's span lies on the track, as an SVG percentage; `width`: the share
    of the track the span takes (less than all of it when a gap ends the track)."""
    return f"{INSET + min(max(fraction, 0.0), 1.0) * width:.2f}%"


# The states whose dots are squares, not discs: Paused's cyan beside Working's blue is told apart by its
# shape as well (friction9 item 7; Left behind's dots are rings: dashboard.css), never by colour alone.
SQUARE: frozenset[StateName] = frozenset({"paused"})


@dataclass(frozen=True, slots=True)
class ClusterStep:
    """One node of a numbered dot, as its list names it: its step's place and title, and a link to its step's page
    (friction64: the list was plain text, so a phone, which has no tooltip, reached no step from a numbered dot)."""

    words: str  # "Review api · step 4 of 8 · round 1 of 2 (branch 2)"
    href: str = ""  # the step's page; "" where the mark names no node


@dataclass(frozen=True, slots=True)
class TimelineDot:
    at: str  # where on the track
    state: StateName  # its colour (dashboard.css: dot-<state>): the state of every node it stands for
    words: str  # its name: the step, its state, when (for a merged dot, each of its nodes')
    count: int = 1  # how many nodes it stands for: more than one when they were too close to tell apart
    # For a numbered dot, what the list under the timeline says of it (a phone has no tooltip): when its first
    # node was made, "3 steps within 20 ms", and each node's step, oldest first.
    since: datetime | None = None
    within: str = ""
    steps: tuple[ClusterStep, ...] = ()
    said: str = ""  # a numbered dot's state in words, with the branches it mixes (cluster_state)
    tone: states.Tone = "nobody"  # its colour family, its nodes' (NodeMark.tone): a refused step's blue or red
    checkpoint: bool = False  # checkpoints only (`is_checkpoint`): drawn as the graph draws them, a ◆

    @property
    def square(self) -> bool:
        return self.state in SQUARE and not self.checkpoint

    @property
    def mark(self) -> str:
        """The glyph on a refused step's dot, "!", as the progress strip's chip marks it (friction63a 7: a refused
        dot in Working's blue read as progress): its shape says refused whatever its tone's colour."""
        return "!" if self.state == "blocked" and not self.checkpoint else ""

    @property
    def state_label(self) -> str:
        return self.said or states.label(self.state)


@dataclass(frozen=True, slots=True)
class StateCount:
    state: StateName
    label: str  # "Left behind": the state's word; how many steps the row holds is its duration line's to say, once
    tone: states.Tone = "nobody"  # its key's colour family, as its dots' (NodeMark.tone)
    checkpoint: bool = False  # the key of its checkpoints, a ◆ (`is_checkpoint`)


@dataclass(frozen=True, slots=True)
class TimelineRow:
    run_id: str
    label: str  # the run's workflow name, in full (its column wraps it)
    href: str
    took: str  # "160 ms · 11 steps answered": from its first step to its newest, as the axis measures
    nodes: int  # how many nodes it has
    tooltip: str
    start: str  # where its first node lies on the track
    end: str  # and its newest
    until: str  # for a run that still stands, where now lies on the track (its dashed tail); else ""
    dots: list[TimelineDot]  # its nodes, oldest first, merged where closer than MERGE_WIDE
    narrow_dots: list[TimelineDot]  # the same, merged where closer than MERGE_NARROW (a phone's track)
    states: list[StateCount]  # the states its dots show, most urgent first (states.ORDER)
    selected: bool
    # In a gap (GAP_SHARE), the dashed tail says in words how long no step was recorded ("no new step for 45 min"),
    # at the gap's middle; on a phone the same words on a line of their own under the track (friction61a 11: a
    # phone's tail had no room, and "5 h" read as "5 h·" before the dot it was about).
    quiet: str = ""
    quiet_at: str = ""
    narrow_quiet: str = ""
    # The quiet words on a line of their own under the track at every width: too long for a tail when they say when
    # the agent was last active ("no new step for 20 min (active 5 min ago)").
    quiet_below: bool = False
    # Whether its line runs across the axis's break: the "//" is drawn on it too, where the axis's is (friction63b 6:
    # a row's line ran whole through a stretch the axis said was cut out).
    broken: bool = False

    @property
    def clustered(self) -> list[str]:
        """The layouts ("wide", "narrow") in which some dot stands for several nodes: they need the legend."""
        return [track for track, dots, _ in self.tracks if any(dot.count > 1 for dot in dots)]

    @property
    def tracks(self) -> list[tuple[str, list[TimelineDot], str]]:
        """The row's two layouts, by the class that dashboard.css shows at its width, with their quiet words."""
        return [("wide", self.dots, self.quiet), ("narrow", self.narrow_dots, "")]


@dataclass(frozen=True, slots=True)
class TimelineTick:
    at: str
    # A clock time in UTC, as a page without scripts shows it, which times.js puts on the reader's clock.
    label: str
    moment: str  # a clock time's moment, ISO 8601 in UTC
    step: float  # seconds between ticks: how precisely times.js labels it (to the minute, or the day)
    anchor: str  # start, middle or end: the first and last stay on the track
    # "wide" or "narrow": the one axis it is shown on (dashboard.css), "" both. A phone's axis has room for few
    # clock times and no tooltip: it says the dots' own moments, the first step's and the newest's, and the round
    # ones clear of them (time_axis.dot_ticks; friction59 T 2); the wide one a regular grid (time_axis.axis).
    only: str = ""
    day: bool = False  # its label says the day: times.js says the reader's day too


@dataclass(frozen=True, slots=True)
class TimelineSummary:
    """The fold's one line, on the wall clock (friction15 2): what the dots count, when the session started (the
    axis's start), when its first step was answered where that is later, and then for a session with a run that
    still stands how long since the newest ("last step 45 min ago"); for one whose runs all ended, the newest
    step's time and the span from the start ("last step 9:53 PM · took 45 min"). Spans as a person counts them
    (time_axis.lasted: "under a minute", never "36 ms", friction16b 3).
    Whose move it is, and since when, is the status line's to say: a "waiting 45 min for you" here counted from
    the newest step, not from when the move became the person's (friction16b 4), so the line says no more
    than the timeline knows. The template prints the moments as <time> elements, on the reader's clock."""

    counts: str  # StepCounts.words
    first: datetime | None = None  # when the session's first run started (its step given), where the axis starts
    last: datetime | None = None
    standing: bool = False
    quiet: str = ""  # a standing session's time since its newest step: "45 min"
    took: str = ""  # start to newest step, for a session that ended: "45 min"; "" for a single moment
    # When the first step was answered, the first green dot's moment, where that is another minute than the start:
    # "started 2:47 AM · first answer 3:37 AM" (friction62b 10: "first step 2:47 AM" over a first dot at 3:37 AM,
    # the step given at one and answered at the other).
    answered: datetime | None = None
    # Some run has not ended (states.FINISHED) though none stands (a run paused for an agent): the newest step's
    # time, and no "took" (friction63a 3).
    open: bool = False

    @property
    def text(self) -> str:
        """The line in words, its moments in UTC to the minute (a page without scripts prints the same)."""
        if self.first is None or self.last is None:
            return self.counts
        first = f"{self.first.astimezone(UTC):%H:%M} UTC"
        if not self.took and not self.standing and not self.open:
            return f"{self.counts} · {first}"
        said = f"{self.counts} · started {first}"
        if self.answered is not None:
            said += f" · first answer {self.answered.astimezone(UTC):%H:%M} UTC"
        if self.standing:
            return f"{said} · last step {self.quiet} ago"
        if self.open:
            return f"{said} · last step {self.last.astimezone(UTC):%H:%M} UTC"
        return f"{said} · last step {self.last.astimezone(UTC):%H:%M} UTC · took {self.took}"


@dataclass(frozen=True, slots=True)
class TimelinePage:
    rows: list[TimelineRow]
    ticks: list[TimelineTick]
    caption: str  # "2026-11-28 22:02:04 to 22:02:04 UTC · 0.22 s": first step to newest; empty without times
    # What the fold's one line says it holds: the counts (StepCounts) and the wall clock (TimelineSummary). Its
    # title is "Timeline" whatever it covers; the counts say "in 2 runs" when it covers several (friction26b 5:
    # "Timeline of this run" and "Session timeline" read as two sections; friction15 17 had them apart).
    summary: TimelineSummary = TimelineSummary("")
    # Where the gap before now starts (the axis breaks there: the break rule); "" without one. A standing session's
    # axis says "now" at its end either way (summary.standing).
    gap: str = ""
    now: str = f"{100 - INSET:.2f}%"
    # Where a break before the axis's end ends, the activity after it drawn to scale again; "" for a break at the
    # end (the gap runs to "now") or none.
    gap_end: str = ""

    @property
    def clustered(self) -> list[str]:
        """The layouts in which some row has a numbered dot: the legend says what the number means there."""
        return [track for track in ("wide", "narrow") if any(track in row.clustered for row in self.rows)]


def nodes_words(count: int) -> str:
    """ "11 steps": a node is a step reached (a checkpoint is one too), and people say steps."""
    return f"{count} step{'' if count == 1 else 's'}"


# The legend's word for a checkpoint's ◆ (friction61a 3, 61b 6: a numbered "Answered" dot "10" held 9 answers and
# a checkpoint, which the graph draws as a ◆ of its own).
CHECKPOINT = "Checkpoint"


def is_checkpoint(mark: NodeMark) -> bool:
    """A checkpoint saved at a step answered on since: a ◆ of its own, never counted in an "Answered" dot. One that
    is still its branch's newest node is where the run stands: a dot of its state, as the graph's card is."""
    return mark.kind == "checkpoint" and mark.state == "done"


DotShape = tuple[StateName, bool]  # a dot's state and whether it is a checkpoint's ◆


@dataclass(slots=True)
class _Cluster:
    """Marks too close to tell apart: drawn from `place` on, a dot per state (in the order they first occur)."""

    place: float
    by_state: dict[DotShape, list[NodeMark]]
    gap: float  # from one of its dots to the next

    @property
    def end(self) -> float:
        """Where its last dot stands."""
        return self.place + (len(self.by_state) - 1) * self.gap


def merged(
    marks: list[NodeMark],
    fraction: Callable[[datetime], float],
    gap: float,
    width: float = 100 - 2 * INSET,
    node_url: str = "",
) -> list[TimelineDot]:
    """The marks' dots, oldest first; a mark closer than `gap` (percent of the track) to the last dot of the
    cluster before it joins that cluster, which stays at its first mark's place and draws a dot per state it
    holds, `gap` apart, so that the dots drawn are `gap` apart and each has one state. `width`: the share of
    the track the span takes (at). `node_url`: a step page's URL with NODE in place of the node id."""
    clusters: list[_Cluster] = []
    for mark in sorted(marks, key=lambda mark: mark.at):
        place = INSET + min(max(fraction(mark.at), 0.0), 1.0) * width
        shape = (mark.state, is_checkpoint(mark))
        if clusters and place - clusters[-1].end < gap:
            clusters[-1].by_state.setdefault(shape, []).append(mark)
        else:
            clusters.append(_Cluster(place, {shape: [mark]}, gap))
    # A cluster at the end of the span keeps its last dot on it; moving it back must not put it over the
    # cluster before it (the newest step always stands at the span's end), so each cluster, from the last one
    # back, ends at least `gap` before where the next one starts.
    starts: list[float] = []
    limit = INSET + width
    for cluster in reversed(clusters):
        start = max(min(cluster.place, limit - (cluster.end - cluster.place)), INSET)
        starts.append(start)
        limit = start - gap
    dots = []
    for cluster, start in zip(clusters, reversed(starts), strict=True):
        for index, ((state, checkpoint), members) in enumerate(cluster.by_state.items()):
            at_ = f"{start + index * gap:.2f}%"
            if len(members) == 1:
                dots.append(TimelineDot(at_, state, members[0].words, tone=members[0].tone, checkpoint=checkpoint))
                continue
            within = cluster_words(members)
            said = f"{CHECKPOINT}s" if checkpoint else cluster_state(state, members)
            # The state a label in brackets, not a capital mid-sentence (friction19a 5: "within a second, Answered").
            words = f"{within} ({said}): " + "; ".join(mark.words for mark in members)
            steps = tuple(
                ClusterStep(
                    mark.what or mark.words, node_url.replace("NODE", mark.node) if node_url and mark.node else ""
                )
                for mark in members
            )
            tone = members[-1].tone  # the newest's: a merged dot's last node is the one a state can still change
            dots.append(
                TimelineDot(at_, state, words, len(members), members[0].at, within, steps, said, tone, checkpoint)
            )
    return dots


def cluster_words(members: list[NodeMark]) -> str:
    """What a numbered dot stands for: "3 steps within 0.02 s" (the time from its first node to its last); its
    checkpoints and the run's end said apart, as they are no steps ("6 steps and 1 checkpoint within 151 ms")."""
    spread = (max(mark.at for mark in members) - min(mark.at for mark in members)).total_seconds()
    kinds = [mark.kind for mark in members]
    steps = kinds.count("answered") + kinds.count("unanswered")
    checkpoints = kinds.count("checkpoint")
    parts = [nodes_words(steps)] if steps else []
    parts += [f"{checkpoints} checkpoint{'' if checkpoints == 1 else 's'}"] if checkpoints else []
    parts += ["the run's end"] if "end" in kinds else []
    said = " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)
    return f"{said} {within_words(spread)}"


def within_words(spread: float) -> str:
    """How close a dot's nodes are, as a person counts time (friction17b 16: "within 51 ms" is a developer's
    precision): "within a second", "within a minute", then "within 3 min", "within 2 h"."""
    if spread < 1:
        return "within a second"
    if spread < 60:
        return "within a minute"
    return f"within {time_axis.lasted(spread)}"


def cluster_state(state: StateName, members: list[NodeMark]) -> str:
    """What a numbered dot's colour says of all it holds, and no more: the legend's word for green, "Answered"
    (timeline_marks.ANSWERED), for steps answered and the checkpoints among them (Done's green is the graph's
    "answered": a step answered on a branch left behind since is one too, friction16a 2; friction18a 3: the
    legend said "Answered", the list "Done"), not "Done", which reads as "finished" (friction16b 16) and stays
    a cluster's holding the run's end; then the branches it mixes ("Answered, on branches 1, 2 and 3"), so that
    one colour is not read as one branch."""
    answered = state == "done" and all(mark.kind != "end" for mark in members)
    said = ANSWERED if answered else members[-1].word or states.label(state)
    numbers = sorted({mark.branch for mark in members if mark.branch is not None})
    return f"{said}, on {branch_summary.numbers_words(numbers)}" if numbers else said


def state_counts(marks: list[NodeMark]) -> list[StateCount]:
    """The states the row's dots show, most urgent first, by name only: a count per state ("Done (8)") counted
    dots, a checkpoint's too, beside a duration line that counts answered steps (fourteenth review, item 4)."""
    ordered = sorted(marks, key=lambda mark: mark.at)
    shown = {mark.state: mark for mark in ordered if not is_checkpoint(mark)}  # the newest's tone and word
    found = [
        StateCount(state, _legend_label(shown[state]), shown[state].tone) for state in states.ORDER if state in shown
    ]
    saved = [mark for mark in ordered if is_checkpoint(mark)]
    if saved:  # the ◆'s key, after the states' dots
        found.append(StateCount(saved[-1].state, CHECKPOINT, saved[-1].tone, checkpoint=True))
    return found


def _legend_label(mark: NodeMark) -> str:
    """A legend's word for a dot's colour: green is "Answered" (a step answered, on any branch), not the
    state's "Done", which the graph's pill uses for a finished branch (friction17b 13); a refused step's is its
    pill's word, "Retrying" or "Agent stopped" (NodeMark.word, friction65b 1), never "Refused"."""
    return ANSWERED if mark.state == "done" else mark.word or states.label(mark.state)


@dataclass(frozen=True, slots=True)
class StepCounts:
    """What a timeline's dots stand for, counted as the run page's Steps card counts (friction13 item 3): the
    steps reached, of which answered (the card's "4 steps answered") and not (a branch's pending step); the
    checkpoints apart, as they are not steps; the run's end ("Complete") not at all; over how many runs."""

    answered: int = 0
    unanswered: int = 0
    checkpoints: int = 0
    runs: int = 1

    @classmethod
    def of(cls, marks: list[NodeMark], runs: int = 1) -> StepCounts:
        kinds = [mark.kind for mark in marks]
        return cls(kinds.count("answered"), kinds.count("unanswered"), kinds.count("checkpoint"), runs)

    @classmethod
    def of_runs(cls, trees: Iterable[RunBranches]) -> StepCounts:
        """The counts of every run of `trees`, as a session's timeline sums its rows (the import's message says
        them, not the bundle's events, a word the dashboard never defines: friction28a 10)."""
        found = timeline_marks.marks(list(trees), {})
        return cls.of([mark for run in found.values() for mark in run], runs=len(found))

    @property
    def reached(self) -> int:
        """The steps reached, answered or not."""
        return self.answered + self.unanswered

    def __add__(self, other: StepCounts) -> StepCounts:
        return StepCounts(
            self.answered + other.answered,
            self.unanswered + other.unanswered,
            self.checkpoints + other.checkpoints,
            self.runs + other.runs,
        )

    @property
    def words(self) -> str:
        """ "4 steps answered", "2 steps reached (1 answered)", "13 steps reached in 2 runs (12 answered)", and
        " and 1 checkpoint" after them when there are any. "Reached", so that the count is not read as the
        workflow's ("step 2 of 3" beside "2 steps", friction17b 13)."""
        steps = self.reached
        runs = f" in {self.runs} runs" if self.runs > 1 else ""
        if self.unanswered == 0:
            # "0 steps answered" too: a bare "0 steps" beside a branch's pending step read as no step at all.
            said = f"{nodes_words(steps)} answered{runs}"
        else:
            said = f"{nodes_words(steps)} reached{runs} ({self.answered} answered)"
        if self.checkpoints:
            said += f" and {self.checkpoints} checkpoint{'' if self.checkpoints == 1 else 's'}"
        return said


# The narrowest wide track (px, at a desktop's narrowest: dashboard.css shows it from 40rem), a quiet word's
# letter at 12 px, and a dot's width: whether a row's quiet words fit on its tail, clear of its newest dot.
WIDE_TRACK_PX = 700
QUIET_CHAR_PX = 6.6
DOT_PX = 10
# Activity this long after a run's newest step is something its agent recorded since (a refused answer, a tool
# call): the row's quiet words say when; less is the same moment recorded twice.
ACTIVE_SINCE = 60.0


def quiet_words(idle_for: float, active: datetime | None, newest: datetime, now: datetime) -> tuple[str, bool]:
    """A standing row's quiet words: "no new step for 50 min", and, when its agent recorded something since its
    newest step, when ("no new step for 20 min (active 5 min ago)"), so that a Working pill, which counts any
    activity, never stands beside words that read as a silent agent (friction62a, 62b: "Working" beside "no step
    for 30 min"). With whether they say that too (then too long for the row's tail: TimelineRow.quiet_below)."""
    said = f"no new step for {time_axis.lasted(idle_for)}"
    if active is None or (active - newest).total_seconds() < ACTIVE_SINCE:
        return said, False
    ago = time_axis.ago(active, now) or f"{time_axis.lasted((now - active).total_seconds())} ago"
    return f"{said} (active {ago})", True


def quiet_stretch(moments: list[datetime]) -> tuple[datetime, datetime] | None:
    """The stretch of the timeline cut out by a break (from, to), or None: the longest quiet one between two
    moments drawn (runs' starts, dots, and now for a standing session), when it lasted longer than BREAK_AFTER and
    than BREAK_SHARE of the rest, so that the rest, the activity, takes the track's width. What is drawn to scale
    spans a few minutes at least (friction60a 10): the cut then ends earlier, or, at the axis's end, starts later."""
    if len(moments) < 2:
        return None
    gaps = [(later - earlier).total_seconds() for earlier, later in itertools.pairwise(moments)]
    longest = max(range(len(gaps)), key=lambda index: gaps[index])
    total = (moments[-1] - moments[0]).total_seconds()
    quiet = gaps[longest]
    if quiet <= BREAK_AFTER or quiet <= (total - quiet) * BREAK_SHARE:
        return None
    begins, ends = moments[longest], moments[longest + 1]
    if ends == moments[-1]:
        begins += timedelta(seconds=max(MIN_SHOWN - (total - quiet), 0.0))
    else:
        ends -= timedelta(seconds=max(SHOWN_AFTER_BREAK - (moments[-1] - ends).total_seconds(), 0.0))
    return (begins, ends) if ends > begins else None


def timeline_page(
    detail: SessionDetail,
    run_url: str,
    selected_run: str | None,
    marks: dict[str, list[NodeMark]],
    now: datetime,
    node_url: str = "",
) -> TimelinePage:
    """`now`: the present, where a session with a run that still stands reaches to (after the gap); `node_url`: a
    step page's URL with NODE in place of the node id, which a numbered dot's list links each of its steps to."""
    names = {run.run_id: run.workflow_name for run in detail.runs}
    standing = {run.run_id for run in detail.runs if run.state in STANDING}
    # Only a session whose runs all ended says how long it "took" (friction63a 3: "took under a minute" over two
    # runs that waited for an agent read as finished work).
    ended = all(run.state in states.FINISHED for run in detail.runs)
    # A row quiet for the stall minutes says so on its tail even where the session's line says the same span, as a
    # stalled run's always is (friction63a 9: a stalled row's dashed line to now had no words, a 150-step run's had).
    stall_at = clock.stall_cutoff(now)
    # Whose move each run is, as its line in the page's head says it (a blocked run whose agent stopped is
    # the person's), else by its state.
    # A run's row starts where the run started (friction61a false 2: a run card said "started 50 min ago", its row
    # "under a minute" from its first dot), or at its first step if that is earlier (an imported run).
    run_starts = {run.run_id: run.created_at for run in detail.runs}
    # Each run's last activity (what Working and Stalled are judged by): its agent may have recorded something
    # after its newest step, which the row's quiet words then say (friction62a, 62b: "Working" beside "no step").
    activity = {run.run_id: moment for run in detail.runs if (moment := getattr(run, "updated_at", None)) is not None}

    def began_at(lane: TimelineLane) -> datetime | None:
        created = run_starts.get(lane.run_id)
        if lane.first_at is None or created is None:
            return lane.first_at
        return min(lane.first_at, created)

    steps_from = [lane.first_at for lane in detail.timeline if lane.first_at is not None]
    starts = [moment for lane in detail.timeline if (moment := began_at(lane)) is not None]
    recorded = [lane.last_at for lane in detail.timeline if lane.last_at is not None]
    # The gap rule: a run that still stands reaches to now, after a gap; a session that ended has none.
    gapped = bool(recorded) and any(lane.run_id in standing for lane in detail.timeline if lane.last_at)
    start = min(starts).astimezone(UTC) if starts else None
    first_step = min(steps_from).astimezone(UTC) if steps_from else None
    newest = max(recorded).astimezone(UTC) if recorded else None
    scaled = (newest - start).total_seconds() if start is not None and newest is not None else 0.0
    quiet_for = max((now - newest).total_seconds(), 0.0) if gapped and newest is not None else 0.0
    # The break rule: the longest quiet stretch, before the first step, between two, or since the newest, is cut
    # out when long (friction62a 3: a run started 50 min before a burst of steps piled them at the axis's end).
    moments = sorted({*starts, *(mark.at for run in marks.values() for mark in run), *([now] if gapped else [])})
    cut = quiet_stretch([moment.astimezone(UTC) for moment in moments])
    broken = cut is not None
    trailing = broken and gapped and cut is not None and cut[1] >= now
    reach = scaled + quiet_for if gapped else scaled  # the seconds from the start to the axis's end
    width = 100 - 2 * INSET

    def place(moment: datetime) -> float:
        """Where a moment lies on the track, in percent: to scale, a cut stretch squeezed (GAP_SHARE, CUT_SHARE)."""
        if start is None or reach <= 0:
            return INSET
        seconds = (moment - start).total_seconds()
        if cut is None:
            return INSET + min(max(seconds / reach, 0.0), 1.0) * width
        before, after = (cut[0] - start).total_seconds(), (cut[1] - start).total_seconds()
        squeezed = GAP_SHARE if trailing else CUT_SHARE
        rate = (width - squeezed) / max(reach - (after - before), 1e-9)
        if seconds <= before:
            shown = max(seconds, 0.0) * rate
        elif seconds < after:
            shown = before * rate + (seconds - before) / (after - before) * squeezed
        else:
            shown = before * rate + squeezed + (seconds - after) * rate
        return INSET + min(max(shown, 0.0), width)

    def fraction(moment: datetime) -> float:
        return (place(moment) - INSET) / width

    def crosses_cut(begins: float, ends: float) -> bool:
        """Whether a row's line from `begins` to `ends` (fractions of the track) runs across the break: the one at
        the axis's end stands just past its start, one before it just before its end (as the axis draws them)."""
        if cut is None:
            return False
        if trailing:
            return ends > fraction(cut[0])
        return begins <= fraction(cut[0]) and ends >= fraction(cut[1])

    rows: list[TimelineRow] = []
    total: StepCounts | None = None
    for lane in detail.timeline:
        name = names.get(lane.run_id) or lane.label
        count = len(lane.points)
        took = when = until = quiet = quiet_at = narrow_quiet = ""
        below = False
        began = began_at(lane)  # when the run started: its line starts there, before its first dot
        if began is not None and lane.last_at is not None:
            took = time_axis.lasted((lane.last_at - began).total_seconds())
            first, last = began.astimezone(UTC), lane.last_at.astimezone(UTC)
            when = f", {first:%Y-%m-%d %H:%M:%S} UTC to {last:%Y-%m-%d %H:%M:%S} UTC ({took})"
            if lane.run_id in standing and gapped:
                until = at(1.0)  # now, at the end of the gap
                when += ", still going"
                # An open run is measured up to now, as its tail is drawn (friction60b 8: a run stalled for 45 min
                # read "under a minute"): its steps' span alone is no run's length while it still stands.
                took = time_axis.lasted(max((now - began).total_seconds(), 0.0))
                idle_for = max((now - lane.last_at).total_seconds(), 0.0)
                # The summary line says how long the session went without a step; a row whose own quiet
                # stretch is about that one says nothing more (a run quiet for notably longer says its own).
                longer = idle_for - quiet_for >= max(QUIET_MARGIN, quiet_for * QUIET_MARGIN_SHARE)
                if longer or lane.last_at <= stall_at:
                    narrow_quiet, below = quiet_words(idle_for, activity.get(lane.run_id), lane.last_at, now)
                    quiet = "" if below else narrow_quiet
        own = marks.get(lane.run_id, [])
        counted = StepCounts.of(own)
        total = counted if total is None else total + counted
        dots = merged(own, fraction, MERGE_WIDE, width, node_url)
        narrow_dots = merged(own, fraction, MERGE_NARROW, width, node_url)
        if quiet:
            # Ending where its tail ends, at now, as far from its newest dot as drawn at either width as it can
            # stand; a tail too short for them has them on a line under the track (r63: "no new step for 24 min"
            # centred on a short tail ran past the track's end).
            drawn = max((float(dot.at.rstrip("%")) for dot in [*dots, *narrow_dots]), default=INSET)
            quiet_at = f"{100 - INSET:.2f}%"
            if (100 - INSET - drawn) / 100 * WIDE_TRACK_PX < len(quiet) * QUIET_CHAR_PX + 2 * DOT_PX:
                quiet, below = "", True
        start_at = fraction(began) if began is not None else 0.0
        end_at = fraction(max(mark.at for mark in own)) if own else 0.0
        rows.append(
            TimelineRow(
                run_id=lane.run_id,
                label=name,
                href=run_url.replace("RUN", lane.run_id),
                took=f"{time_axis.unbroken(took)} · {counted.words}" if took else counted.words,
                nodes=count,
                tooltip=f"{name} ({lane.run_id}): {counted.words}{when}",
                start=at(fraction(began), width) if began is not None else dots[0].at if dots else at(0),
                end=at(fraction(max(mark.at for mark in own)), width) if own else at(0),
                until=until,
                dots=dots,
                narrow_dots=narrow_dots,
                states=state_counts(own),
                selected=lane.run_id == selected_run,
                quiet=quiet,
                quiet_at=quiet_at,
                narrow_quiet=narrow_quiet,
                quiet_below=below,
                broken=crosses_cut(start_at, 1.0 if until else end_at),
            )
        )
    counts = total or StepCounts(runs=0)
    if start is None or newest is None or first_step is None:
        return TimelinePage(rows, [], "", TimelineSummary(counts.words))
    steps_took = (newest - first_step).total_seconds()  # what the caption says: first step to newest
    # The axis's stretches drawn to scale, each with its own ticks (a break between two): before a break at the
    # axis's end, the ticks stay clear of the "//" as of "now" (`newest`); after one before it, they run on to now.
    ends = now if gapped and now > newest else newest
    if cut is None:
        stretches = [(start, ends)]
    elif trailing:
        stretches = [(start, cut[0])]
    else:
        stretches = [(start, cut[0]), (cut[1], ends)]
    shown: list[tuple[time_axis.Tick, str, float]] = []
    for begins, until_ in stretches:
        newer = newest if until_ > newest else None
        axis = time_axis.axis(begins, until_, newest=newer)
        # Beside a break the stretch takes part of the width (the rest is the cut's): its labels keep their room.
        share = (place(until_) - place(begins)) / width if cut is not None else 1.0
        narrow = time_axis.dot_ticks(begins, until_, newest=newer, share=max(share, 1e-3))
        both = {(tick.at, tick.label) for tick in narrow}
        shown += [(tick, "" if (tick.at, tick.label) in both else "wide", axis.step) for tick in axis.ticks]
        wide = {(t.at, t.label) for t in axis.ticks}
        shown += [(tick, "narrow", axis.step) for tick in narrow if (tick.at, tick.label) not in wide]
    # In order along the axis: times.js says a tick's day where it differs from the one shown before it.
    shown.sort(key=lambda item: item[0].at)
    ticks = []
    for tick, only, every in shown:
        along = fraction(tick.at)
        anchor = "start" if along < 0.1 else "end" if along > 0.9 else "middle"
        step = every if tick.precision is None else tick.precision
        # "01 Dec 06:00", "25 Nov": time_axis says the day where it turns or the span covers days.
        ticks.append(
            TimelineTick(f"{place(tick.at):.2f}%", tick.label, tick.at.isoformat(), step, anchor, only, tick.day)
        )
    until_words = newest.strftime("%H:%M:%S" if newest.date() == first_step.date() else "%Y-%m-%d %H:%M:%S")
    caption = f"{first_step:%Y-%m-%d %H:%M:%S} to {until_words} UTC · {time_axis.duration(steps_took)}"
    gap = f"{place(cut[0]):.2f}%" if cut is not None else ""
    gap_end = f"{place(cut[1]):.2f}%" if cut is not None and not trailing else ""
    # The first answer's moment, said apart from the start only where it reads as another time (to the minute).
    answers = [mark.at for run in marks.values() for mark in run if mark.kind == "answered"]
    answered = min(answers).astimezone(UTC) if answers else None
    if answered is not None and answered.replace(second=0, microsecond=0) == start.replace(second=0, microsecond=0):
        answered = None
    lasted = (newest - start).total_seconds()  # what the summary line says: from the start to the newest step
    summary = TimelineSummary(
        counts.words,
        start,
        newest,
        standing=gapped,
        quiet=time_axis.lasted(quiet_for) if gapped else "",
        took=time_axis.lasted(lasted) if lasted > 0 and not gapped and ended else "",
        answered=answered,
        open=not gapped and not ended,
    )
    return TimelinePage(rows, ticks, caption, summary, gap, gap_end=gap_end)
