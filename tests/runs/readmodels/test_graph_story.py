"""runs/readmodels/graph_story.py: a step answered again after a rewind is drawn on the branch that answered it,
and that branch grows from the last step both branches share (ninth review, item 3)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from runs.contract.dashboard import GraphNode, RunGraph
from runs.readmodels import branches, graph, graph_drawing, graph_story

AT = datetime(2026, 11, 29, 11, 39, tzinfo=UTC)
Via = Literal["start", "step", "checkpoint", "fork"]


def run_graph(tree: list[tuple[int, int | None, str, Via]]) -> RunGraph:
    """A run's graph as run_view builds it: laid out by graph.lay_out (the lanes are branches.py's)."""
    layout = graph.lay_out((node, parent) for node, parent, _, _ in tree)
    about = {node: (title, via) for node, _, title, via in tree}
    nodes = [
        GraphNode.model_construct(
            node_id=str(p.node_id),
            parent_id=None if p.parent_id is None else str(p.parent_id),
            step_id=about[p.node_id][0].lower(),
            title=about[p.node_id][0],
            depth=p.depth,
            lane=p.lane,
            is_complete=False,
            is_tip=p.node_id == tree[-1][0],
            is_leaf=p.is_leaf,
            via=about[p.node_id][1],
            step_number=p.depth + 1,
            is_blocked=False,
            created_at=AT,
            iteration=None,
            loop_title="",
            place=None,
        )
        for p in layout.nodes
    ]
    return RunGraph.model_construct(nodes=nodes, edges=[], lanes=layout.lanes, depth=layout.depth, tip=str(tree[-1][0]))


def branch_cards(told: graph_story.Told) -> list[list[str]]:
    """Each branch's own cards (branches.lanes over the told graph), by title."""
    by_id = {node.node_id: node for node in told.graph.nodes}
    return [
        [by_id[card].title for card in lane.nodes]
        for lane in branches.lanes((n.node_id, n.parent_id, n.lane) for n in told.graph.nodes)
    ]


def test_a_step_answered_again_is_the_new_branchs_and_it_grows_from_the_step_before():
    # Triage (1) -> List files (2) -> Review (3) -> Post (4); the agent rewound to node 2 and answered
    # "List files" again: node 5 (Review) is a sibling of node 3 under node 2.
    told = graph_story.told(
        run_graph(
            [
                (1, None, "Triage", "start"),
                (2, 1, "List files", "step"),
                (3, 2, "Review", "step"),
                (4, 3, "Post", "step"),
                (5, 2, "Review", "step"),
            ]
        )
    )
    assert branch_cards(told) == [["Triage", "List files", "Review", "Post"], ["List files", "Review"]]
    first = next(node for node in told.graph.nodes if node.lane == 1)
    # The card stands for the node the agent rewound to (its page), drawn beside it, on branch 2.
    assert told.again == {first.node_id: "2"} and told.stored(first.node_id) == "2"
    assert (first.depth, first.is_leaf, first.is_tip) == (1, False, False)
    fork = told.grew_from(first)
    assert fork is not None and fork.node_id == "1"  # the last step both branches share
    # The shown branch's path runs through its own card, not the other branch's.
    parents = {node.node_id: node.parent_id for node in told.graph.nodes}
    assert graph.path_to("5", parents) == ["1", first.node_id, "5"]
    assert {(e.source, e.target) for e in told.graph.edges} >= {("1", first.node_id), (first.node_id, "5")}


def test_a_rewind_to_the_first_step_starts_its_branch_at_the_start():
    told = graph_story.told(
        run_graph(
            [
                (1, None, "Clarify", "start"),
                (2, 1, "Draft", "step"),
                (3, 2, "Check", "step"),
                (4, 1, "Draft", "step"),
            ]
        )
    )
    assert branch_cards(told) == [["Clarify", "Draft", "Check"], ["Clarify", "Draft"]]
    first = next(node for node in told.graph.nodes if node.lane == 1)
    assert first.parent_id is None and first.depth == 0 and told.grew_from(first) is None


def test_a_branch_started_by_hand_is_drawn_beside_the_step_it_redoes_as_an_agents_redo_is():
    # An operator fork is stored as a child of the node whose step it redoes (2, Review), waiting at that step.
    # Drawn under it, "Review" read as a step both branches share (friction r60: "Branches 1-2" on the step branch
    # 2 redoes): it stands beside it instead, from the step before (Triage), and what grew from it a row up.
    tree: list[tuple[int, int | None, str, Via]] = [
        (1, None, "Triage", "start"),
        (2, 1, "Review", "step"),
        (3, 2, "Post", "step"),
        (4, 2, "Review", "fork"),
        (5, 4, "Post", "step"),
    ]
    told = graph_story.told(run_graph(tree))
    assert told.again == {} and branch_cards(told) == [["Triage", "Review", "Post"], ["Review", "Post"]]
    cards = {node.node_id: node for node in told.graph.nodes}
    assert (cards["4"].parent_id, cards["4"].depth, cards["4"].lane) == ("1", cards["2"].depth, 1)
    assert (cards["5"].parent_id, cards["5"].depth) == ("4", cards["3"].depth)
    assert told.redoes == {"4": "2"} and told.redone(cards["4"]) == cards["2"]
    assert told.grew_from(cards["4"]) == cards["1"] and told.graph.depth == 2
    # No card above the fork but Triage is shared: the drawing names no stretch "Branches 1-2" on Review.
    assert graph_drawing.shared_labels(told.graph, graph_drawing.lane_starts(told.graph)) == {"1": "Branches 1-2"}


def test_a_step_redone_by_hand_carries_the_redone_mark_as_an_agents_redo_does():
    # Friction r64: a redo an agent made had the "↺" badge, one a person started with "Branch from here" none. Both
    # redo a step on a branch of their own: one set of cards carries the mark, the drawing's and the list's alike.
    tree: list[tuple[int, int | None, str, Via]] = [
        (1, None, "Triage", "start"),
        (2, 1, "Review", "step"),
        (3, 2, "Post", "step"),
        (4, 2, "Review", "fork"),
        (5, 1, "Review", "step"),
    ]
    told = graph_story.told(run_graph(tree))
    (again,) = told.again
    assert told.redo_cards == {again, "4"}
    svg = graph_drawing.for_screen(told.graph, shown="4", href=lambda node: "/", title="g", again=told.redo_cards)
    by_hand = svg.split('data-node-id="4"', 1)[1].split("</a>", 1)[0]
    assert 'class="again-badge"' in by_hand and ">started by hand</text>" in by_hand
    # A fork that continues its branch from its last node redoes nothing: no mark.
    assert graph_story.told(run_graph([(1, None, "Prepare", "start"), (2, 1, "Prepare", "fork")])).redo_cards == set()


def test_a_branch_started_by_hand_at_the_first_step_starts_at_the_start():
    told = graph_story.told(
        run_graph([(1, None, "Prepare", "start"), (2, 1, "Deploy", "step"), (3, 1, "Prepare", "fork")])
    )
    cards = {node.node_id: node for node in told.graph.nodes}
    assert (cards["3"].parent_id, cards["3"].depth) == (None, 0) and told.grew_from(cards["3"]) is None
    assert graph_drawing.shared_labels(told.graph, graph_drawing.lane_starts(told.graph)) == {}
    assert graph_drawing.lane_starts(told.graph) == {"1", "3"}  # "Branch 1" stands at Prepare, its own now


def test_a_branch_started_by_hand_from_a_branchs_last_node_continues_it_as_stored():
    told = graph_story.told(run_graph([(1, None, "Prepare", "start"), (2, 1, "Prepare", "fork")]))
    assert [(n.node_id, n.parent_id, n.depth) for n in told.graph.nodes] == [("1", None, 0), ("2", "1", 1)]
    assert told.redoes == {}


def test_a_checkpoint_is_a_mark_on_its_steps_card_and_what_grew_from_it_grows_from_that_card():
    # Post (3) was pending when the agent saved a checkpoint (node 4, at the same step) and answered from it.
    told = graph_story.told(
        run_graph(
            [
                (1, None, "Triage", "start"),
                (2, 1, "Review", "step"),
                (3, 2, "Post", "step"),
                (4, 3, "Post", "checkpoint"),
                (5, 4, "Summarize", "step"),
            ]
        )
    )
    assert branch_cards(told) == [["Triage", "Review", "Post", "Summarize"]]
    assert [mark.node_id for mark in told.checkpoints["3"]] == ["4"] and told.card("4") == "3"
    summarize = next(node for node in told.graph.nodes if node.node_id == "5")
    assert (summarize.parent_id, summarize.depth, told.graph.depth) == ("3", 3, 3)  # a row up: no gap


def test_a_checkpoint_at_a_branchs_end_hands_its_card_the_end():
    told = graph_story.told(
        run_graph([(1, None, "Triage", "start"), (2, 1, "Review", "step"), (3, 2, "Review", "checkpoint")])
    )
    review = next(node for node in told.graph.nodes if node.node_id == "2")
    assert review.is_leaf and review.is_tip and told.graph.tip == "2"
    assert told.end("2") == "3"  # the branch's link shows the branch as far as the checkpoint


def test_a_checkpoint_that_starts_a_branch_stays_a_card():
    # Saved at an older node after a rewind: it is that branch (its tip), not a mark on branch 1's card.
    told = graph_story.told(
        run_graph(
            [
                (1, None, "Triage", "start"),
                (2, 1, "Review", "step"),
                (3, 2, "Post", "step"),
                (4, 2, "Review", "checkpoint"),
            ]
        )
    )
    assert told.checkpoints == {} and branch_cards(told) == [["Triage", "Review", "Post"], ["Review"]]
