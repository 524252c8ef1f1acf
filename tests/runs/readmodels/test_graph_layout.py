"""The layout of a run's tree: a column per depth, a lane per branch, no crossing edges."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from runs.readmodels.graph import lay_out, path_to
from tests.support.fuzz_budget import examples


def test_a_straight_run_is_one_lane():
    layout = lay_out([(1, None), (2, 1), (3, 2)])
    assert [(p.node_id, p.depth, p.lane, p.is_leaf) for p in layout.nodes] == [
        (1, 0, 0, False),
        (2, 1, 0, False),
        (3, 2, 0, True),
    ]
    assert (layout.lanes, layout.depth) == (1, 2)


def test_a_fork_opens_a_lane_below_everything_drawn_before_it():
    # 1-2-3-4 with a fork at 2 (5) and at 3 (6): the fork at 3 is drawn first (depth-first), so the
    # older fork at 2 takes the lane below it.
    layout = lay_out([(1, None), (2, 1), (3, 2), (4, 3), (5, 2), (6, 3)])
    lanes = {p.node_id: p.lane for p in layout.nodes}
    assert lanes == {1: 0, 2: 0, 3: 0, 4: 0, 6: 1, 5: 2}
    assert layout.lanes == 3


def test_a_node_whose_parent_is_missing_is_drawn_as_a_root():
    layout = lay_out([(1, None), (2, 99)])
    assert {p.node_id: p.lane for p in layout.nodes} == {1: 0, 2: 1}


def test_a_very_deep_run_lays_out_without_recursion():
    chain = [(1, None)] + [(n, n - 1) for n in range(2, 20_001)]
    layout = lay_out(chain)
    assert layout.depth == 19_999 and layout.lanes == 1
    assert path_to(20_000, dict(chain))[:3] == [1, 2, 3]


def test_a_path_stops_at_a_cycle():
    assert path_to(1, {1: 2, 2: 1}) == [2, 1]


@st.composite
def trees(draw):
    size = draw(st.integers(1, 60))
    return [(1, None)] + [(n, draw(st.integers(1, n - 1))) for n in range(2, size + 1)]


@settings(max_examples=examples(200))
@given(trees())
def test_every_tree_gets_a_lane_per_leaf_and_no_two_edges_cross(tree):
    layout = lay_out(tree)
    placed = {p.node_id: p for p in layout.nodes}
    assert sorted(placed) == sorted(n for n, _ in tree)
    assert layout.lanes == sum(p.is_leaf for p in layout.nodes)
    occupied = {(p.depth, p.lane) for p in layout.nodes}
    assert len(occupied) == len(layout.nodes)  # no two nodes in one place
    for p in layout.nodes:
        if p.parent_id is None:
            continue
        parent = placed[p.parent_id]
        assert p.depth == parent.depth + 1 and p.lane >= parent.lane
        # An edge is drawn as an elbow: right from the parent, down between the two columns, right
        # into the child. Siblings share the way down; no other node may sit in the parent's column
        # between the two lanes, or another parent's edge would cross this one.
        assert not any((parent.depth, lane) in occupied for lane in range(parent.lane + 1, p.lane))
