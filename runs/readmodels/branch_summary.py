"""A run of several branches in one line: how the run stands, on which branch (the one that counts, where the
agent works or finished last), in the dashboard's state words (runs/readmodels/states.py): "Working on branch 1",
"Done on branch 3".

What became of each other branch (left behind, finished, canceled) is not in the line: the run card's list of the
other branches, right under it, gives each one's state as its badge, so the line saying "branches 2 and 3 left
behind" told it twice (friction12 item 2). A branch that is not the one that counts and did not finish is *left
behind*, the state's own word, wherever the dashboard names it.

One thing the list cannot tell is how the branch that counts came after a finished one: a finished branch beside
one that goes on would read as a run finished and running at once. Then the line says what that means, once:
"Working on branch 2 (branch 1 finished; branch 2 redoes part of it and is where the agent works now)". Where
exactly it grew from (the step it branched after, the one it redoes) the list of branches says (fork_point.py).
"""

from __future__ import annotations

from collections import Counter
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
    story: str = ""  # what a finished one beside the one that counts means: "branch 1 finished; branch 2 redoes
    # part of it and is where the agent works now"; "" when no branch finished beside it

    def __str__(self) -> str:
        return f"{self.lead} ({self.story})" if self.story else self.lead


def _story(back: ForkPoint, number: int, finished: list[int], run_state: StateName) -> str:
    """What a finished branch beside the one that counts means, in one sentence (friction18b 11: "Branch 1
    finished; then branch 2 branched after ..." beside ✓ Done and Working left open whether branch 1's result
    still counts): the finished branches, what the one that counts does with them, where the run stands. In branch
    words only (friction15b 14); where exactly it grew from, the list of branches and the graph say (fork_point)."""
    source = back.from_branch
    of = "it" if finished == [source] else f"branch {source}" if source is not None else "the run"
    how = {
        "again": f"branch {number} redoes part of {of}",
        "by_hand": f"someone started branch {number} by hand from {of}",
        "checkpoint": f"branch {number} branched from {of}",
    }[back.kind]
    if run_state == "done":
        now = f"finished later: the run's result is branch {number}'s"
    elif run_state == "running":
        now = "is where the agent works now"
    else:
        now = "is the one that counts now"
    return f"{numbers_words(finished)} finished; {how} and {now}"


def line(told: list[BranchOutcomeEntry], run_state: StateName, back: ForkPoint | None = None) -> BranchesLine | None:
    """The run's branches in one line; None for a run of one branch (its state and step say it all). `back`:
    where the branch that counts grew from (fork_point.of_tip), told when another branch finished before it."""
    if len(told) < 2:
        return None
    counts = next((o for o in told if o.is_newest), told[-1])
    finished = sorted(o.number for o in told if o is not counts and not o.left_behind and o.state == "done")
    story = _story(back, counts.number, finished, run_state) if back is not None and finished else ""
    return BranchesLine(f"{states.label(run_state)} on branch {counts.number}", story)


@dataclass(frozen=True, slots=True)
class OthersLine:
    """The run card's other branches in one line, where the card's list of them does not show: on a phone, whose
    branch graph (the list of branches right below) says them (friction18a 17), but whose card then gave no way
    back to the latest branch from another, nor said the others were there (friction19a 10, friction19b 6)."""

    words: str  # "Other branches: 1 left behind"
    tip: str  # the branch it links (the run page's `?tip=`); "" for several: the branch graph below lists them


def listed_others(shown: BranchOutcomeEntry | None, others: list[BranchOutcomeEntry]) -> list[BranchOutcomeEntry]:
    """The other branches the run card lists beside the `shown` one: all of them, but the latest while another is
    shown, since the card's banner names it and leads to it ("Viewing branch 1 (done). The agent works on branch
    2: … →"); a row for it too said the same a second time (friction24a 9). A replaced branch the card's pill names
    ("Your move · Branch 1 replaced · Tell its agent to stop") stays listed, as the place that leads to what the pill
    asks about (friction64b 1: with its row gone only the graph showed it); its row says neither pill nor
    instruction again (_branches.html, said_by_pill; friction63a 4, 63b 5)."""
    if shown is None or shown.is_newest:
        return others
    return [o for o in others if not o.is_newest]


def others_line(shown: BranchOutcomeEntry | None, others: list[BranchOutcomeEntry]) -> OthersLine | None:
    """The one line for `others` beside the `shown` branch (None: no other branch to say): what they are, by
    their state's word, as their badges say it ("1 left behind", "2 done"); the ones the card lists
    (listed_others): the latest, when another is shown, is the banner's."""
    others = listed_others(shown, others)
    if not others:
        return None
    counted = Counter(states.label(other.state).lower() for other in others)  # in the order first met
    words = ", ".join(f"{n} {word}" for word, n in counted.items())
    return OthersLine(f"Other branches: {words}", others[0].tip_node_id if len(others) == 1 else "")
