"""A run's branch graph as an SVG picture: a labelled card per node, for the dashboard and the PDF.

Pure: from the run's graph (runs.contract.dashboard.RunGraph, laid out by graph.py: a column per
depth, a lane per branch, lane order = branch numbers) to SVG text, with no script and nothing
loaded. Every text put in it is escaped here (step titles come from workflow files and agents).

Each card shows the step's title (up to two lines, then shortened; in full in its tooltip), where its
pending step sits in the workflow's outline in the step list's words (GraphNode.place, step_places.py:
"step 4 of 8 · round 2 of 3"; a checkpoint's card names its step's place too), and what made it when it was not
a step (a checkpoint, an operator fork: "by hand") as far as the card's width holds; a blocked branch's
tip is drawn in red. The shown branch's path is drawn in the accent colour, and the first card of each lane
is headed "Branch N" (the numbering of branches.py). `legend` says which of these marks a drawing holds. Two
ways to draw it:

- `for_screen`: top to bottom like the paper (a page is read down and grows down: the drawing scales to
  the width of its box and is never cut, at 1440 px or 390 px), every node a link, stretches of more
  than a dozen straight steps collapsed, each branch's tip marked with its branch's state (`STATE_WORDS`,
  as a coloured card and a word on it: never colour alone), every graph hanging from one "Start" root (the
  same top on every run), at most one tag beside a card (friction14: eight badges on one graph, two of them
  look-alike dashed pills): its branch's state on a branch's last card, "↺ redone" on the step a branch
  answered again; a checkpoint is no tag but a diamond inside its step's card, in its top right corner
  (`CHECKPOINT_GLYPH`); a branch started by hand says so in words beside its card, no border of its own; a skipped
  step's placeholder stands beside the line into its card, never on a line;
  which card the page shows and which is the newest, the dark outline and the branch states say already (no
  "you are viewing", no "latest" tag), styled by the dashboard's stylesheet through
  class names (its CSP forbids styles in the page), in wider cards whose smallest text is 13px: at 1440 px a
  drawing of three branches keeps every text at 12px or more (SCREEN_CARD_W, TAG_ROOM);
- `for_paper`: top to bottom (a document reads down the page; few branches fit across it), long
  straight stretches collapsed into "⋯ 37 steps", sized to the page, coloured by a <style> of its own
  in a font WeasyPrint has (DejaVu Sans), no links.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from html import escape

from runs.contract.dashboard import GraphNode, RunGraph, StateName
from runs.readmodels import actions, glossary
from runs.readmodels.states import label as state_label

CARD_W = 150  # the paper's cards (the screen's are SCREEN_CARD_W wide: its text is larger)
CARD_H = 56  # two lines of title and the step line
TITLE_CHARS = 19  # what fits a card's width at 12px bold, in a wide font (DejaVu Sans)
TITLE_LINES = 2
SUB_CHARS = 24  # what fits a card's width on its step line, at 10px (DejaVu Sans) or 13px on a screen card
# The locator alone on that line (StepPlace.short): "step 2 of 3 (round 2 of 3)" fits whole, a longer one drops its
# trailing parts (tests/browser/test_graph.py measures it).
LOCATOR_CHARS = 27
# What made a card when it was not a step taken, on the line under its title.
VIA_WORDS = {"checkpoint": "checkpoint", "fork": "started by hand"}
# A card graph_story.py adds: the step a branch answered again after a rewind, drawn on that branch. Its one
# plain phrase wherever it is said (friction13 6: "answered again" read as jargon): the card's tag, the legend, the
# card's tooltip, the steps list's note (run_view) and the PDF's caption (exports/reports/graph_figure.py).
AGAIN_WORDS = "redone"
AGAIN_PHRASE = "redone after branching"
# The screen's glyphs, one shape each (friction14: "redone" and "checkpoint" were both dashed pills): a step redone
# goes back ("↺", counter-clockwise: not the loop's round "↻ n"), a checkpoint is a diamond on its step's card.
AGAIN_GLYPH = "↺"
AGAIN_TAG = f"{AGAIN_GLYPH} {AGAIN_WORDS}"
CHECKPOINT_GLYPH = "◆"
# The step line of a screen card that ends a branch at the workflow's end (its title: "Complete").
COMPLETE_WORDS = "all steps done"


def complete_words(passed: Iterable[Skipped]) -> str:
    """The end card's step line: "all steps done", or what its branch passed over on the way, from the skipped
    steps drawn on its path ("1 step skipped"; friction61b 11: "all steps done" beside "step 3 skipped")."""
    hows = [step.how for step in passed]
    if not hows:
        return COMPLETE_WORDS
    counts = {how: hows.count(how) for how in dict.fromkeys(hows)}
    return ", ".join(f"{n} step{'s' if n > 1 else ''} {how}" for how, n in counts.items())


# A checkpoint saved during a step, as graph_story.py folds it: a mark beside the step's card, not a card.
CHECKPOINT_MARK = "checkpoint"
CHECKPOINT_MARK_TIP = "a checkpoint the agent saved during this step: open it for its notes, or to resume from it"
SHORT_ID_CHARS = 8
# The run's start, drawn on screen as a root above the first cards of every graph (friction14: it came only
# where a branch forked there, so graphs began two ways); branches that forked there (a rewind to the run's
# first step) hang from it, as a fork, not as trees of their own.
START_WORDS = "Start"
START_TIP = "the run's start"
START_FORK_TIP = "the run's start: each branch below it began at the run's first step"
START_W = 64
START_ROOM = 34  # the room above the first cards: the pill and the lines down from it


def short_id(node_id: str | int) -> str:
    """A node id as people read it: its first digits (ids are random; the full one goes in a tooltip)."""
    return str(node_id)[:SHORT_ID_CHARS]


def shorten(text: str, limit: int = TITLE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def title_lines(
    text: str, limit: int = TITLE_CHARS, lines: int = TITLE_LINES, *, first: int | None = None
) -> list[str]:
    """A title in at most `lines` lines of `limit` characters (the first of `first`, where a mark in the card's
    corner takes room from it), broken between words (a word longer than a line is cut); the last line shortened
    with "…" when the rest does not fit."""
    words = text.split()
    out: list[str] = []
    while words and len(out) < lines - 1:
        room = first if first is not None and not out else limit
        line = words.pop(0)
        if len(line) > room:  # one long word: cut it, the rest goes on the next line
            words.insert(0, line[room:])
            line = line[:room]
        while words and len(line) + 1 + len(words[0]) <= room:
            line += " " + words.pop(0)
        out.append(line)
    if words:
        out.append(shorten(" ".join(words), first if first is not None and not out else limit))
    return out or [""]


def step_words(node: GraphNode, *, counted: bool = False) -> str:
    """Where a node's pending step sits, in the short words of the run's step list and its headline
    (StepPlace.brief: "step 2 of 3", "step 2 of 3 (round 2 of 3)" in a loop: friction19b 9, the card and the
    heading say the same); a node whose state holds no outline place says its step as the step list then does
    ("step 5"); a completed node waits at no step: "" (its title, "Complete", says it).

    `counted`: as the reports' step lists number steps, counted along the branch (branches.step_numbers,
    a checkpoint keeps its step's number): "step 5", "after step 9" for a completed node."""
    if counted:
        return f"after step {node.step_number - 1}" if node.is_complete else f"step {node.step_number}"
    if node.place is not None:
        # The loop's name is the steps list's to say; the round is said whole, as everywhere.
        return node.place.brief
    return "" if node.is_complete else f"step {node.step_number}"


def card_words(node: GraphNode, *, counted: bool = False, chars: int = LOCATOR_CHARS) -> str:
    """A card's step line: the one locator of the lists and the run card, its trailing parts dropped where the card
    is too narrow for it (StepPlace.short, LOCATOR_CHARS: "step 2 of 3 (round 2 of 3)"); the tooltip says the place
    whole (friction26b 4, 28a 3: the cards' "round 1/3 · part 1" beside the list's words read as two systems)."""
    if counted or node.place is None:
        return step_words(node, counted=counted)
    return node.place.short(chars)


def stretch_words(first: GraphNode, last: GraphNode, *, short: bool = False, counted: bool = False) -> str:
    """The outline places a collapsed stretch of a branch spans, from its `first` node to its `last`:
    "step 2 of 3 (rounds 5-149 of 150)" inside a loop (the loop's entry: the stretch holds each of its steps),
    "steps 2-3 of 8" across the outline; `short` leaves out the step the cards on either side already name
    ("rounds 5-149 of 150"). Without places, the steps counted."""
    a, b = first.place, last.place
    if a is None or b is None or counted:
        low, high = first.step_number, last.step_number
        return f"step {low}" if low == high else f"steps {low}-{high}"
    if a.position == b.position:
        if a.round is None or b.round is None or a.round == b.round:
            # Two steps of one round: the loop's entry, no step's letter (the cards either side say theirs).
            return a.words if a.inner == b.inner else f"{a.entry} ({a.loop_words()})"
        rounds = a.rounds_words(b.round)
        return rounds if short else f"{a.entry} ({rounds})"
    return f"steps {a.position}-{b.position} of {a.length}"


def loop_mark(node: GraphNode, *, counted: bool = False) -> int | None:
    """The loop round a card marks with "↻ n": only where no outline place says the round already."""
    return node.iteration if node.place is None or counted else None


def branch_label(lane: int) -> str:
    """Lanes are branches in the same order (branches.lanes numbers them from 1)."""
    return f"Branch {lane + 1}"


# Under the label of the branch the page shows, on screen: "Branch 2", then "viewing" (friction18b 3: "Branch 1" beside
# the shared first steps read as "I'm on branch 1" while viewing branch 2).
VIEWING_WORD = "viewing"


def lane_starts(graph: RunGraph) -> set[str]:
    """The card each branch's label stands beside: where that branch diverges, its first card no other branch
    shares (friction18a 13, friction18b 3: "Branch 1" beside the shared first steps read as those steps being
    branch 1's alone). A lane's cards before the last fork off it belong to every branch that grew from them; a
    lane every card of which another branch shares (a branch forked from its last card) is named at its end."""
    by_id = {node.node_id: node for node in graph.nodes}
    shared: set[str] = set()  # the cards a card of another lane descends from
    for node in graph.nodes:
        parent = by_id.get(node.parent_id) if node.parent_id is not None else None
        while parent is not None:
            if parent.lane != node.lane:
                shared.add(parent.node_id)
            parent = by_id.get(parent.parent_id) if parent.parent_id is not None else None
    starts: dict[int, GraphNode] = {}
    ends: dict[int, GraphNode] = {}
    for node in graph.nodes:
        if node.lane not in ends or node.depth > ends[node.lane].depth:
            ends[node.lane] = node
        if node.node_id not in shared and (node.lane not in starts or node.depth < starts[node.lane].depth):
            starts[node.lane] = node
    return {(starts.get(lane) or end).node_id for lane, end in ends.items()}


def branches_label(numbers: Iterable[int], *, lead: bool = True) -> str:
    """Branch numbers as the drawing names them: "Branch 2", "Branches 1-3", "Branches 1, 3"; `lead=False` inside
    a sentence ("branches 1-2")."""
    ordered = sorted(set(numbers))
    word = "Branch" if lead else "branch"
    if len(ordered) == 1:
        return f"{word} {ordered[0]}"
    runs: list[list[int]] = []
    for number in ordered:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return f"{word}es " + ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)


def shared_labels(graph: RunGraph, starts: set[str]) -> dict[str, str]:
    """The cards that head a stretch of steps several branches share, each with the words beside it ("Branches
    1-3", faint), as a branch's own name heads its own cards (lane_starts). One rule for every name (friction22b 15,
    r59: "Branches 1-3" at the top, then an unnamed card branches 1 and 2 share, then "Branch 1" half-way down read
    as branch 1 beginning there alone): a name stands wherever the branches a card belongs to change, naming them.
    A card belongs to each branch whose last card descends from it. None for one branch or a damaged store (more
    than one root)."""
    by_id = {node.node_id: node for node in graph.nodes}
    roots = [node for node in graph.nodes if node.parent_id is None]
    if graph.lanes < 2 or len(roots) != 1:
        return {}
    ends: dict[int, GraphNode] = {}
    for node in graph.nodes:
        if node.lane not in ends or node.depth > ends[node.lane].depth:
            ends[node.lane] = node
    whose: dict[str, set[int]] = {}
    for lane, end in ends.items():
        seen: set[str] = set()
        current: GraphNode | None = end
        while current is not None and current.node_id not in seen:
            seen.add(current.node_id)
            whose.setdefault(current.node_id, set()).add(lane + 1)
            current = by_id.get(current.parent_id) if current.parent_id is not None else None
    labels: dict[str, str] = {}
    for node in graph.nodes:
        numbers = whose.get(node.node_id, set())
        parent = by_id.get(node.parent_id) if node.parent_id is not None else None
        if node.node_id in starts or len(numbers) < 2:
            continue
        if parent is None or whose.get(parent.node_id, set()) != numbers:
            labels[node.node_id] = branches_label(numbers)
    return labels


# --- what the marks mean --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LegendEntry:
    key: str  # the mark: state-<a STATE_WORDS key>, on-branch, other, lane, checkpoint, by-hand, complete, ...
    words: str
    tag: str = ""  # a branch state's word, as its tag on the card reads
    in_sight: bool = False  # a mark no word on the card explains (IN_SIGHT): its key stands beside the drawing
    # A branch state whose meaning the drawing's one rule already says (FILL_SAID: a fill and a dashed border),
    # on the drawing and the phone's list alike (friction24a 5, friction25b 4): not said again behind the "?".
    said_by_rule: bool = False
    # Another card mark every card of this state carries, its swatch drawn with it: "by-hand" where each such card
    # is a branch started by hand, drawn dotted (friction61a 7: the key's "paused" solid beside a dotted card).
    also: str = ""

    @property
    def name(self) -> str:
        """The mark in a few words, as the one-line key beside the drawing names it (its meaning in full is
        `words`, behind the "?"): a fill or a border by KEY_NAMES, a tag by its own word, lower-case as every
        name of the key (friction24a 18: "Working" beside "answered")."""
        return KEY_NAMES.get(self.key) or self.tag.lower()

    @property
    def term(self) -> str:
        """The glossary line its name links to (glossary.LINKED: a checkpoint, which no card explains), "" else."""
        anchor = TERMS.get(self.key, "")
        return anchor if anchor in glossary.LINKED else ""

    @property
    def swatch(self) -> str:
        """How the key draws the mark, as a small copy of what the drawing draws (friction22a B8, friction22b A5:
        its entries drawn as pills read as filters, and two fills were missing): "card" (a card's fill and
        outline, `card_classes`), "diamond" (a checkpoint), "badge" (a step redone), "line" (the branch viewed),
        "lane" (a branch's name), "loop" (a loop's round), "skip" (a skipped step's dashed placeholder)."""
        return SWATCHES.get(self.key, "card")

    @property
    def card_classes(self) -> str:
        """A "card" swatch's classes: the same as the drawing's cards of that mark (dashboard.css styles both)."""
        return " ".join([CARD_CLASSES.get(self.key, self.key), *([self.also] if self.also else [])])


# The state of a branch, drawn on its tip: the key (a class name), the dashboard's state it is, and the word its
# card carries: the state's one word, as its pill says it (states.LABELS; friction18a 3: the legend's lowercase
# "done" and "running" beside the pills' "Done" and "Agent's move · Working").
STATE_NAMES: dict[str, StateName] = {
    "blocked": "blocked",
    "waiting": "needs_you",
    "paused": "paused",
    "stalled": "stalled",
    "canceled": "canceled",
    "superseded": "superseded",
    "left-behind": "left_behind",
    "done": "done",
    "running": "running",
}
STATE_WORDS = {key: state_label(name) for key, name in STATE_NAMES.items()}
STATE_LEGEND = {
    "blocked": "the answer to its step was refused",
    "waiting": "its step waits for your confirmation",
    "paused": f"no agent has touched it since it came here: {actions.verb('resume')}",  # the one phrase (actions.py)
    "stalled": "quiet too long, and nobody is waiting on it",
    "canceled": "the run was canceled",
    # True of every left-behind branch, however it came about (a rewind, a branch started by hand): how a branch
    # began is said by its own marks ("by-hand", "again"), not here (friction15a 6, friction15b 10).
    # Drawn apart from "left behind" on purpose (amber, not grey: the move is yours), so its line says how the two
    # differ and that one becomes the other (friction r64: "Branch 1 replaced" beside grey "Left behind" unexplained).
    "superseded": "a redo made in the dashboard replaced it while its agent may still be working (dashed in amber, not"
    " grey as a branch left behind, which it becomes once quiet): tell it in its chat to stop",
    "left-behind": "no agent works on this branch any more",
    "done": "the branch completed",
    "running": "the agent works on it",
}

# The branch states whose card dashboard.css fills as an answered step's (green): a done branch's last card. In the
# one-line key its swatch would be the "answered" one again (friction23a A4, 23b 3: two entries, one look); its card's
# "Done" pill says it, so the key leaves it out (the "?" still says what it means).
DRAWN_AS_ANSWERED = frozenset({"done"})

# The legend's swatch of each mark that is not a card (LegendEntry.swatch), and the drawing's classes of the cards
# whose swatch is one where its key alone is not them (an aside step is an answered one, dashed).
SWATCHES = {
    "checkpoint-mark": "diamond",
    "again": "badge",
    "on-branch": "line",
    "lane": "lane",
    "loop": "loop",
    "skipped": "skip",
}
CARD_CLASSES = {
    "aside": "aside key-dashed",
    "pending": "state-running",
    "unreached": "key-unreached",
    "complete": "complete",
}

# One rule for the screen's cards (friction24a 5, 24b 11: "Left behind" and "no agent on it" were two swatches of one
# meaning): the border dashed where no agent works on the branch any more; the fill the step's state, answered
# (green), current (blue), not reached (grey). The branch states the rule says are keyed by it, not by their pill's
# word: the "?" says their word's meaning on a phone alone, whose list draws no card.
FILL_SAID = frozenset({"running", "left-behind"})
# The states whose branch no agent works on any more: their tip's card is dashed and grey (not reached).
NOBODY_STATES = frozenset({"left-behind", "canceled"})

LEGEND_WORDS = {
    "answered": "green fill: answered",
    "pending": "blue fill: current, the step the agent works on",
    # "not answered", not "not reached" (friction27b 4): a branch left behind's last card is grey, a step it
    # reached and never answered.
    "unreached": "grey fill: not answered",
    # Grey: a replaced branch, whose agent may still work, is dashed in the your-move amber (friction60b 3).
    "aside": "grey dashed border: no agent works on that branch any more",
    "on-branch": "blue fill: the branch you are viewing (its steps are listed below)",
    "other": "hollow: a step of another branch (open its last step to view that branch)",
    "lane": "stands at branch N's first step of its own",
    "checkpoint": "made by a checkpoint (it stays at its step)",
    "checkpoint-mark": "a checkpoint the agent saved during that step (open it for its notes, or to resume from it)",
    "by-hand": "dotted border: a branch a person started by hand",
    "again": f"the branch's first step, {AGAIN_PHRASE} (the steps above it are shared)",
    # The dashed placeholder between two cards (skipped_pill), said what it means once (friction r60: "step 3
    # skipped" on a card was unexplained); the step's own condition is in its tooltip and the steps list.
    "skipped": "“step N skipped”: a step the workflow's condition skipped on that branch",
    # The end card (friction r64: "Complete · all steps done" had no entry but the word itself).
    "complete": f"“Complete”: the end of a branch that went through its workflow; its foot says “{COMPLETE_WORDS}”,"
    " or how many steps the workflow's condition skipped on the way (“1 step skipped”)",
    "blocked": "refused: the agent must send its step's answer again",
    "loop": "the n-th time round a loop",
    "current": "the step this page shows: its branch's steps are listed below",
    "newest": "the step the run reached last",
}
LANE_SHARED_WORDS = f"{LEGEND_WORDS['lane']}; “Branches 1-2” at the first of the steps those branches share"
# On screen a card's fill says its step's state, not the branch viewed (friction15b 15): the viewed branch is a
# dark outline, the steps before a tip are answered (green), dashed where no agent works on them, never hollow.
# friction22a B8: no heavier outline either: a dashed card with a dark outline read as a third mark. The branch viewed
# is its dark line and the word "viewing" under its name, which explains itself: behind the "?" only.
SCREEN_LEGEND_WORDS = {
    "on-branch": f"dark line, “{VIEWING_WORD}” under its name: the branch you are viewing (its steps are listed below)"
}
# The words of the two tags that say where, not a state, on paper (which shows no node in particular). The
# screen tags neither (friction14): the phone's list names the shown branch "you are viewing" (SCREEN_TAGS).
SCREEN_TAGS = {"current": "you are viewing"}
PAPER_TAGS = {"newest": "newest", "current": "shown"}
# The marks no word on their card says (a fill, a border, a tag that needs its why): their keys stand in sight
# beside the drawing with the branch states; the rest, whose words explain themselves, wait behind the "?".
IN_SIGHT = frozenset({"answered", "pending", "unreached", "aside", "by-hand", "again", "checkpoint-mark", "skipped"})
# The key's marks named by a word of the glossary (glossary.TERMS' anchors): their name links its line.
TERMS = {"checkpoint-mark": "checkpoint"}
# The short names of the in-sight marks that carry no word on their card (a fill, a border): the one-line key.
KEY_NAMES = {
    "answered": "answered",
    "pending": "current",
    "unreached": "not answered",
    "aside": "no agent works on that branch any more",
    "on-branch": "the branch you view",
    "by-hand": "started by hand",
    "again": AGAIN_WORDS,  # its swatch is the badge, "↺"
    "checkpoint-mark": CHECKPOINT_MARK,
    "skipped": "skipped by the workflow's condition",
}


def state_legend(graph: RunGraph, state: str) -> str:
    """What a branch state means on this drawing: one meaning on every drawing ("left behind": no agent works
    on it, whether the agent went back or a person started another branch by hand)."""
    return STATE_LEGEND[state]


def legend(
    graph: RunGraph,
    *,
    shown: str | None,
    states: dict[str, str] | None = None,
    counted: bool = False,
    checkpoints: bool = False,
    again: Iterable[str] = (),
    screen: bool = False,
    skipped: Iterable[str] = (),
) -> list[LegendEntry]:
    """The marks a drawing of `graph` holds, in the order a legend lists them: only those that occur (the
    branch states of `states` first, as for_screen draws them); `counted` for the paper's (step_words);
    `checkpoints`: whether checkpoints are drawn as marks beside their steps' cards (graph_story.py); `again`:
    the cards tagged "answered again" (graph_story.Told.again); `screen`: for_screen's drawing, which tags no
    node "newest" or "current" (the paper does); `skipped`: the keys (Skipped.key) of the placeholders drawn for the
    steps passed over."""
    on_path = _path({node.node_id: node for node in graph.nodes}, shown)
    worked = worked_nodes({node.node_id: node for node in graph.nodes}, states) if screen and states else None
    tips = set(states or {})
    drawn = set((states or {}).values())
    present = {
        "on-branch": bool(on_path),
        # On screen with branch states, the cards before a tip are filled by state (answered, aside), none hollow.
        "other": worked is None and any(node.node_id not in on_path for node in graph.nodes),
        "answered": worked is not None and any(n.node_id not in tips for n in graph.nodes),
        "pending": worked is not None and "running" in drawn,
        "unreached": worked is not None and bool(drawn & NOBODY_STATES),
        "aside": worked is not None
        and (
            bool(drawn & NOBODY_STATES) or any(n.node_id not in worked and n.node_id not in tips for n in graph.nodes)
        ),
        "lane": bool(graph.nodes),
        "checkpoint": any(node.via == "checkpoint" for node in graph.nodes),
        "checkpoint-mark": checkpoints,
        # On screen no border says it: the card's words do (_card; friction62a 9, 62b 13). Paper keeps its dotted key.
        "by-hand": not screen and any(node.via == "fork" for node in graph.nodes),
        "again": bool(set(again) & {node.node_id for node in graph.nodes}),
        "skipped": "skipped" in set(skipped),
        "complete": any(node.is_complete for node in graph.nodes),
        "blocked": any(node.is_blocked for node in graph.nodes),
        "loop": any(loop_mark(node, counted=counted) is not None for node in graph.nodes),
        "current": not screen and shown is not None and shown in {node.node_id for node in graph.nodes},
        "newest": not screen and graph.tip is not None and graph.tip != shown,
    }
    if states:
        present["blocked"] = False  # said by the "blocked" state
    # The screen names the stretches branches share too (shared_labels): the key says that faint name as well.
    shared = screen and bool(shared_labels(graph, lane_starts(graph)))
    ruled = screen and worked is not None  # the fill-and-border rule keys the states it says (FILL_SAID)
    return [
        LegendEntry(
            f"state-{key}",
            state_legend(graph, key),
            STATE_WORDS[key],
            in_sight=key not in DRAWN_AS_ANSWERED and not (ruled and key in FILL_SAID | NOBODY_STATES),
            said_by_rule=ruled and key in FILL_SAID,
            also="by-hand" if not screen and _all_by_hand(graph, states or {}, key) else "",
        )
        for key in STATE_LEGEND
        if key in drawn
    ] + [
        LegendEntry(key, SCREEN_LEGEND_WORDS.get(key, words) if screen else words, in_sight=key in IN_SIGHT)
        for key, words in {**LEGEND_WORDS, **({"lane": LANE_SHARED_WORDS} if shared else {})}.items()
        if present[key]
    ]


def _all_by_hand(graph: RunGraph, states: dict[str, str], key: str) -> bool:
    """Whether every card drawn in branch state `key` is a branch started by hand (its card drawn dotted)."""
    vias = [node.via for node in graph.nodes if states.get(node.node_id) == key]
    return bool(vias) and all(via == "fork" for via in vias)


# --- which columns to draw ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Column:
    first: int  # the depth it draws, or the first depth a gap stands for
    last: int  # == first for a drawn column
    offset: int  # along the depth axis, from the first column

    @property
    def is_gap(self) -> bool:
        return self.last > self.first


def columns(
    graph: RunGraph, *, keep: Iterable[str], context: int, min_gap: int, step: int, gap_step: int
) -> list[Column]:
    """The depths to draw: all of them, except stretches of at least `min_gap` depths more than
    `context` away from any fork, branch end, the run's ends or a node in `keep`; each such stretch
    becomes one narrower gap column. Within a gap no branch starts or ends, so every branch crossing it
    is one straight run of nodes."""
    depth = graph.depth
    if min_gap <= 0:
        return [Column(d, d, d * step) for d in range(depth + 1)]
    kept_ids = set(keep)
    marks = {0, depth}
    parents: set[str] = set()
    for node in graph.nodes:
        if node.is_leaf or node.node_id in kept_ids:
            marks.add(node.depth)
        if node.parent_id is not None:
            if node.parent_id in parents:  # a second child: a fork, drawn with its parent
                marks.update((node.depth - 1, node.depth))
            parents.add(node.parent_id)
    wanted = [False] * (depth + 1)
    for mark in marks:
        for d in range(max(0, mark - context), min(depth, mark + context) + 1):
            wanted[d] = True
    drawn: list[Column] = []
    offset = 0
    d = 0
    while d <= depth:
        end = d
        while not wanted[d] and end + 1 <= depth and not wanted[end + 1]:
            end += 1
        if not wanted[d] and end - d + 1 >= min_gap:
            drawn.append(Column(d, end, offset))
            offset += gap_step
            d = end + 1
            continue
        for one in range(d, end + 1):
            drawn.append(Column(one, one, offset))
            offset += step
        d = end + 1
    return drawn


# --- the drawing -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Geometry:
    across: bool  # True: depth runs left to right (screen); False: top to bottom (paper)
    step: int  # from one column to the next, along the depth axis
    gap_step: int  # a gap column's size along the depth axis
    lane_step: int  # from one lane to the next
    head: int  # room before the first column (the lane labels, across) or lane (down)
    lead: int  # room before the first lane (across) or column (down)
    tags_beside: bool = False  # the cards' tags in a column right of each card (screen), else on its edges
    card_w: int = CARD_W
    card_h: int = CARD_H
    title_y: int = 17  # the first title line's baseline, from the card's top
    line_h: int = 14  # from one title line to the next
    sub_y: int = 9  # the step line's baseline, up from the card's bottom
    tag_words: tuple[tuple[str, str], ...] = tuple(PAPER_TAGS.items())  # the words of "newest" and "current"
    locator_chars: int = LOCATOR_CHARS  # what its cards' step line holds of a locator (card_words)

    def tag_word(self, kind: str) -> str:
        return dict(self.tag_words)[kind]

    def card(self, offset: int, lane: int) -> tuple[int, int]:
        """The top-left corner of a card."""
        if self.across:
            return self.head + offset, self.lead + lane * self.lane_step
        return self.head + lane * self.lane_step, self.lead + offset

    def out_of(self, x: int, y: int) -> tuple[int, int]:
        w, h = self.card_w, self.card_h
        return (x + w, y + h // 2) if self.across else (x + w // 2, y + h)

    def into(self, x: int, y: int) -> tuple[int, int]:
        return (x, y + self.card_h // 2) if self.across else (x + self.card_w // 2, y)

    def elbow(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        """Out of the parent, half way to the next column, over to the child's lane, into the child."""
        (x1, y1), (x2, y2) = start, end
        if self.across:
            if y1 == y2:
                return f"M{x1} {y1}H{x2}"
            return f"M{x1} {y1}H{x1 + (x2 - x1) // 2}V{y2}H{x2}"
        if x1 == x2:
            return f"M{x1} {y1}V{y2}"
        return f"M{x1} {y1}V{y1 + (y2 - y1) // 2}H{x2}V{y2}"


# On screen a card's tag (its branch's state, or "↺ redone") stands beside it at 13px, under its branch's name
# on a branch's first card: off the card's borders and clear of the edges (which leave and enter a card at the
# middle of its bottom and top). TAG_ROOM is the widest tag and the gap before it. The cards are wider than the
# paper's, for 13px titles and step lines (PLACE_CHARS of them whole).
TAG_H, TAG_GAP = 17, 2
# How far the tags beside a card may reach below its bottom edge: the elbows to the next row cross half way down the
# gap between rows (SCREEN's step), well below it.
TAG_OVERHANG = 3
SCREEN_TAG_WORDS = tuple(STATE_WORDS.values())
TAG_ROOM = 10 + 10 + round(7.9 * max(len(word) for word in SCREEN_TAG_WORDS))
# A checkpoint's diamond inside its step's card's top right corner (_card): its half diagonal, the room between two,
# and how many fit there (more are on the step's page and in the steps list).
CHECKPOINT_R, CHECKPOINT_STEP, CHECKPOINT_MAX = 7, 18, 3
CORNER_CHARS = 3  # the title characters a diamond in the card's corner takes (the title keeps clear of it)
# A step redone after branching (friction22b A5: "↺ redone" as a pill under "Branch 2" read as a branch state
# beside "Left behind"): a small round badge inside its card's top right corner, "↺" in it, named for a screen
# reader, the pill shape kept for branch states alone. Its radius, and its centre's inset from the corner; the
# title's first line keeps clear of it (AGAIN_TITLE_CHARS).
AGAIN_R, AGAIN_INSET = 9, 13
AGAIN_TITLE_CHARS = TITLE_CHARS - 2
# Every tag of the screen is as wide as the widest, in one column at the same offset right of every card, from
# its top edge down (tenth review: pills of every width floated loose and stacked unevenly).
# Its gap from the card's box: the thickest outline (the viewed branch's 3px, the focus ring's 4px) reaches 2px
# out of it, and a tag 2px away touched the viewed branch's dashed outline (friction17b 7): 6px clear of it.
TAG_OFF = 8
OUTLINE_OUT = 2
TAG_COL_W = TAG_ROOM - TAG_OFF - 2
SCREEN_CARD_W, SCREEN_CARD_H = 180, 62
SCREEN = _Geometry(
    across=False,
    step=SCREEN_CARD_H + 26,
    gap_step=40,
    lane_step=SCREEN_CARD_W + 16 + TAG_ROOM,
    head=8,
    lead=16,
    tags_beside=True,
    card_w=SCREEN_CARD_W,
    card_h=SCREEN_CARD_H,
    title_y=18,
    line_h=16,
    sub_y=10,
)
PAPER = _Geometry(across=False, step=CARD_H + 26, gap_step=40, lane_step=CARD_W + 24, head=8, lead=16)

# The colours of the light theme, for a picture drawn without the page's stylesheet (WeasyPrint draws
# an inline SVG on its own). The dashboard styles the same class names from dashboard.css.
PAPER_STYLE = (
    "<style>"
    "text{font-family:'DejaVu Sans',sans-serif}"
    ".edge{fill:none;stroke:#b7bcc4;stroke-width:2}"
    ".edge.on-branch{stroke:#2458c6;stroke-width:2.5}"
    ".gap-line{fill:none;stroke:#8a929e;stroke-width:2;stroke-dasharray:3 3}"
    ".card{fill:#fff;stroke:#8a929e;stroke-width:1.5}"
    ".card.on-branch{fill:#eaf0fb;stroke:#2458c6}"
    ".card.complete{fill:#e8f4ec;stroke:#1b7f43}"
    ".card.checkpoint{stroke:#1d2330;stroke-dasharray:4 3}"
    ".card.by-hand{stroke:#0f7b83;stroke-width:2.5;stroke-dasharray:1.5 3}"
    ".card.blocked{fill:#fde8e6;stroke:#b42318;stroke-width:2.5}"
    ".card.current{stroke-width:3}"
    ".ct{fill:#1d2330;font-size:12px;font-weight:600}"
    ".cs{fill:#5b6472;font-size:10px}"
    ".cv{fill:#5b6472;font-size:10px;font-style:italic}"
    ".cs .loop{fill:#9a5b00;font-weight:700}"
    ".cs .blocked-word{fill:#b42318;font-weight:700}"
    ".tag{stroke:none}.tag.newest{fill:#9a5b00}.tag.current{fill:#2458c6}"
    ".tag.lane{fill:#fff;stroke:#5b6472;stroke-width:1}"
    ".tag-text{fill:#fff;font-size:9px;font-weight:700}.tag-text.lane{fill:#1d2330}"
    ".tag.checkpoint{fill:#fff;stroke:#1d2330;stroke-width:1;stroke-dasharray:3 2}.tag-text.checkpoint{fill:#1d2330}"
    ".tag.again{fill:#fff;stroke:#5b6472;stroke-width:1;stroke-dasharray:3 2}.tag-text.again{fill:#5b6472}"
    ".gap-chip{fill:#fff;stroke:#8a929e;stroke-width:1}"
    ".gap-text{fill:#5b6472;font-size:10px}"
    "</style>"
)


# The screen drawing shows every node of a run up to a few dozen steps; beyond, straight stretches this
# long collapse (the steps list below the graph lists every step), keeping this many around each mark.
SCREEN_CONTEXT = 4
SCREEN_MIN_GAP = 12


def for_screen(
    graph: RunGraph,
    *,
    shown: str | None,
    href: Callable[[GraphNode], str],
    title: str,
    states: dict[str, str] | None = None,
    again: Iterable[str] = (),
    checkpoints: Callable[[str], tuple[str, ...]] = lambda card: (),
    skipped: Callable[[str], tuple[Skipped, ...]] = lambda card: (),
) -> str:
    """The dashboard's drawing: top to bottom, each card a link to `href(node)`; `states` maps a branch
    tip's node id to its branch's state (a key of STATE_WORDS); `again` are the cards of steps answered
    again after a rewind (graph_story.Told.again), marked so; `checkpoints(card)` the pages of the checkpoints
    saved at a card's step, each a "checkpoint" mark beside it, linking its page; `skipped(card)` the steps
    passed over on the way into a card, a dashed placeholder on the line into it (skipped_pill)."""
    cols = screen_columns(graph, shown=shown)
    return _draw(
        graph,
        screen_geometry(graph),
        shown=shown,
        href=href,
        title=title,
        cols=cols,
        states=states or {},
        again=frozenset(again),
        checkpoints=checkpoints,
        skipped=skipped,
    )


# A drawing of at most WIDE_LANES branches whose longest locator is longer than a card's step line holds widens its
# cards by LOCATOR_CHAR_W a character, so each card says its place whole, as the steps list does (friction62a, 62b 12:
# "(round 149)" on a card beside the list's "(round 150 of 150)" read as two counts). A wider drawing keeps its cards'
# width (its text would shrink below 12px at 1440 px) and drops the round's total there (StepPlace.short).
WIDE_LANES, LOCATOR_CHAR_W = 2, 8


def screen_geometry(graph: RunGraph) -> _Geometry:
    """The screen's geometry for `graph`: SCREEN, its cards wider where its longest locator needs it."""
    longest = max((len(node.place.brief) for node in graph.nodes if node.place is not None), default=0)
    if longest <= LOCATOR_CHARS or graph.lanes > WIDE_LANES:
        return SCREEN
    grow = (longest - LOCATOR_CHARS) * LOCATOR_CHAR_W
    return replace(SCREEN, card_w=SCREEN.card_w + grow, lane_step=SCREEN.lane_step + grow, locator_chars=longest)


def screen_columns(graph: RunGraph, *, shown: str | None) -> list[Column]:
    """The depths the screen draws, and the straight stretches it collapses: the drawing and the phone's
    list of the same graph (graph_page.py) leave out the same steps."""
    keep = [node for node in (shown, graph.tip) if node is not None]
    return columns(
        graph, keep=keep, context=SCREEN_CONTEXT, min_gap=SCREEN_MIN_GAP, step=SCREEN.step, gap_step=SCREEN.gap_step
    )


# The paper drawing collapses straight stretches longer than this, keeping this many steps around every
# fork, branch end and the shown node: a run of 200 steps in one branch still fits a page.
PAPER_CONTEXT = 1
PAPER_MIN_GAP = 3
PAPER_WIDTH_MM = 170
PAPER_HEIGHT_MM = 225
MM_PER_PX = 25.4 / 96
PAPER_MIN_SCALE = 0.55  # 12px titles printed at 5pt, the smallest worth printing


def _scale_of(drawing: str) -> float:
    """How much a paper drawing was shrunk to fit the page (its printed width over its own)."""
    head = drawing[: drawing.index(">")]
    printed = float(head.split('width="', 1)[1].split("mm", 1)[0])
    own = float(head.split('viewBox="0 0 ', 1)[1].split(" ", 1)[0])
    return printed / (own * MM_PER_PX)


def for_paper(
    graph: RunGraph,
    *,
    shown: str | None,
    title: str,
    again: Iterable[str] = (),
    checkpoints: Callable[[str], tuple[str, ...]] = lambda card: (),
) -> str | None:
    """The PDF's drawing: top to bottom, collapsed, styled in itself, at most a page in size; None when
    shrinking it to the page would make its text too small to read (dozens of branches). `again` and
    `checkpoints` as for_screen's (graph_story.py): tags on the cards' top edge, nothing to click."""
    keep = [node for node in (shown, graph.tip) if node is not None]
    cols = columns(
        graph, keep=keep, context=PAPER_CONTEXT, min_gap=PAPER_MIN_GAP, step=PAPER.step, gap_step=PAPER.gap_step
    )
    # The reports place steps in the outline as the dashboard does: their drawing's cards say the same.
    drawing = _draw(
        graph,
        PAPER,
        shown=shown,
        href=None,
        title=title,
        cols=cols,
        style=PAPER_STYLE,
        again=frozenset(again),
        checkpoints=checkpoints,
    )
    return drawing if _scale_of(drawing) >= PAPER_MIN_SCALE else None


def _draw(
    graph: RunGraph,
    geo: _Geometry,
    *,
    shown: str | None,
    href: Callable[[GraphNode], str] | None,
    title: str,
    cols: list[Column],
    style: str = "",
    states: dict[str, str] | None = None,
    counted: bool = False,
    again: frozenset[str] = frozenset(),
    checkpoints: Callable[[str], tuple[str, ...]] = lambda card: (),
    skipped: Callable[[str], tuple[Skipped, ...]] = lambda card: (),
) -> str:
    states = states or {}
    by_id = {node.node_id: node for node in graph.nodes}
    # On screen every graph hangs from one "Start" root above its first cards (friction14: the same top on every
    # run); branches that forked at the start (a rewind to the run's first step) hang from it too, so they read
    # as a fork, not as separate trees (friction13 item 6).
    roots = [node for node in graph.nodes if node.parent_id is None] if geo.tags_beside else []
    if roots:
        geo = replace(geo, lead=geo.lead + START_ROOM)
    if geo.tags_beside:
        cols = _room_for_skips(cols, {node.depth for node in graph.nodes if skipped(node.node_id)})
    offset_of = {column.first: column.offset for column in cols if not column.is_gap}
    on_path = _path(by_id, shown)
    corner: dict[str, tuple[int, int]] = {}
    for node in graph.nodes:
        offset = offset_of.get(node.depth)
        if offset is not None:
            corner[node.node_id] = geo.card(offset, node.lane)

    edges: list[str] = []
    pills: list[str] = []  # over every line: a fork's line may cross the gap a placeholder stands in
    # The cards whose line straight down from their parent holds a skipped-step placeholder (_out_of).
    straight_on_skips = {
        node.parent_id
        for node in graph.nodes
        if node.parent_id in by_id and by_id[node.parent_id].lane == node.lane and skipped(node.node_id)
    }
    for node in graph.nodes:
        if node.parent_id is None or node.node_id not in corner or node.parent_id not in corner:
            continue
        both = node.node_id in on_path and node.parent_id in on_path
        out = _out_of(geo, by_id[node.parent_id], node, corner, straight_on_skips)
        d = geo.elbow(out, geo.into(*corner[node.node_id]))
        edges.append(f'<path class="edge{" on-branch" if both else ""}" d="{d}"/>')
        # Every line that passes over a step carries its placeholder, one rule for every branch: drawn once on the
        # line straight down, the branches turning out of the same card had none and read as not skipping it
        # (friction63b 9, after friction61a 5 had it said once).
        passed = skipped(node.node_id)
        if passed:
            pills.append(skipped_pill(geo, corner[node.node_id], passed))

    start = _start_root(geo, [node for node in roots if node.node_id in corner], corner, on_path)
    edges.extend(start[1:])
    gaps = _gaps(graph, geo, cols, corner, on_path, counted)
    starts = lane_starts(graph)
    viewed = by_id[shown].lane if shown is not None and shown in by_id else None
    card_style = _CardStyle(
        on_path=on_path,
        shown=shown,
        tip=graph.tip,
        href=href,
        starts=starts,
        shared=shared_labels(graph, starts) if geo.tags_beside else {},
        viewed=viewed,
        states=states,
        counted=counted,
        geo=geo,
        # One branch on screen: the page's head and panel say its state; the card's colour keeps it.
        say_state=graph.lanes > 1 or not geo.tags_beside,
        again=again,
        checkpoints=checkpoints,
        passed=lambda card: _passed_on_path(by_id, card, skipped),
        state_words={state: state_legend(graph, state) for state in set(states.values())},
        worked=worked_nodes(by_id, states) if states else None,
    )
    cards = [_card(node, corner[node.node_id], card_style) for node in graph.nodes if node.node_id in corner]

    card_along, card_across = (geo.card_w, geo.card_h) if geo.across else (geo.card_h, geo.card_w)
    extent = (cols[-1].offset + (geo.gap_step if cols[-1].is_gap else card_along)) if cols else 0
    lanes_size = max(graph.lanes - 1, 0) * geo.lane_step + card_across
    if geo.tags_beside:
        lanes_size += TAG_ROOM
    if geo.across:
        width, height = geo.head + extent + 16, geo.lead + lanes_size + 16
    else:
        width, height = geo.head + lanes_size + 8, geo.lead + extent + 12
    size = f'width="{width}" height="{height}"'
    if style:  # paper: no bigger than the page, the same proportions
        scale = min(1.0, PAPER_WIDTH_MM / (width * MM_PER_PX), PAPER_HEIGHT_MM / (height * MM_PER_PX))
        size = f'width="{width * MM_PER_PX * scale:.1f}mm" height="{height * MM_PER_PX * scale:.1f}mm"'
    return "".join(
        [
            f'<svg class="run-graph" xmlns="http://www.w3.org/2000/svg" {size} viewBox="0 0 {width} {height}" '
            f'role="group" aria-label="{escape(title)}">',
            style,
            f"<title>{escape(title)}</title>",
            '<g class="edges" aria-hidden="true">',
            *edges,
            "</g>",
            *pills,
            *gaps,
            *start[:1],
            '<g class="nodes">',
            *cards,
            "</g></svg>",
        ]
    )


def _passed_on_path(
    by_id: dict[str, GraphNode], card: str, skipped: Callable[[str], tuple[Skipped, ...]]
) -> tuple[Skipped, ...]:
    """The steps passed over on the way from the start into `card`, along its parents' lines."""
    passed: list[Skipped] = []
    at: str | None = card
    while at is not None and at in by_id:
        passed[:0] = skipped(at)
        at = by_id[at].parent_id
    return tuple(passed)


def _out_of(
    geo: _Geometry, parent: GraphNode, child: GraphNode, corner: dict[str, tuple[int, int]], skips_below: set[str]
) -> tuple[int, int]:
    """Where the line into `child` leaves `parent`: the middle of its far edge, but on screen, for a branch that
    turns into another lane below a parent whose own line down holds a skipped-step placeholder, near the
    bottom corner on the child's side, clear of the placeholder: from the middle, the line ran out of the
    placeholder's side and read as a branch split off at the skipped step (friction19a 4)."""
    out = geo.out_of(*corner[parent.node_id])
    if geo.across or child.lane == parent.lane or parent.node_id not in skips_below:
        return out
    x, _ = corner[parent.node_id]
    side = x + geo.card_w - FORK_INSET if child.lane > parent.lane else x + FORK_INSET
    return side, out[1]


# How far in from a card's side a branch's line leaves it beside a skipped-step placeholder (_out_of).
FORK_INSET = 6


@dataclass(frozen=True, slots=True)
class Skipped:
    """A step passed over on the way into a card (skipped_steps.SkippedStep): what its placeholder says
    ("step 3 skipped") and, in its tooltip, why ("Trace the Impact · step 3 of 8, skipped: it runs only if ...")."""

    short: str
    words: str
    title: str = ""  # the step's title (the phone's list names it on its row)
    how: str = "skipped"  # skipped_steps.SkippedStep.how

    @property
    def key(self) -> str:
        """Its legend entry: one for every step passed over (friction63b 12: "skipped" and "not run" were two)."""
        return "skipped"


SKIPPED_H = 18
# On screen the gap above a row whose card follows skipped steps is SKIP_ROOM taller: the lines turning across
# keep to its upper half (the elbow's middle), the placeholder stands in its lower half right of the line into
# its card, so no line crosses it (friction28a 5: a branch's elbow ran through "step 3 skipped").
SKIP_ROOM = 26
SKIP_CLEAR = 8  # from the line into the card to the placeholder's left side


def _room_for_skips(cols: list[Column], depths: set[int]) -> list[Column]:
    """`cols` with every column from a depth in `depths` on moved down by SKIP_ROOM more per such depth above."""
    moved, extra = [], 0
    for column in cols:
        if not column.is_gap and column.first in depths:
            extra += SKIP_ROOM
        moved.append(replace(column, offset=column.offset + extra))
    return moved


def skipped_pill(geo: _Geometry, into: tuple[int, int], passed: tuple[Skipped, ...]) -> str:
    """A small dashed placeholder beside the line into the card at `into` (its top-left corner), in the lower
    half of the gap above it, for the steps passed over on the way (friction16b 6: the numbering jumped from step
    2 to step 4 with nothing drawn between): "step 3 skipped", or how many ("2 steps skipped"). On paper, where
    the gap has no room of its own, on the line."""
    said = passed[0].short if len(passed) == 1 else f"{len(passed)} steps passed over"
    width = round(7.4 * len(said)) + 16
    x, y = into
    if geo.tags_beside:
        left, top = x + geo.card_w // 2 + SKIP_CLEAR, y - SKIPPED_H - SKIP_CLEAR // 2
    else:
        left, top = x + geo.card_w // 2 - width // 2, y - (geo.step - geo.card_h) // 2 - SKIPPED_H // 2
    tip = "; ".join(step.words for step in passed)
    return (
        f'<g class="skipped-step"><title>{escape(tip)}</title>'
        f'<rect class="skipped-pill" x="{left}" y="{top}" width="{width}" height="{SKIPPED_H}" rx="8"/>'
        f'<text class="skipped-text" x="{left + width // 2}" y="{top + 13}" text-anchor="middle">{escape(said)}</text>'
        "</g>"
    )


def _start_root(
    geo: _Geometry, roots: list[GraphNode], corner: dict[str, tuple[int, int]], on_path: set[str]
) -> list[str]:
    """The run's start, a "Start" pill above the first branch's first card (first in the list), and a line from
    it down into the first card of every branch that starts there: the shown branch's in the accent colour.
    The pill is no link and no tag (a card's tags stand beside it): a rounded box of the page's own grey."""
    if not roots:
        return []
    roots = sorted(roots, key=lambda node: node.lane)
    first_x, first_y = corner[roots[0].node_id]
    width = START_W
    x, y = first_x + (geo.card_w - width) // 2, first_y - START_ROOM - TAG_H // 2 + 2
    out = [
        f'<g class="start-root"><title>{escape(START_FORK_TIP if len(roots) > 1 else START_TIP)}</title>'
        f'<rect class="start-pill" x="{x}" y="{y - TAG_H // 2}" width="{width}" height="{TAG_H}" rx="8"/>'
        f'<text class="start-text" x="{x + width // 2}" y="{y + 5}" text-anchor="middle">'
        f"{escape(START_WORDS)}</text></g>"
    ]
    start = (first_x + geo.card_w // 2, y + TAG_H // 2)
    for node in roots:
        on = " on-branch" if node.node_id in on_path else ""
        out.append(f'<path class="edge start-edge{on}" d="{geo.elbow(start, geo.into(*corner[node.node_id]))}"/>')
    return out


# The states of a branch no agent works on: its own steps are drawn aside (a dashed outline), those it shares
# with a branch an agent still has are not.
SET_ASIDE = frozenset({"left-behind", "canceled"})


def step_fill(worked: bool) -> tuple[str, ...]:
    """The class names of a screen card before a branch's tip: its fill is its step's own state, answered (green,
    as the phone list's dots and the legend), wherever it is; a step only a branch no agent works on holds is
    also "aside", its outline dashed (friction16a 2, friction16b 5: aside steps drawn grey read as unanswered)."""
    return ("answered",) if worked else ("answered", "aside")


def worked_nodes(by_id: dict[str, GraphNode], states: dict[str, str]) -> frozenset[str]:
    """The nodes on the way to a branch tip whose state is not set aside (SET_ASIDE): the steps answered on the
    way to where an agent works, or to where a branch finished."""
    worked: set[str] = set()
    for tip, state in states.items():
        if state not in SET_ASIDE:
            worked |= _path(by_id, tip)
    return frozenset(worked)


def _path(by_id: dict[str, GraphNode], shown: str | None) -> set[str]:
    path: set[str] = set()
    current = shown
    while current is not None and current in by_id and current not in path:
        path.add(current)
        current = by_id[current].parent_id
    return path


@dataclass(frozen=True)
class _CardStyle:
    """What every card of one drawing is drawn with: the shown branch's nodes, the shown and newest node, the
    link a card makes, the first card of each lane, the branch states, how steps are numbered, the geometry
    (screen or paper), and whether a card says its branch's state in words."""

    on_path: set[str]
    shown: str | None
    tip: str | None
    href: Callable[[GraphNode], str] | None
    starts: set[str]
    shared: dict[str, str]  # the cards heading a stretch several branches share, and its words (shared_labels)
    states: dict[str, str]
    counted: bool
    geo: _Geometry
    say_state: bool
    viewed: int | None = None  # the lane of the branch the page shows (its tip's), named so beside its label
    again: frozenset[str] = frozenset()
    checkpoints: Callable[[str], tuple[str, ...]] = lambda card: ()
    # The steps passed over on the path into a card, from the start (complete_words).
    passed: Callable[[str], tuple[Skipped, ...]] = lambda card: ()
    state_words: dict[str, str] = field(default_factory=dict)  # each drawn state's meaning here (state_legend)
    # The screen's cards before a branch's tip, filled by state (friction15b 15): answered, and aside (dashed) on a
    # branch no agent works on (left behind, canceled: step_fill). None on paper.
    worked: frozenset[str] | None = None


def _card(node: GraphNode, at: tuple[int, int], style: _CardStyle) -> str:
    on_path, shown, tip, href, counted, geo = (
        style.on_path,
        style.shown,
        style.tip,
        style.href,
        style.counted,
        style.geo,
    )
    starts_lane, state, say_state = node.node_id in style.starts, style.states.get(node.node_id), style.say_state
    x, y = at
    classes = ["card"]
    if node.node_id in on_path:
        classes.append("on-branch")
    if node.is_complete:
        classes.append("complete")
    if node.via == "checkpoint":
        classes.append("checkpoint")
    if node.via == "fork" and not geo.tags_beside:  # the paper's dotted border; the screen says it in words
        classes.append("by-hand")
    if node.is_blocked and state is None:  # a tip's branch state says it (its fill and word), as its legend does
        classes.append("blocked")
    if state is not None:
        classes.append(f"state-{state}")
    elif style.worked is not None:
        classes.extend(step_fill(node.node_id in style.worked))
    is_current, is_newest = node.node_id == shown, node.node_id == tip
    if is_current:
        classes.append("current")
    if is_newest:
        classes.append("newest")
    full = node.title or node.step_id or "Step"
    # The step line: its place in the outline as the step list says it (always whole), then the marks
    # that fit. What made the card when not a step takes the title's second line: a checkpoint or a
    # branch started by hand redoes its parent's step, whose card names it in full.
    where = card_words(node, counted=counted, chars=geo.locator_chars)
    if not where and node.is_complete and geo.tags_beside:  # on screen the end card says what its title means
        where = complete_words(style.passed(node.node_id))
    sub = [_sub_part(where)] if where else []
    answered_again = node.node_id in style.again  # said by a tag beside the card, under its branch's name
    made_by = VIA_WORDS.get(node.via)
    # A title too long for one line keeps its two (a checkpoint's title is its step's, cut it would read as
    # another step): what made the card then goes on the step line, when it fits there.
    lines = title_lines(full)
    if made_by and len(lines) > 1:
        sub.append(_sub_part(made_by, "cv"))
        made_by = None
    mark = loop_mark(node, counted=counted)
    if mark is not None:
        sub.append(_sub_part(f"↻ {mark}", "loop"))
    if node.is_blocked and state is None:
        sub.append(_sub_part("refused", "blocked-word"))
    # The tooltip says the place whole, the loop named (StepPlace.words); a node the outline does not place
    # says its loop's round in the same words ("round 3 in “Review each area”").
    where = (node.place.words if node.place is not None and not counted else step_words(node, counted=counted)) or (
        "the end of its branch"
    )
    sharers = style.shared.get(node.node_id)
    words = [full, sharers or branch_label(node.lane), where]
    if node.iteration is not None and (node.place is None or counted):
        words.append(f"round {node.iteration} in “{node.loop_title or 'a loop'}”")
    if node.via == "checkpoint":
        words.append(f"made by a checkpoint during {where} (still at that step)")
    if node.via == "fork":
        words.append(f"a branch started by hand from {where}")
    if answered_again:
        words.append(f"{AGAIN_PHRASE}, on this branch (the branches share the steps above it)")
    if state is not None:
        words.append(f"its branch: {STATE_WORDS[state]} ({style.state_words.get(state, STATE_LEGEND[state])})")
    elif node.is_blocked:
        words.append("refused: the agent must send this step's answer again")
    if is_newest:
        words.append("the step the run reached last")
    if is_current:
        words.append("you are viewing it")
    saved = style.checkpoints(node.node_id)
    if saved:
        words.append(f"{len(saved)} checkpoint{'s' if len(saved) > 1 else ''} saved during this step")
    words.append(f"node {node.node_id}")
    marks_after = ""
    selects_branch = node.is_leaf and node.node_id not in on_path
    tooltip = " · ".join(words) + (": click to show this branch" if selects_branch and href else "")
    # On screen, right of the card: its branch's name on a branch's first card (a heading, not a tag), then its one
    # tag; its checkpoints as diamonds on its bottom edge. On paper, tags on its edges (below).
    beside, card_w, card_h = geo.tags_beside, geo.card_w, geo.card_h
    if beside:
        said = say_state and state is not None
        tag = (STATE_WORDS[state], f"state state-{state}") if said and state is not None else None
        shown_marks = [(branch_label(node.lane), "lane")] if starts_lane else []
        if sharers:
            shown_marks.append((sharers, "lane shared"))
        if node.via == "fork":  # under its name, in words, never a border (friction62a 9, 62b 13) nor a line of
            # the card: there it cut the title to one line, "Draft Plan with Ri…" (friction63a 6, 63b 8)
            shown_marks.append((VIA_WORDS["fork"], "lane via"))
        if starts_lane and node.lane == style.viewed:  # under its name: the tag column is narrower than both
            shown_marks.append((VIEWING_WORD, "lane viewing"))
        shown_marks += [tag] if tag is not None else []
        # Within the card's height (and the few pixels TAG_OVERHANG allows), however many: four (a branch started
        # by hand, viewed, at its only card: its name, "started by hand", "viewing", its state) ran 12 px below
        # the card, onto the elbows that cross under it (friction r64: "four labels stack beside branch 2").
        pitch = min(TAG_H + TAG_GAP, (card_h + TAG_OVERHANG - TAG_H) // max(len(shown_marks) - 1, 1))
        tags = [
            _tag(x + card_w + TAG_OFF, y + TAG_H // 2 + index * pitch, text, kind, width=TAG_COL_W)
            for index, (text, kind) in enumerate(shown_marks)
        ]
        # Each checkpoint saved during this step: a diamond inside the card's top right corner (left of the redone
        # badge where the card has one), clear of its title, from the corner leftwards, a link of its own (its
        # node's page: its notes, and resuming from it), drawn after the card's link (links do not nest). Inside the
        # card, never under it: under its bottom edge it sat on the line to the next step and read as "after this
        # step" while the steps list says "saved during it" (friction62a 9, 62b 4); on the edge it read as a
        # rendering glitch (friction61b 8), on a line as a junction (friction28a 5).
        first = x + card_w - AGAIN_INSET - (CHECKPOINT_STEP if answered_again else 0)
        marks_after = "".join(
            f'<a href="{escape(page)}" class="checkpoint-mark"><title>{escape(CHECKPOINT_MARK_TIP)}</title>'
            + _diamond(first - index * CHECKPOINT_STEP, y + AGAIN_INSET)
            + "</a>"
            for index, page in enumerate(saved[:CHECKPOINT_MAX])
        )
    else:
        tags = [_tag(x + 6, y + card_h, branch_label(node.lane), "lane")] if starts_lane else []
        # On the top edge, at the left: the step answered again on this branch, the checkpoints saved during it.
        left = x + 6
        for text, kind, marked in ((AGAIN_WORDS, "again", answered_again), (CHECKPOINT_MARK, "checkpoint", saved)):
            if marked:
                tags.append(_tag(left, y, text, kind))
                left += _tag_width(text) + 4
    if state is not None and not beside:  # on the bottom edge, at the right: its branch's state, in words
        word = STATE_WORDS[state]
        tags.append(_tag(x + card_w - 6 - _tag_width(word), y + card_h, word, f"state state-{state}"))
    right = x + card_w - 6
    for kind, marked in (("newest", is_newest), ("current", is_current)):
        text = geo.tag_word(kind)
        if marked and not beside:
            right -= _tag_width(text)
            tags.append(_tag(right, y, text, kind))
            right -= 4
    if beside and node.via == "fork":
        # On screen "started by hand" is said in the tag column beside the card (above), so its title keeps its two
        # lines whole as every card's does.
        made_by = None
        sub = [part for part in sub if part[0] != VIA_WORDS["fork"]]
    if made_by:
        lines = title_lines(full, lines=TITLE_LINES - 1)
    badge = ""
    # The corner's marks (the redone badge, the checkpoints' diamonds): the title's first line keeps clear of them.
    corner = (AGAIN_TITLE_CHARS if answered_again else TITLE_CHARS) - CORNER_CHARS * len(saved[:CHECKPOINT_MAX])
    if beside and (answered_again or saved):
        lines = title_lines(full, lines=TITLE_LINES - 1 if made_by else TITLE_LINES, first=corner)
    if beside and answered_again:  # in its top right corner, clear of the title (a branch's first card: no tip)
        badge = again_badge(x + card_w - AGAIN_INSET, y + AGAIN_INSET)
    # On screen every card is as tall as two title lines and a step line: fewer lines sit centred in it, with
    # no blank band between a one-line title and its step line.
    title_y, sub_y = geo.title_y, card_h - geo.sub_y
    if beside and len(lines) == 1 and not made_by:
        title_y, sub_y = (title_y + geo.line_h // 2, sub_y - geo.line_h // 2) if sub else (card_h // 2 + 5, sub_y)
    title_text = "".join(
        f'<text class="ct" x="{x + 8}" y="{y + title_y + geo.line_h * index}">{escape(line)}</text>'
        for index, line in enumerate(lines)
    )
    if made_by:
        title_text += f'<text class="cv" x="{x + 8}" y="{y + title_y + geo.line_h}">{escape(made_by)}</text>'
    body = (
        f"<title>{escape(tooltip)}</title>"
        f'<rect class="{" ".join(classes)}" x="{x}" y="{y}" width="{card_w}" height="{card_h}" rx="6"/>'
        f"{title_text}"
        f'<text class="cs" x="{x + 8}" y="{y + sub_y}">{_sub_line(sub)}</text>' + badge + "".join(tags)
    )
    if href is None:
        return f'<g class="graph-node" data-node-id="{node.node_id}" data-lane="{node.lane}">{body}</g>'
    current = ' aria-current="true"' if is_current else ""
    return (
        f'<a href="{escape(href(node))}" class="graph-node" data-node-id="{node.node_id}" data-lane="{node.lane}"'
        f"{current}>{body}</a>{marks_after}"
    )


def again_badge(cx: int, cy: int) -> str:
    """The mark of a step redone after branching: "↺" in a small circle centred on (cx, cy), named (role img) as
    the legend says it; no pill (the branch states' shape)."""
    return (
        f'<g class="again-badge" role="img" aria-label="{escape(AGAIN_PHRASE)}"><title>{escape(AGAIN_PHRASE)}</title>'
        f'<circle class="again-dot" cx="{cx}" cy="{cy}" r="{AGAIN_R}"/>'
        f'<text class="again-glyph" x="{cx}" y="{cy + 4}" text-anchor="middle">{AGAIN_GLYPH}</text></g>'
    )


def _diamond(cx: int, cy: int) -> str:
    """A checkpoint's mark: a diamond centred on (cx, cy), a shape no tag has."""
    r = CHECKPOINT_R
    return f'<path class="checkpoint-flag" d="M{cx} {cy - r}L{cx + r} {cy}L{cx} {cy + r}L{cx - r} {cy}Z"/>'


def _sub_part(text: str, kind: str = "") -> tuple[str, str]:
    return text, kind


def _sub_line(parts: list[tuple[str, str]]) -> str:
    """The card's step line: its parts joined by " · ", the first always, each next one while the line
    still fits the card (SUB_CHARS)."""
    shown: list[str] = []
    used = 0
    for text, kind in parts:
        needed = len(text) + (3 if shown else 0)
        if shown and used + needed > SUB_CHARS:
            continue
        used += needed
        shown.append(f'<tspan class="{kind}">{escape(text)}</tspan>' if kind else escape(text))
    return " · ".join(shown)


def _tag_width(text: str, *, big: bool = False) -> int:
    return 10 + round((7.9 if big else 5.6) * len(text))  # 13px (screen) or 9px (paper) bold text


def _tag(x: int, y: int, text: str, kind: str, *, big: bool = False, width: int = 0) -> str:
    """A tag centred on height `y`: on screen (`width`, the tag column's, or "big") 13px text in a pill TAG_H
    tall, on paper 9px."""
    big = big or width > 0
    width = width or _tag_width(text, big=big)
    if big and kind.startswith(
        "lane"
    ):  # on screen a branch's name is a heading, not a pill: flush left in the tag column
        return (
            f'<rect class="tag {kind}" x="{x}" y="{y - TAG_H // 2}" width="{width}" height="{TAG_H}" rx="8"/>'
            f'<text class="tag-text {kind}" x="{x + 2}" y="{y + 5}">{escape(text)}</text>'
        )
    if big:
        return (
            f'<rect class="tag {kind}" x="{x}" y="{y - TAG_H // 2}" width="{width}" height="{TAG_H}" rx="8"/>'
            f'<text class="tag-text {kind}" x="{x + width // 2}" y="{y + 5}" text-anchor="middle">'
            f"{escape(text)}</text>"
        )
    return (
        f'<rect class="tag {kind}" x="{x}" y="{y - 7}" width="{width}" height="13" rx="6"/>'
        f'<text class="tag-text {kind}" x="{x + width // 2}" y="{y + 3}" text-anchor="middle">{escape(text)}</text>'
    )


def _gaps(
    graph: RunGraph,
    geo: _Geometry,
    cols: list[Column],
    corner: dict[str, tuple[int, int]],
    on_path: set[str],
    counted: bool = False,
) -> list[str]:
    """Each gap column, for each branch crossing it: a dashed line and how many steps it stands for."""
    gaps = [column for column in cols if column.is_gap]
    if not gaps:
        return []
    # The last node drawn before each gap and the first after it, per lane: found from the nodes
    # just outside the gap (a gap holds no fork and no branch end).
    out: list[str] = ['<g class="gaps">']
    lanes_at: dict[tuple[int, int], GraphNode] = {(node.depth, node.lane): node for node in graph.nodes}
    for gap in gaps:
        for lane in range(graph.lanes):
            before, after = lanes_at.get((gap.first - 1, lane)), lanes_at.get((gap.last + 1, lane))
            if before is None or after is None or before.node_id not in corner or after.node_id not in corner:
                continue
            start, end = geo.out_of(*corner[before.node_id]), geo.into(*corner[after.node_id])
            count = gap.last - gap.first + 1
            # The outline places of the hidden nodes, said as the cards say theirs; the chip leaves out the
            # step the cards on either side name, its tooltip says it in full.
            first, last = lanes_at[(gap.first, lane)], lanes_at[(gap.last, lane)]
            steps = stretch_words(first, last, counted=counted)
            text = f"⋯ {stretch_words(first, last, short=True, counted=counted)}"
            mid_x, mid_y = (start[0] + end[0]) // 2, (start[1] + end[1]) // 2
            # 10px text on paper, 13px on screen (its wider lanes hold it), within its lane
            big = geo.tags_beside
            chip = min(max(96, 16 + 8 * len(text) if big else 14 + 6 * len(text)), geo.lane_step - 8)
            half = 10 if big else 9
            cls = "gap-line on-branch" if after.node_id in on_path else "gap-line"
            out.append(f'<path class="{cls}" d="M{start[0]} {start[1]}L{end[0]} {end[1]}"/>')
            why = f"{count} node{'s' if count > 1 else ''} of {branch_label(lane)} not drawn ({steps})"
            out.append(
                f'<g class="gap"><title>{escape(why)}</title>'
                f'<rect class="gap-chip" x="{mid_x - chip // 2}" y="{mid_y - half}" width="{chip}" height="{2 * half}" '
                f'rx="{half}"/><text class="gap-text" x="{mid_x}" y="{mid_y + half // 2}" text-anchor="middle">'
                f"{escape(text)}</text></g>"
            )
    out.append("</g>")
    return out
