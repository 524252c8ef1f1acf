"""A run of several branches in one line: how the run stands, on which branch (the one that counts, where the
agent works or finished last), in the dashboard's state words (runs/readmodels/states.py): "Working on branch 1",
"Done on branch 3".

What became of each other branch (left behind, finished, canceled) is not in the line: the run card's list of the
other branches, right under it, gives each one's state as its badge, so the line saying "branches 2 and 3 left
behind" told it twice (friction12 item 2). A branch that is not the one that counts and did not finish is *left
behind*, the state's own word, wherever the dashboard names it.

One thing the list cannot tell is how the branch that counts came after a finished one: a finished branch beside
one that goes on would read as a run finished and running at once. Then the line tells the story, the step the
branch that counts went back to (the step pending at the node it grew from, as the graph's data holds it) and
whether the agent or a person took it there: "Working on branch 2 (branch 1 finished; then branch 2 branched from
Verify slice 2 (step 2 of 3, round 2 of 3, part 1 of 2) and is redoing it)".
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.contract.dashboard import BranchOutcomeEntry, RunGraph, StateName
from runs.readmodels import states


def numbers_words(numbers: list[int]) -> str:
    """ "branch 1", "branches 1 and 2", "branches 1, 2 and 4"."""
    if len(numbers) == 1:
        return f"branch {numbers[0]}"
    return "branches " + ", ".join(str(n) for n in numbers[:-1]) + f" and {numbers[-1]}"


@dataclass(frozen=True, slots=True)
class BranchesLine:
    lead: str  # how the run stands and on which branch: "Working on branch 2"
    story: str = ""  # how the one that counts came after a finished one: "branch 1 finished; then branch 2
    # branched from Verify slice 2 and is redoing it"; "" when no branch finished beside it

    def __str__(self) -> str:
        return f"{self.lead} ({self.story})" if self.story else self.lead


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


def _story(back: WentBack, number: int, run_state: StateName) -> str:
    """In branch words only (friction15b 14: branch, fork, rewind and "went back to" named one thing)."""
    if back.by_hand:
        return f"then someone started branch {number} by hand from {back.words}"
    doing = "is redoing it" if run_state in _GOING_ON else "redid it"
    return f"then branch {number} branched from {back.words} and {doing}"


def line(told: list[BranchOutcomeEntry], run_state: StateName, back: WentBack | None = None) -> BranchesLine | None:
    """The run's branches in one line; None for a run of one branch (its state and step say it all). `back`:
    where the branch that counts grew from (went_back), told when another branch finished before it."""
    if len(told) < 2:
        return None
    counts = next((o for o in told if o.is_newest), told[-1])
    finished = sorted(o.number for o in told if o is not counts and not o.left_behind and o.state == "done")
    story = (
        f"{numbers_words(finished)} finished; {_story(back, counts.number, run_state)}"
        if back is not None and finished
        else ""
    )
    return BranchesLine(f"{states.label(run_state)} on branch {counts.number}", story)
