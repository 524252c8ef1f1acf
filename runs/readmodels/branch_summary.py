"""A run of several branches in one line: how the run stands, on which branch (the one that counts, where the
agent works or finished last), and what became of the others, in the dashboard's state words
(runs/readmodels/states.py): "Running on branch 2 (branch 1 finished; then the agent went back to Verify
slice 2 (step 2 of 3, round 2 of 3, part 1 of 2) and is redoing it from there)", "Done on branch 3 (branches 1
and 2 left behind)".

A branch that is not the one that counts and did not finish is *left behind*, the state's own word, wherever
the dashboard names it. A finished one beside a branch that goes on would read as a run finished and running at
once: the line tells the story, the step the branch that counts went back to (the step pending at the node it
grew from, as the graph's data holds it) and whether the agent or a person took it there.
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.contract.dashboard import BranchOutcomeEntry, RunGraph, StateName
from runs.readmodels import states

# What became of a branch that is not the one that counts, by its state: its words after its number.
_OTHERS_WORDS: dict[StateName, str] = {
    "done": "finished",
    "canceled": "canceled",
    "left_behind": states.label("left_behind").lower(),
}


def numbers_words(numbers: list[int]) -> str:
    """ "branch 1", "branches 1 and 2", "branches 1, 2 and 4"."""
    if len(numbers) == 1:
        return f"branch {numbers[0]}"
    return "branches " + ", ".join(str(n) for n in numbers[:-1]) + f" and {numbers[-1]}"


@dataclass(frozen=True, slots=True)
class BranchesLine:
    lead: str  # how the run stands and on which branch: "Running on branch 2"
    others: str  # what became of the others, and how the one that counts came after a finished one: "branch 1
    # finished; then the agent went back to Verify slice 2 and is redoing it from there"

    def __str__(self) -> str:
        return f"{self.lead} ({self.others})"


@dataclass(frozen=True, slots=True)
class WentBack:
    """Where a branch grew from: the step pending at its fork node, and whether a person started it by hand.
    `place`: inside a loop, that step's place in brief ("step 2 of 3, round 2 of 3, part 1 of 2"), since a loop's rounds
    repeat its titles; "" elsewhere (the title says it)."""

    title: str
    by_hand: bool
    place: str = ""

    @property
    def words(self) -> str:
        return f"{self.title} ({self.place})" if self.place else self.title


def went_back(graph: RunGraph, tip_id: str) -> WentBack | None:
    """Where the branch ending at node `tip_id` grew from, read up its lane to the node of another lane it
    forked from; None for the run's first branch (or a tip the graph does not hold)."""
    nodes = {node.node_id: node for node in graph.nodes}
    node = nodes.get(tip_id)
    while node is not None and node.parent_id is not None:
        parent = nodes.get(node.parent_id)
        if parent is not None and parent.lane != node.lane:
            at = parent.place
            in_loop = at.brief if at is not None and at.round is not None else ""
            return WentBack(parent.title or parent.step_id or "an earlier step", node.via == "fork", in_loop)
        node = parent
    return None


# The runs states in which the branch that counts still goes on (its story in the present tense).
_GOING_ON: frozenset[StateName] = frozenset({"running", "needs_you", "stalled", "blocked"})


def _story(back: WentBack, run_state: StateName) -> str:
    if back.by_hand:
        return f"then someone started this branch by hand from {back.words}"
    doing = "is redoing it from there" if run_state in _GOING_ON else "redid it from there"
    return f"then the agent went back to {back.words} and {doing}"


def line(told: list[BranchOutcomeEntry], run_state: StateName, back: WentBack | None = None) -> BranchesLine | None:
    """The run's branches in one line; None for a run of one branch (its state and step say it all). `back`:
    where the branch that counts grew from (went_back), told when another branch finished before it."""
    if len(told) < 2:
        return None
    counts = next((o for o in told if o.is_newest), told[-1])
    by_words: dict[str, list[int]] = {}
    for other in sorted((o for o in told if o is not counts), key=lambda o: o.number):
        state: StateName = "left_behind" if other.left_behind else other.state
        words = _OTHERS_WORDS.get(state, states.label(state).lower())
        by_words.setdefault(words, []).append(other.number)
    others = "; ".join(f"{numbers_words(numbers)} {words}" for words, numbers in by_words.items())
    if back is not None and _OTHERS_WORDS["done"] in by_words:
        others += f"; {_story(back, run_state)}"
    return BranchesLine(f"{states.label(run_state)} on branch {counts.number}", others)
