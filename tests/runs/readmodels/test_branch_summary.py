"""runs/readmodels/branch_summary.py: a run of several branches says in one line how it stands, on the branch
that counts, and what became of the others, in the dashboard's state words (friction6 item 9)."""

from __future__ import annotations

from runs.contract.dashboard import BranchOutcomeEntry
from runs.readmodels import branch_summary


def branch(number: int, state: str, *, newest: bool = False, left_behind: bool = False) -> BranchOutcomeEntry:
    return BranchOutcomeEntry.model_construct(number=number, state=state, is_newest=newest, left_behind=left_behind)


def test_a_run_of_one_branch_needs_no_line():
    assert branch_summary.line([branch(1, "running", newest=True)], "running") is None


def test_a_running_run_names_its_branch_and_the_finished_one_it_replaced():
    told = [branch(1, "done"), branch(2, "running", newest=True)]
    assert str(branch_summary.line(told, "running")) == "Running on branch 2 (branch 1 done earlier, replaced)"


def test_a_done_run_says_which_branch_counts_and_that_the_others_are_left_behind():
    told = [
        branch(1, "done", newest=True),
        branch(2, "left_behind", left_behind=True),
        branch(3, "left_behind", left_behind=True),
    ]
    found = branch_summary.line(told, "done")
    assert found is not None
    assert (found.lead, found.others) == ("Done on branch 1", "branches 2 and 3 left behind")


def test_a_blocked_branch_that_is_not_the_newest_is_left_behind_the_one_word_for_it():
    told = [branch(1, "blocked", left_behind=True), branch(2, "done"), branch(3, "needs_you", newest=True)]
    assert str(branch_summary.line(told, "needs_you")) == (
        "Needs you on branch 3 (branch 1 left behind; branch 2 done earlier, replaced)"
    )
