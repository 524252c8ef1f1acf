"""runs/readmodels/branch_summary.py: a run of several branches says in one line how it stands, on the branch
that counts, in the dashboard's state words (friction6 item 9); what became of the others, the run card's list
of them says under it, once (friction12 item 2), so the line tells only how the branch that counts came after a
finished one."""

from __future__ import annotations

from runs.contract.dashboard import BranchOutcomeEntry, GraphNode, RunGraph, StepPlace
from runs.readmodels import branch_summary


def branch(number: int, state: str, *, newest: bool = False, left_behind: bool = False) -> BranchOutcomeEntry:
    return BranchOutcomeEntry.model_construct(number=number, state=state, is_newest=newest, left_behind=left_behind)


def test_a_run_of_one_branch_needs_no_line():
    assert branch_summary.line([branch(1, "running", newest=True)], "running") is None


def test_a_running_run_names_its_branch_and_leaves_the_others_states_to_their_list():
    told = [branch(1, "done"), branch(2, "running", newest=True)]
    assert str(branch_summary.line(told, "running")) == "Working on branch 2"


def test_a_run_finished_once_and_going_on_tells_how_the_agent_went_back():
    # Finished and running at once reads as a contradiction: the line tells the story, from the graph's data.
    told = [branch(1, "done"), branch(2, "running", newest=True)]
    back = branch_summary.WentBack("Verify slice 2", by_hand=False)
    assert str(branch_summary.line(told, "running", back)) == (
        "Working on branch 2 (branch 1 finished; then branch 2 branched from Verify slice 2 and is redoing it)"
    )
    assert str(branch_summary.line(told, "done", back)).endswith("branched from Verify slice 2 and redid it)")
    by_hand = branch_summary.WentBack("Verify slice 2", by_hand=True)
    assert str(branch_summary.line(told, "running", by_hand)).endswith(
        "then someone started branch 2 by hand from Verify slice 2)"
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
    assert str(branch_summary.line(told, "running", back)).startswith(
        "Working on branch 4 (branches 1 and 3 finished; then"
    )


def test_where_a_branch_grew_from_is_read_up_its_lane_in_the_graph():
    def node(node_id: str, parent: str | None, lane: int, title: str, via: str = "step") -> GraphNode:
        return GraphNode.model_construct(node_id=node_id, parent_id=parent, lane=lane, title=title, via=via)

    nodes = [node("1", None, 0, "Scope"), node("2", "1", 0, "Verify slice 2"), node("3", "2", 0, "Record")]
    nodes += [node("4", "2", 1, "Record"), node("5", "4", 1, "Summarize")]
    graph = RunGraph.model_construct(nodes=nodes)
    assert branch_summary.went_back(graph, "5") == branch_summary.WentBack("Verify slice 2", by_hand=False)
    assert branch_summary.went_back(graph, "3") is None  # the run's first branch grew from nothing
    nodes[3] = node("4", "2", 1, "Record", via="fork")
    assert branch_summary.went_back(RunGraph.model_construct(nodes=nodes), "5") == branch_summary.WentBack(
        "Verify slice 2", by_hand=True
    )


def test_going_back_inside_a_loop_says_which_round_as_the_graph_does():
    # A loop's rounds repeat its steps' titles: the step gone back to is placed too, in the graph's brief words.
    place = StepPlace(position=2, length=3, round=2, inner=2)
    place._rounds = 3
    place._parts = 2
    nodes = [
        GraphNode.model_construct(node_id="1", parent_id=None, lane=0, title="Record", via="step", place=place),
        GraphNode.model_construct(node_id="2", parent_id="1", lane=1, title="Summarize", via="step", place=None),
    ]
    back = branch_summary.went_back(RunGraph.model_construct(nodes=nodes), "2")
    assert back == branch_summary.WentBack("Record", by_hand=False, place="step 2b of 3 · round 2 of 3")
    told = [branch(1, "done"), branch(2, "running", newest=True)]
    assert str(branch_summary.line(told, "running", back)) == (
        "Working on branch 2 (branch 1 finished; then branch 2 branched from Record (step 2b of 3 · round 2 of 3) "
        "and is redoing it)"
    )
    # Outside a loop the title is enough.
    nodes[0] = GraphNode.model_construct(
        node_id="1", parent_id=None, lane=0, title="Record", via="step", place=StepPlace(position=2, length=3)
    )
    assert branch_summary.went_back(RunGraph.model_construct(nodes=nodes), "2") == branch_summary.WentBack(
        "Record", by_hand=False
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
    back = branch_summary.WentBack("Plan", by_hand=False)
    assert str(branch_summary.line(told, "needs_you", back)) == (
        "Confirm on branch 3 (branch 2 finished; then branch 3 branched from Plan and is redoing it)"
    )
