"""A run of several branches in one line: how the run stands, on which branch (the one that counts, where the
agent works or finished last), and what became of the others, in the dashboard's state words
(runs/readmodels/states.py): "Running on branch 2 (branch 1 done earlier, replaced)", "Done on branch 3
(branches 1 and 2 left behind)".

A branch that is not the one that counts and did not finish is *left behind*, the state's own word, wherever
the dashboard names it; a finished one was done earlier and replaced by the branch that counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.contract.dashboard import BranchOutcomeEntry, StateName
from runs.readmodels import states

# What became of a branch that is not the one that counts, by its state: its words after its number.
_OTHERS_WORDS: dict[StateName, str] = {
    "done": "done earlier, replaced",
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
    others: str  # what became of the others: "branch 1 done earlier, replaced"

    def __str__(self) -> str:
        return f"{self.lead} ({self.others})"


def line(told: list[BranchOutcomeEntry], run_state: StateName) -> BranchesLine | None:
    """The run's branches in one line; None for a run of one branch (its state and step say it all)."""
    if len(told) < 2:
        return None
    counts = next((o for o in told if o.is_newest), told[-1])
    by_words: dict[str, list[int]] = {}
    for other in sorted((o for o in told if o is not counts), key=lambda o: o.number):
        state: StateName = "left_behind" if other.left_behind else other.state
        words = _OTHERS_WORDS.get(state, states.label(state).lower())
        by_words.setdefault(words, []).append(other.number)
    others = "; ".join(f"{numbers_words(numbers)} {words}" for words, numbers in by_words.items())
    return BranchesLine(f"{states.label(run_state)} on branch {counts.number}", others)
