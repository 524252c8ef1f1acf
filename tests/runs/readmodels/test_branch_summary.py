"""runs/readmodels/branch_summary.py: a run of several branches says in one line how it stands, on the branch
that counts, in the dashboard's state words (friction6 item 9); what became of the others, the run card's list
of them says under it, once (friction12 item 2), so the line tells only how the branch that counts came after a
finished one."""

from __future__ import annotations

from runs.contract.dashboard import BranchOutcomeEntry
from runs.readmodels import branch_summary
from runs.readmodels.fork_point import ForkPoint


def branch(number: int, state: str, *, newest: bool = False, left_behind: bool = False) -> BranchOutcomeEntry:
    return BranchOutcomeEntry.model_construct(number=number, state=state, is_newest=newest, left_behind=left_behind)


def test_a_run_of_one_branch_needs_no_line():
    assert branch_summary.line([branch(1, "running", newest=True)], "running") is None


def test_a_running_run_names_its_branch_and_leaves_the_others_states_to_their_list():
    told = [branch(1, "done"), branch(2, "running", newest=True)]
    assert str(branch_summary.line(told, "running")) == "Working on branch 2"


def test_a_run_finished_once_and_going_on_says_in_one_sentence_what_the_finished_branch_means():
    # Finished and running at once reads as a contradiction (friction18b 11: whether branch 1's result still counts
    # was left open): one sentence says what the branch that counts does with it and where the run stands; where
    # exactly it grew from, the list of branches says (fork_point).
    told = [branch(1, "done"), branch(2, "running", newest=True)]
    back = ForkPoint("again", "Verify slice 2 (round 2 of 3)", 1)
    assert str(branch_summary.line(told, "running", back)) == (
        "Working on branch 2 (branch 1 finished; branch 2 redoes part of it and is where the agent works now)"
    )
    done = [branch(1, "done"), branch(2, "done", newest=True)]
    assert branch_summary.line(done, "done", back).story == (
        "branch 1 finished; branch 2 redoes part of it and finished later: the run's result is branch 2's"
    )
    waiting = branch_summary.line([branch(1, "done"), branch(2, "needs_you", newest=True)], "needs_you", back)
    assert waiting.story.endswith("and is the one that counts now")
    by_hand = ForkPoint("by_hand", "Verify slice 2 (step 2 of 3)", 1)
    assert str(branch_summary.line(told, "running", by_hand)).endswith(
        "someone started branch 2 by hand from it and is where the agent works now)"
    )
    # Only a finished branch needs the story: branches left behind have their own panels, and their badges say it.
    left = [branch(1, "left_behind", left_behind=True), branch(2, "running", newest=True)]
    assert str(branch_summary.line(left, "running", back)) == "Working on branch 2"
    # Two finished, one left behind: the story names the finished ones alone.
    told = [
        branch(1, "done"),
        branch(2, "left_behind", left_behind=True),
        branch(3, "done"),
        branch(4, "running", newest=True),
    ]
    assert str(branch_summary.line(told, "running", back)) == (
        "Working on branch 4 (branches 1 and 3 finished; branch 4 redoes part of branch 1 and is where the agent"
        " works now)"
    )


def test_a_done_run_says_which_branch_counts_and_not_again_that_the_others_are_left_behind():
    told = [
        branch(1, "done", newest=True),
        branch(2, "left_behind", left_behind=True),
        branch(3, "left_behind", left_behind=True),
    ]
    found = branch_summary.line(told, "done")
    assert found is not None
    assert (found.lead, found.story, str(found)) == ("Done on branch 1", "", "Done on branch 1")


def test_a_blocked_branch_that_is_not_the_newest_is_not_counted_as_finished():
    told = [branch(1, "blocked", left_behind=True), branch(2, "done"), branch(3, "needs_you", newest=True)]
    back = ForkPoint("again", "Plan (step 2 of 4)", 2)
    assert str(branch_summary.line(told, "needs_you", back)) == (
        "Confirm on branch 3 (branch 2 finished; branch 3 redoes part of it and is the one that counts now)"
    )


def tipped(number: int, state: str, *, newest: bool = False) -> BranchOutcomeEntry:
    entry = branch(number, state, newest=newest, left_behind=state == "left_behind")
    return entry.model_copy(update={"tip_node_id": f"tip{number}"})


def test_the_phone_card_says_the_other_branches_in_one_line_that_leads_to_one():
    # friction19a 10: on a phone the run card's list of the other branches is left out (the graph's list says
    # them), so one line says they are there. Another branch shown: the card's status line leads back to the
    # latest (friction20a 2), so the line says the rest, or nothing when the latest is the only other.
    latest, behind, finished = tipped(3, "running", newest=True), tipped(1, "left_behind"), tipped(2, "done")
    back = branch_summary.others_line(behind, [latest, finished])
    assert back == branch_summary.OthersLine("Other branches: 1 done", "tip2")
    assert branch_summary.others_line(behind, [latest]) is None
    # The latest shown counts the others by their badges' words; one of them is linked, several are the
    # graph's list below.
    assert branch_summary.others_line(latest, [behind]) == branch_summary.OthersLine(
        "Other branches: 1 left behind", "tip1"
    )
    several = branch_summary.others_line(latest, [behind, tipped(4, "left_behind"), finished])
    assert several == branch_summary.OthersLine("Other branches: 2 left behind, 1 done", "")
    assert branch_summary.others_line(latest, []) is None
