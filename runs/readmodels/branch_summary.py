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
whether the agent or a person took it there, in the words of the list of branches (fork_point.py): "Working on
branch 2 (branch 1 finished; then branch 2 branched after Record (step 2b of 3) to redo Verify slice 2 (step 2a of
3 · round 2 of 3))".
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.contract.dashboard import BranchOutcomeEntry, StateName
from runs.readmodels import listing, states
from runs.readmodels.fork_point import ForkPoint


def numbers_words(numbers: list[int]) -> str:
    """ "branch 1", "branches 1 and 2", "branches 1, 2 and 4"."""
    if len(numbers) == 1:
        return f"branch {numbers[0]}"
    return "branches " + listing.joined([str(n) for n in numbers])


@dataclass(frozen=True, slots=True)
class BranchesLine:
    lead: str  # how the run stands and on which branch: "Working on branch 2"
    story: str = ""  # how the one that counts came after a finished one: "branch 1 finished; then branch 2
    # branched after Record to redo Verify slice 2"; "" when no branch finished beside it

    def __str__(self) -> str:
        return f"{self.lead} ({self.story})" if self.story else self.lead


def _story(back: ForkPoint, number: int) -> str:
    """In branch words only (friction15b 14: branch, fork, rewind and "went back to" named one thing), anchored as
    the list of branches anchors it (fork_point.py: the step it branched after, then the one it redoes)."""
    if back.kind == "by_hand":
        return f"then someone started branch {number} by hand at {back.redoes}"
    return f"then branch {number} {back.words()}"


def line(told: list[BranchOutcomeEntry], run_state: StateName, back: ForkPoint | None = None) -> BranchesLine | None:
    """The run's branches in one line; None for a run of one branch (its state and step say it all). `back`:
    where the branch that counts grew from (fork_point.of_tip), told when another branch finished before it."""
    if len(told) < 2:
        return None
    counts = next((o for o in told if o.is_newest), told[-1])
    finished = sorted(o.number for o in told if o is not counts and not o.left_behind and o.state == "done")
    story = (
        f"{numbers_words(finished)} finished; {_story(back, counts.number)}" if back is not None and finished else ""
    )
    return BranchesLine(f"{states.label(run_state)} on branch {counts.number}", story)
