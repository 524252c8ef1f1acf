"""The branch graph as a picture (runs/readmodels/graph_drawing.py): what a card says, how the shown and
newest nodes, loops, checkpoints and branches are marked, short ids, and the collapsed paper drawing.
Pure: graphs are built by hand and laid out by graph.py, as the run page lays them out."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from runs.contract.dashboard import GraphNode, RunGraph
from runs.readmodels import graph, graph_drawing
from runs.readmodels.graph_drawing import short_id

AT = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)


def drawn(pairs: list[tuple[int, int | None]], **extra: dict[str, object]) -> RunGraph:
    """A RunGraph of (node, parent) pairs, oldest first; `extra` sets fields per node id (as text)."""
    layout = graph.lay_out(pairs)
    newest = str(pairs[-1][0])
    nodes = []
    for placed in layout.nodes:
        fields: dict[str, object] = {
            "node_id": str(placed.node_id),
            "parent_id": str(placed.parent_id) if placed.parent_id is not None else None,
            "step_id": "work",
            "title": f"Step at depth {placed.depth}",
            "depth": placed.depth,
            "lane": placed.lane,
            "is_complete": False,
            "is_tip": str(placed.node_id) == newest,
            "is_leaf": placed.is_leaf,
            "via": "start" if placed.parent_id is None else "step",
            "created_at": AT,
        }
        fields.update(extra.get(str(placed.node_id), {}))
        nodes.append(GraphNode.model_validate(fields))
    return RunGraph(nodes=nodes, edges=[], lanes=layout.lanes, depth=layout.depth, tip=newest)


def screen(run: RunGraph, shown: str | None = None) -> str:
    return graph_drawing.for_screen(
        run, shown=shown or run.tip, href=lambda node: f"/nodes/{node.node_id}/", title="Branch graph"
    )


def card(svg: str, node_id: str) -> str:
    return svg.split(f'data-node-id="{node_id}"', 1)[1].split("</a>", 1)[0]


def test_each_card_shows_its_title_shortened_with_the_full_title_in_its_tooltip():
    long = "Investigate the flaky integration test in the payments service"
    run = drawn([(1, None), (2, 1)], **{"2": {"title": long}})
    svg = screen(run)
    text = re.findall(r'<text class="ct"[^>]*>([^<]*)</text>', card(svg, "2"))
    assert text == ["Investigate the flak…"]
    assert len(text[0]) <= graph_drawing.TITLE_CHARS
    assert f"<title>{long} · Branch 1 · step 2" in card(svg, "2")
    assert "step 2" in re.findall(r'<text class="cs"[^>]*>(.*?)</text>', card(svg, "2"))[0]


def test_a_loop_iteration_is_marked_on_its_card_and_named_in_its_tooltip():
    run = drawn([(1, None), (2, 1), (3, 2)], **{"3": {"iteration": 2, "loop_title": "Verify each slice"}})
    svg = screen(run)
    assert '<tspan class="loop">↻ 2</tspan>' in card(svg, "3")
    assert "iteration 2 of Verify each slice" in card(svg, "3")
    assert "↻" not in card(svg, "2")


def test_checkpoint_and_complete_cards_are_told_apart():
    run = drawn([(1, None), (2, 1), (3, 2)], **{"2": {"via": "checkpoint"}, "3": {"is_complete": True}})
    svg = screen(run)
    assert 'class="card on-branch checkpoint"' in card(svg, "2")
    assert "· checkpoint</text>" in card(svg, "2") and "made by a checkpoint" in card(svg, "2")
    assert 'class="card on-branch complete' in card(svg, "3")


def test_the_newest_and_the_shown_node_carry_tags_and_the_shown_one_is_the_current_link():
    # 1-2-3 then a fork from 1: 4 is the newest; showing the first branch's end (3).
    run = drawn([(1, None), (2, 1), (3, 2), (4, 1)])
    svg = screen(run, shown="3")
    tags = {node: re.findall(r'<text class="tag-text (\w+)"', card(svg, node)) for node in "1234"}
    assert tags == {"1": ["lane"], "2": [], "3": ["current"], "4": ["lane", "newest"]}
    assert re.findall(r'data-node-id="(\d+)" data-lane="\d+" aria-current="true"', svg) == ["3"]
    assert 'class="card on-branch current"' in card(svg, "3")
    assert "the newest node" in card(svg, "4") and "shown" not in card(svg, "4")


def test_branches_are_labelled_in_lane_order_on_their_first_card():
    # Lanes are branches.py's numbering: the oldest child continues, each fork opens the next lane.
    run = drawn([(1, None), (2, 1), (3, 2), (4, 2), (5, 1)])
    svg = screen(run)
    labels = {node: re.findall(r'<text class="tag-text lane"[^>]*>([^<]*)</text>', card(svg, node)) for node in "12345"}
    assert labels == {"1": ["Branch 1"], "2": [], "3": [], "4": ["Branch 2"], "5": ["Branch 3"]}
    assert [p.lane for p in graph.lay_out([(1, None), (2, 1), (3, 2), (4, 2), (5, 1)]).nodes] == [0, 0, 0, 1, 2]


def test_agent_text_in_titles_is_escaped():
    run = drawn([(1, None), (2, 1)], **{"2": {"title": '<script>alert(1)</script> & "x"'}})
    svg = screen(run)
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg and "&amp; &quot;x&quot;" in svg


def test_short_ids_are_the_first_digits():
    assert short_id("1645351772162516728") == "16453517"
    assert short_id(42) == "42"


def test_the_paper_drawing_collapses_long_straight_stretches_and_keeps_forks_and_ends():
    pairs: list[tuple[int, int | None]] = [(1, None)] + [(n, n - 1) for n in range(2, 201)] + [(201, 5)]
    run = drawn(pairs)
    paper = graph_drawing.for_paper(run, shown=None, title="Branch graph")
    assert paper is not None
    assert "<script" not in paper and "href" not in paper and "<style>" in paper  # styled in itself, no links
    drawn_ids = set(re.findall(r'data-node-id="(\d+)"', paper))
    assert {"1", "5", "6", "200", "201"} <= drawn_ids  # the root, the fork, its children, the ends
    assert len(drawn_ids) < 20
    assert re.findall(r"⋯ (\d+) steps", paper) == ["191"]  # depths 6..196 of branch 1: one chip
    width, height = re.findall(r'width="([\d.]+)mm" height="([\d.]+)mm"', paper)[0]
    assert float(width) <= graph_drawing.PAPER_WIDTH_MM and float(height) <= graph_drawing.PAPER_HEIGHT_MM


def test_the_screen_drawing_draws_every_node():
    run = drawn([(1, None)] + [(n, n - 1) for n in range(2, 301)])
    svg = screen(run)
    assert svg.count('class="graph-node"') == 300
    assert "⋯" not in svg
