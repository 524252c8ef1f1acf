"""A run's branch graph as its page shows it, laid out here so that the template only prints it: the
drawing (graph_drawing.for_screen, every node a link) and its legend. Its branches are switched from the run
card's list of other branches (and from the drawing's cards, or the phone list's branch headings): no second
row of links under the drawing.

A run of one branch (no fork yet) needs no drawing: the page shows its steps as a compact stepper instead
(`stepper`, the same rows as the phone's list), a row of steps that wraps within its box, the current one
marked once.

At phone width a drawing of several branches would shrink its text below reading size, so the page
shows the same graph as a list instead (`sections`, switched by dashboard.css at the width where tables
turn into cards): a section per branch, saying in words where it forked, and a row per step with its
state's colour and word; the straight stretches the drawing collapses are one row here too. The shown
branch's section lists no rows: the Steps card right under the graph lists its steps, so its section says
how many and links there (`BranchSection.listed_below`).

The door gives the two URLs it routes (the run's page, and a node's page with NODE in place of the id);
everything else comes from the run's detail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models.fields.json import KeyTransform

from runs.contract.dashboard import GraphNode, RunDetail, RunGraph, StateName
from runs.models import Node
from runs.readmodels import (
    attention,
    branches,
    clock,
    fork_point,
    graph,
    graph_drawing,
    graph_story,
    outline_words,
    run_view,
    skipped_steps,
    states,
    step_places,
)
from runs.readmodels.timeline_page import StepCounts
from runs.store.pinned import compiled_workflow
from workflows_app.engine.tree import top_steps


@dataclass(frozen=True, slots=True)
class StepRow:
    """A step of a branch in the phone's list: a node, or a stretch of them the drawing collapses too."""

    # The one locator (StepPlace.brief), whole: a row wraps where a card cannot: "step 4 of 8 · round 2 of 3";
    # "step 2 of 3 · rounds 5-149" (a stretch); "" at the end.
    words: str
    title: str  # the step's title in full; for a stretch, how many steps it stands for
    state: StateName  # its colour: the branch's state on the branch's last node, "done" (answered) before it
    state_label: str  # that state in the dashboard's words: "Working", "Answered"
    marks: tuple[str, ...]  # what else the drawing marks on its card: "↺ redone", "started by hand", "↻ 3"
    href: str  # its node page (the branch's page for another branch's last node); empty for a stretch
    is_tip: bool  # the branch's last node: the row that carries the branch's state
    is_current: bool = False  # the node the page shows (its branch's section says so once, in its heading)
    checkpoints: tuple[str, ...] = ()  # the pages of the checkpoints saved at its step (graph_story.py): a mark each
    # Whose move its state is (attention.move_of_branch on the tip, "nobody" before it): its dot's colour, as the
    # pills' (dashboard.css): red only where the move is yours, so a blocked step the agent retries is not red.
    move: states.Move = "nobody"
    # A step the branch passed over (skipped_steps.py), where it would stand: a row of its own, a hollow dashed dot,
    # as the drawing's dashed placeholder (friction16b 6); `title` its step's, `words` "step 3 skipped".
    skipped: bool = False
    skip_key: str = ""  # a skipped row's legend entry (graph_drawing.Skipped.key): "skipped"
    complete: bool = (
        False  # the end card of a branch that went through its workflow ("Complete"): keyed as the drawing's
    )

    @property
    def tone(self) -> states.Tone:
        """Its dot's colour family (states.tone), as its pill's: amber for your move, a Blocked one too."""
        return states.tone(self.state, self.move)

    @property
    def notes(self) -> str:
        """Its marks in one phrase, for the stepper's line: "loop round 3 · started by hand"."""
        return " · ".join(self.marks)


@dataclass(frozen=True, slots=True)
class BranchSection:
    number: int
    state: StateName
    state_label: str
    forked: str  # where it grew from: "redoes Plan (step 2 of 8), from branch 1"; "" for branch 1
    shown: bool  # the branch the page shows
    href: str  # the run's page showing this branch
    rows: list[StepRow]
    # The shown branch's steps are the Steps card's, right under the graph: its box says how many and points
    # there ("7 steps answered") instead of listing them twice (listed_below); "" for every other branch,
    # whose rows are listed nowhere else, and for a shown branch with no answered step yet.
    listed_below: str = ""

    @property
    def folded(self) -> bool:
        """Folded to its heading's one line in the phone's list: a branch settled (done, left behind, canceled)
        that the page does not show (friction25b 11: a finished branch 1 came first, nine rows long)."""
        return not self.shown and self.state in states.SETTLED

    @property
    def stands_at(self) -> str:
        """Where a folded branch stands, on its folded heading's line: its last step's title and place ("Review
        storage · step 4 of 8 (area 2 of 2)"), as the desktop's list says it; folded, its rows that say it are
        hidden (friction61b 10: "Branch 2 · Left behind" alone). "" for a branch shown open."""
        if not self.folded:
            return ""
        # Its last step with a place: the row after it, "Complete", says no more than its pill ("Done").
        tip = next((row for row in reversed(self.rows) if row.words and not row.skipped), None)
        return f"{tip.title} · {tip.words}" if tip else ""

    @property
    def aside(self) -> bool:
        """No agent works on it any more (left behind, canceled): its rows' marks are dashed, as the drawing's
        cards of such a branch (graph_drawing.NOBODY_STATES; friction25b 4)."""
        return any(graph_drawing.STATE_NAMES[key] == self.state for key in graph_drawing.NOBODY_STATES)

    @property
    def box_rows(self) -> list[StepRow]:
        """The rows its box lists: every row, but where its answered steps are listed below, its last alone:
        where the branch stands now, its pending step (friction17a 15: the box never said it)."""
        return self.rows[-1:] if self.listed_below else self.rows

    @property
    def marks(self) -> frozenset[str]:
        """The drawing's fills and border (graph_drawing.LEGEND_WORDS keys) its rows' step marks draw, each a card
        in small (dashboard.css): a fill by the row's state, the border dashed on a branch no agent works on, a branch
        state's card where the row's mark draws it alike (LISTED_FILLS). A state the mark draws otherwise (Stalled's
        dashed card, Blocked's "!") is said in words by the branch's heading, not keyed here."""
        drawn = {LISTED_FILLS[row.state] for row in self.box_rows if not row.skipped and row.state in LISTED_FILLS}
        drawn |= {row.skip_key for row in self.box_rows if row.skipped}
        # Its rows' glyphs, keyed where they are drawn (friction62b 8: "◆ checkpoint" and "↺ redone" unexplained).
        if any(row.checkpoints for row in self.box_rows):
            drawn.add("checkpoint-mark")
        if any(graph_drawing.AGAIN_TAG in row.marks for row in self.box_rows):
            drawn.add("again")
        if any(row.complete for row in self.box_rows):
            drawn.add("complete")
        if self.aside and any(not row.skipped for row in self.box_rows):
            drawn.add("aside")
        return frozenset(drawn)


# The graph card's heading, one at every width (friction62b 8: "Branches" on a phone, "Branch graph" on a desktop read
# as two sections): "Branches", true of the drawing and of the phone's list alike (friction60b 9: "Branch graph" over
# a list, not a graph).
HEADING = "Branches"


# The phone list's step marks filled as the drawing's cards are (dashboard.css), by the row's state: a legend key each.
# A branch state whose card the list's mark draws alike (a replaced branch's amber dashed, a paused or waiting one's
# amber) is keyed by its state's entry, its swatch shown (friction60a 3: the list's key must show the marks it draws).
LISTED_FILLS: dict[StateName, str] = {
    "done": "answered",
    "running": "pending",
    "left_behind": "unreached",
    "canceled": "unreached",
    "superseded": "state-superseded",
    "paused": "state-paused",
    "needs_you": "state-waiting",
}


@dataclass(frozen=True, slots=True)
class KeyRow:
    """A legend entry as the "?" shows it: `kind` says at which width (dashboard.css): "said-by-rule" (at none: the
    fill-and-border rule says it), "listed" (at every width, its swatch too: a mark the phone's list draws),
    "worded" (at every width, without its card swatch: a branch state its heading names in words), "drawing-only"
    (on a desktop alone: a mark of the drawing the phone's list does not draw, or says in its own words)."""

    entry: graph_drawing.LegendEntry
    kind: str


@dataclass(frozen=True, slots=True)
class GraphPage:
    drawing: str  # SVG; graph_drawing escapes every text it holds ("" for a stepper)
    legend: list[graph_drawing.LegendEntry]  # every mark the drawing holds (the "?" beside its heading)

    @property
    def state_key(self) -> list[graph_drawing.LegendEntry]:
        """The branch states the drawing colours and the marks no word on a card explains (a fill, a border,
        "redone", a checkpoint), always in sight beside it: its compact legend; a state drawn as a step's fill is
        not (graph_drawing.DRAWN_AS_ANSWERED: its card's pill says it)."""
        return [entry for entry in self.legend if entry.in_sight]

    @property
    def key_rows(self) -> list[KeyRow]:
        """The legend behind the "?", each entry with the widths it shows at (friction r59: the phone's key
        explained six marks of the drawing its list does not draw): on a phone, only the fills and border its
        list's step marks draw (BranchSection.marks) and the branch states its headings name."""
        listed = frozenset().union(*(section.marks for section in self.sections))

        def kind(entry: graph_drawing.LegendEntry) -> str:
            if entry.said_by_rule:
                return "said-by-rule"
            if entry.key in listed:
                return "listed"
            return "worded" if entry.tag else "drawing-only"

        return [KeyRow(entry, kind(entry)) for entry in self.legend]

    @property
    def other_marks(self) -> list[graph_drawing.LegendEntry]:
        """The rest of the legend, behind the "?": the marks whose words explain themselves."""
        return [entry for entry in self.legend if not entry.in_sight]

    sections: list[BranchSection]  # the same graph as a list, for phone width
    stepper: bool = False  # one branch, no fork: its section alone, as a stepper at every width
    upcoming: list[Upcoming] | None = None  # a stepper's steps still to come, after its current one

    @property
    def listed(self) -> list[BranchSection]:
        """The sections in the order the phone's list gives them: the branch shown first, then the others by
        number (friction25b 11: a finished branch 1, nine rows long, came before the one the reader opened). In
        the document, not only on screen, so a screen reader and the tab key meet them as a reader sees them."""
        return sorted(self.sections, key=lambda section: not section.shown)


@dataclass(frozen=True, slots=True)
class Upcoming:
    """A step of the outline the run has not reached yet: a stepper shows it greyed after the current one, so
    that "step 2 of 8" shows what is left."""

    words: str  # its place: "step 5 of 8"
    title: str  # as the rows will name it (step_places.ahead: "Review each area"), other placeholders in brackets
    never: bool = False  # the run was canceled before it: never reached, not still to come
    # When it runs, in the catalog's words ("complexity is 'complex'"); "" when always: the chip says "only if ...",
    # dotted, so it does not read as a step that will happen (friction62b 15)
    condition: str = ""

    @property
    def state_words(self) -> str:
        return "Never reached: the run was canceled" if self.never else "Still to come"


def upcoming(detail: RunDetail) -> list[Upcoming]:
    """The outline's entries after the one the run's newest node waits at (on a canceled run, the steps it
    never reached, greyed the same way, so every run shows all its steps); none once the run is finished, or
    when its place is not known. A step that runs only under a condition is listed too, with its condition in words
    (friction62b 15); a loop's item said from the newest context (step_places.ahead)."""
    tip = next((node for node in detail.graph.nodes if node.node_id == detail.graph.tip), None)
    if tip is None or tip.place is None or detail.run.status == "complete":
        return []
    outline = top_steps(compiled_workflow(detail.run.workflow_hash))
    never = detail.run.status == "canceled"
    context = _context_of(tip.node_id)  # the newest values: a loop still to come says its items when they are set
    found = []
    for index, step in enumerate(outline[tip.place.position : tip.place.length]):
        for ahead in step_places.ahead(step, tip.place.position + 1 + index, tip.place.length, context):
            title = outline_words.title_words(ahead.title)
            found.append(Upcoming(ahead.words, title, never=never, condition=ahead.condition))
    return found


def _context_of(node_id: str) -> dict[str, Any]:
    """The context of node `node_id` (its public id), read alone, not its whole engine state."""
    context = (
        Node.objects.filter(public_id=run_view.parse_node_id(node_id))
        .values_list(KeyTransform("context", "engine_state"), flat=True)
        .first()
    )
    return context if isinstance(context, dict) else {}


def graph_page(detail: RunDetail, run_url: str, node_url: str) -> GraphPage:
    """The graph of `detail`'s run; `node_url` has NODE where a node's id goes. Drawn, linked and listed as
    graph_story tells it (a step answered again sits on the branch that answered it)."""
    story = graph_story.told(detail.graph)
    shown_card = story.card(detail.branch_tip) if detail.branch_tip else detail.branch_tip
    detail = detail.model_copy(update={"graph": story.graph, "branch_tip": shown_card})
    on_path = (
        set(graph.path_to(detail.branch_tip, {n.node_id: n.parent_id for n in detail.graph.nodes}))
        if detail.branch_tip
        else set()
    )

    def href(node: GraphNode) -> str:
        # A leaf off the shown branch shows its branch; any other node opens its page.
        if node.is_leaf and node.node_id not in on_path:
            return f"{run_url}?tip={story.end(node.node_id)}"
        return node_url.replace("NODE", story.stored(node.node_id))

    def checkpoint_hrefs(card: str) -> tuple[str, ...]:
        # A checkpoint's node is real (it can be resumed from): its mark opens its page.
        return tuple(node_url.replace("NODE", mark.node_id) for mark in story.checkpoints.get(card, []))

    nodes, lanes = len(detail.graph.nodes), detail.graph.lanes
    title = (
        f"Branch graph of {detail.run.workflow_name}: {nodes} node{'' if nodes == 1 else 's'} in {lanes} "
        f"branch{'' if lanes == 1 else 'es'}, one column per step, one row per branch"
    )
    states = {story.card(node): state for node, state in tip_states(detail).items()}
    stepper = lanes == 1
    # The steps passed over, where they would stand: the stepper's too, a dashed chip "step 3 skipped" (friction62b
    # 15: a conditional step must read as one that may not happen, and one that did not as skipped, not missing).
    passed = skipped_steps.into_nodes({story.stored(n.node_id) for n in detail.graph.nodes})

    def skipped(card: str) -> tuple[graph_drawing.Skipped, ...]:
        # The steps passed over on the way into a card's node (an answered-again card's: its node's).
        return tuple(
            graph_drawing.Skipped(step.short, step.words, step.title, step.how)
            for step in passed.get(story.stored(card), [])
        )

    return GraphPage(
        drawing=""
        if stepper
        else graph_drawing.for_screen(
            detail.graph,
            shown=detail.branch_tip,
            href=href,
            title=title,
            states=states,
            again=story.redo_cards,
            checkpoints=checkpoint_hrefs,
            skipped=skipped,
        ),
        legend=graph_drawing.legend(
            detail.graph,
            shown=detail.branch_tip,
            states=states,
            checkpoints=bool(story.checkpoints),
            again=story.redo_cards,
            screen=True,
            skipped=[] if stepper else drawn_skips(detail.graph, detail.branch_tip, skipped),
        ),
        sections=branch_sections(detail, run_url, href, states, story, checkpoint_hrefs, skipped),
        stepper=stepper,
        upcoming=upcoming(detail) if stepper else [],
    )


def drawn_skips(
    graph: RunGraph, shown: str | None, skipped: Callable[[str], tuple[graph_drawing.Skipped, ...]]
) -> set[str]:
    """The legend keys of the skipped-step placeholders the drawing holds: on the line into a card drawn from a card
    drawn (graph_drawing._draw), not in a stretch it collapses."""
    drawn = {column.first for column in graph_drawing.screen_columns(graph, shown=shown) if not column.is_gap}
    depth = {node.node_id: node.depth for node in graph.nodes}
    return {
        step.key
        for node in graph.nodes
        if node.parent_id in depth and node.depth in drawn and depth[node.parent_id] in drawn
        for step in skipped(node.node_id)
    }


# A panel a person may act on (AttentionPanel.kind) says more than the branch's status: it wins.
PANEL_STATES = {
    "stalled": "stalled",
    "paused": "paused",
    "waiting_for_user": "waiting",
    "canceled": "canceled",
    "left_behind": "left-behind",
}
STATUS_STATES = {"blocked": "blocked", "complete": "done", "canceled": "canceled"}
# An open branch's own state where it is not the run's working one (a branch superseded: friction19b 2).
_OPEN_STATES = {"paused": "paused", "superseded": "superseded"}
# A tip's state (graph_drawing.STATE_WORDS's keys, class names of the drawing) as a badge names it.
BADGE_STATES: dict[str, StateName] = graph_drawing.STATE_NAMES


def tip_states(detail: RunDetail) -> dict[str, str]:
    """Each branch tip's state (a key of graph_drawing.STATE_WORDS), from the branch outcomes and the
    panels the run page shows: one meaning, drawn where the branch ends."""
    states: dict[str, str] = {}
    for outcome in [*([detail.branch] if detail.branch is not None else []), *detail.other_branches]:
        state = STATUS_STATES.get(outcome.status)
        if state is None:
            state = "left-behind" if outcome.left_behind else _OPEN_STATES.get(outcome.state, "running")
        states[outcome.tip_node_id] = state
    for panel in detail.panels:
        if panel.node_id is not None and states.get(panel.node_id) != "blocked":
            states[panel.node_id] = PANEL_STATES[panel.kind]
    return states


def tip_moves(detail: RunDetail) -> dict[str, states.Move]:
    """Whose move each branch's tip is, by the one rule the pills read (attention.move_of_branch: a blocked step
    is yours once its agent has stopped, or when it waits for something only you give); a panel's state wins
    over an open branch's status, as in tip_states."""
    cutoff = clock.stall_cutoff()
    outcomes = [*([detail.branch] if detail.branch is not None else []), *detail.other_branches]
    moves = {outcome.tip_node_id: attention.move_of_branch(outcome, cutoff) for outcome in outcomes}
    blocked = {outcome.tip_node_id for outcome in outcomes if outcome.status == "blocked"}
    for panel in detail.panels:
        if panel.node_id is not None and panel.node_id not in blocked:
            moves[panel.node_id] = states.move(panel.state)
    return moves


def fork_words(story: graph_story.Told, first: GraphNode, *, named: bool = False) -> str:
    """Where the branch whose first card is `first` grew from, in the one phrasing of fork_point.py ("redoes
    Review (step 3 of 6)"). `named`: with the branch it grew from, for a list that shows no drawing ("redoes
    Review (step 3 of 6), from branch 1")."""
    return fork_point.of_first(story, first).words(named=named)


def branch_sections(
    detail: RunDetail,
    run_url: str,
    href: Callable[[GraphNode], str],
    tip_state: dict[str, str],
    story: graph_story.Told,
    checkpoint_hrefs: Callable[[str], tuple[str, ...]] = lambda card: (),
    skipped: Callable[[str], tuple[graph_drawing.Skipped, ...]] = lambda card: (),
) -> list[BranchSection]:
    """The graph as a list: a section per branch (branches.py's numbering), its own nodes as rows (from
    the first after the fork to its last), the stretches the screen drawing collapses as one row each."""
    placed = {node.node_id: node for node in detail.graph.nodes}
    gap_of = {
        depth: column
        for column in graph_drawing.screen_columns(detail.graph, shown=detail.branch_tip)
        if column.is_gap
        for depth in range(column.first, column.last + 1)
    }
    on_path = (
        set(graph.path_to(detail.branch_tip, {n.node_id: n.parent_id for n in detail.graph.nodes}))
        if detail.branch_tip
        else set()
    )
    sections = []
    moves = {story.card(node): move for node, move in tip_moves(detail).items()}
    lanes = branches.lanes((node.node_id, node.parent_id, node.lane) for node in detail.graph.nodes)
    branch_of = {node_id: lane.number for lane in lanes for node_id in lane.nodes}
    for lane in lanes:
        tip = placed[lane.tip]
        state = BADGE_STATES.get(tip_state.get(tip.node_id, ""), "done" if tip.is_complete else "running")
        move = moves.get(tip.node_id) or states.move(state)
        rows: list[StepRow] = []
        stretch: list[GraphNode] = []
        for node in (placed[node_id] for node_id in lane.nodes):
            if node.depth in gap_of and node.node_id != tip.node_id:
                stretch.append(node)
                continue
            if stretch:
                rows.append(_stretch_row(stretch))
                stretch = []
            at_tip = node.node_id == tip.node_id
            # Not those before a branch's first step: before the run's, nothing ran; before a later branch's, they
            # led its list and read as that branch's own (friction22a B13: "Step 3 skipped" above the step it
            # redoes). Its fork line says which step it redoes; the drawing keeps their placeholder.
            if node.node_id != lane.nodes[0]:
                rows.extend(_skipped_row(step) for step in skipped(node.node_id))
            rows.append(
                _step_row(
                    node,
                    detail,
                    href,
                    state if at_tip else "done",
                    move=move if at_tip else "nobody",
                    again=node.node_id in story.redo_cards,
                    checkpoints=checkpoint_hrefs(node.node_id),
                )
            )
        if stretch:
            rows.append(_stretch_row(stretch))
        forked = fork_words(story, placed[lane.nodes[0]], named=True) if lane.number > 1 else ""
        shown = tip.node_id in on_path
        sections.append(
            BranchSection(
                number=lane.number,
                state=state,
                state_label=states.label(state),
                forked=forked,
                shown=shown,
                href=f"{run_url}?tip={story.end(tip.node_id)}",
                rows=rows,
                listed_below=answered_split(detail, lane.number, branch_of).words
                if shown and detail.graph.lanes > 1
                else "",
            )
        )
    return sections


@dataclass(frozen=True, slots=True)
class AnsweredSplit:
    """The shown branch's answered steps (the Steps card's list), split where it forked: those answered before
    the fork, which the branches it grew from hold in their own boxes (`shared`, by branch number), and its own.
    Each box counts its own steps once, so the boxes add up to the run's count instead of each counting the
    shared steps again (friction15: "numbers do not add up")."""

    own: StepCounts
    shared: dict[int, StepCounts]

    @property
    def total(self) -> int:
        """Every answered step the Steps card lists, shared or own."""
        return self.own.answered + sum(c.answered for c in self.shared.values())

    @property
    def words(self) -> str:
        """ "3 steps answered: 1 shared with branch 1, 2 on this branch"; "2 steps answered" when none is
        shared; "" when none is answered."""
        if not self.total:
            return ""
        said = StepCounts(answered=self.total).words
        if not self.shared:
            return said
        parts = [f"{c.answered} shared with branch {n}" for n, c in sorted(self.shared.items())]
        return f"{said}: {', '.join(parts)}, {self.own.answered} on this branch"


def answered_split(detail: RunDetail, number: int, branch_of: dict[str, int]) -> AnsweredSplit:
    """The Steps card's answered steps of branch `number` (the shown one), each counted in the box of the branch
    whose lane holds the node its answer led to (`branch_of`: node id to branch number, branches.lanes)."""
    own = 0
    shared: dict[int, int] = {}
    for step in detail.steps:
        if step.kind != "step":
            continue
        holder = branch_of.get(step.child_id or "", number)
        if holder == number:
            own += 1
        else:
            shared[holder] = shared.get(holder, 0) + 1
    return AnsweredSplit(StepCounts(answered=own), {n: StepCounts(answered=c) for n, c in shared.items()})


def steps_counted(detail: RunDetail) -> StepCounts:
    """What the Steps card lists for the shown branch, counted as the timeline counts its dots: the answered
    steps and, apart, the checkpoints ("4 steps answered and 1 checkpoint"; friction13 item 3)."""
    kinds = [step.kind for step in detail.steps]
    return StepCounts(answered=kinds.count("step"), checkpoints=kinds.count("checkpoint"))


def _step_row(
    node: GraphNode,
    detail: RunDetail,
    href: Callable[[GraphNode], str],
    state: StateName,
    *,
    move: states.Move = "nobody",
    again: bool = False,
    checkpoints: tuple[str, ...] = (),
) -> StepRow:
    mark = graph_drawing.loop_mark(node)
    notes = [f"loop round {mark}"] if mark is not None else []  # the drawing's "↻ n", in words
    notes += [graph_drawing.VIA_WORDS[node.via]] if node.via in graph_drawing.VIA_WORDS else []
    # Marked as the drawing marks it (its glyph too); no "latest": the drawing tags none either (friction14), the
    # branch's state in its heading says where the agent works, and "you are viewing" is the shown one's heading.
    notes += [graph_drawing.AGAIN_TAG] if again else []
    return StepRow(
        words=graph_drawing.step_words(node),
        title=node.title or node.step_id or "Step",
        state=state,
        # An answered step's tooltip says "Answered", not the run's "Done" (states.STEP_DONE); a finished branch's
        # end, no step, keeps the branch's word.
        state_label=states.word(state, move) if node.is_complete else states.step_word(state, move),
        marks=tuple(notes),
        href=href(node),
        is_tip=node.is_leaf,
        # A finished branch's end is no step to be at: a plain end marker, not the current step's dark outline
        # (friction63a 13: "Complete" read as the step the run is at). Nor is a canceled branch's last step: it is
        # where it stopped, in its state's colour, no step being worked on (round 64: outlined, it read as current).
        is_current=node.node_id == detail.branch_tip and not node.is_complete and state not in states.FINISHED,
        checkpoints=checkpoints,
        move=move,
        complete=node.is_complete,
    )


def _skipped_row(step: graph_drawing.Skipped) -> StepRow:
    return StepRow(
        words=step.short,
        title=step.title,
        state="done",
        state_label=step.words,
        marks=(),
        href="",
        is_tip=False,
        skipped=True,
        skip_key=step.key,
    )


def _stretch_row(stretch: list[GraphNode]) -> StepRow:
    count = len(stretch)
    return StepRow(
        words=graph_drawing.stretch_words(stretch[0], stretch[-1]),
        title=f"⋯ {count} step{'' if count == 1 else 's'} in a row, without a fork",
        state="done",
        state_label=states.step_word("done", "nobody"),
        marks=(),
        href="",
        is_tip=False,
    )
