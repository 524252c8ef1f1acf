"""runs/readmodels/fork_point.py: one description of where a branch grew from, the step it redoes and the branch
it grew from, read once and said the same in the run header and the list of branches (friction16a 3)."""

from __future__ import annotations

from runs.contract.dashboard import GraphNode, RunGraph, StepPlace
from runs.readmodels import branch_summary, fork_point, graph_page, graph_story


def node(node_id: str, parent: str | None, lane: int, depth: int, title: str, via: str = "step", **more) -> GraphNode:
    fields = dict(node_id=node_id, parent_id=parent, lane=lane, depth=depth, title=title, via=via, place=None)
    fields |= dict(step_number=depth + 1, is_complete=False, is_tip=False, is_leaf=False, is_blocked=False)
    return GraphNode.model_construct(**(fields | more))


def looped_graph(via: str = "step") -> RunGraph:
    # Branch 2 answered "Verify slice 2" (round 2) again after "Record" (round 1): the store's fork node is the
    # one whose pending step is Verify slice 2.
    record = StepPlace(position=2, length=3, round=1, inner=2)
    record._rounds, record._parts = 3, 2
    verify = StepPlace(position=2, length=3, round=2, inner=1)
    verify._rounds, verify._parts = 3, 2
    nodes = [
        node("1", None, 0, 0, "Scope", place=StepPlace(position=1, length=3)),
        node("2", "1", 0, 1, "Record", place=record),
        node("3", "2", 0, 2, "Verify slice 2", place=verify),
        node("4", "3", 0, 3, "Summarize", is_leaf=True),
        node("5", "3", 1, 3, "Summarize", via=via, is_leaf=True, is_tip=True),
    ]
    return RunGraph.model_construct(nodes=nodes, tip="5", depth=3, lanes=2)


def test_a_branch_redoing_a_step_says_the_step_it_redoes_in_one_locator_then_its_source():
    found = fork_point.of_tip(looped_graph(), "5")
    assert found is not None
    # One step, one locator (friction19a 8): not the step it branched after with a second set of counters.
    assert found.words() == "redoes Verify slice 2 · step 2a of 3 (round 2 of 3)"
    assert found.words(named=True) == "redoes Verify slice 2 · step 2a of 3 (round 2 of 3), from branch 1"
    assert fork_point.of_tip(looped_graph(), "4") is None  # the run's first branch grew from nothing


def test_the_list_of_branches_anchors_the_fork_and_the_run_header_says_what_it_means():
    graph = looped_graph()
    story = graph_story.told(graph)
    first = next(card for card in story.graph.nodes if card.lane == 1 and card.node_id in story.again)
    listed = graph_page.fork_words(story, first, named=True)
    back = fork_point.of_tip(graph, "5")
    told = [
        branch_summary.BranchOutcomeEntry.model_construct(number=1, state="done", is_newest=False, left_behind=False),
        branch_summary.BranchOutcomeEntry.model_construct(number=2, state="running", is_newest=True, left_behind=False),
    ]
    header = branch_summary.line(told, "running", back)
    # The header says what the finished branch means (friction18b 11); which step branch 2 redoes, the list of
    # branches says, once.
    assert listed == "redoes Verify slice 2 · step 2a of 3 (round 2 of 3), from branch 1"
    assert header is not None and "Verify" not in header.story
    assert header.story == "branch 1 finished; branch 2 redoes part of it and is where the agent works now"


def test_a_branch_started_by_hand_waits_at_its_parents_step():
    found = fork_point.of_tip(looped_graph(via="fork"), "5")
    assert found is not None and found.kind == "by_hand"
    assert found.words(named=True) == "started by hand at Verify slice 2 · step 2a of 3 (round 2 of 3), from branch 1"


def test_a_branch_that_grew_from_no_step_redoes_its_first_from_the_start():
    assert (
        fork_point.ForkPoint("again", "Scope · step 1 of 3").words(named=True)
        == "redoes Scope · step 1 of 3, from the start"
    )
