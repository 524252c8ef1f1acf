"""The branch graph as a picture (runs/readmodels/graph_drawing.py): what a card says, how the shown and
newest nodes, loops, checkpoints and branches are marked, short ids, and the collapsed paper drawing.
Pure: graphs are built by hand and laid out by graph.py, as the run page lays them out."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime
from html import escape

from runs.contract.dashboard import GraphNode, RunGraph, StepPlace
from runs.readmodels import branches, graph, graph_drawing, step_places
from runs.readmodels.graph_drawing import short_id

AT = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)


def drawn(pairs: list[tuple[int, int | None]], **extra: dict[str, object]) -> RunGraph:
    """A RunGraph of (node, parent) pairs, oldest first; `extra` sets fields per node id (as text)."""
    layout = graph.lay_out(pairs)
    newest = str(pairs[-1][0])
    same_step = {node for node, fields in extra.items() if fields.get("via") in ("checkpoint", "fork")}
    numbers = branches.step_numbers(((str(p.node_id), str(p.parent_id)) for p in layout.nodes), same_step)
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
            "step_number": numbers[str(placed.node_id)],
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
    assert text == ["Investigate the", "flaky integration…"]  # two lines, then shortened
    assert all(len(line) <= graph_drawing.TITLE_CHARS for line in text)
    assert f"<title>{long} · Branch 1 · step 2" in card(svg, "2")
    assert "step 2" in re.findall(r'<text class="cs"[^>]*>(.*?)</text>', card(svg, "2"))[0]


def test_a_loop_iteration_is_marked_on_its_card_and_named_in_its_tooltip():
    run = drawn([(1, None), (2, 1), (3, 2)], **{"3": {"iteration": 2, "loop_title": "Verify each slice"}})
    svg = screen(run)
    assert '<tspan class="loop">↻ 2</tspan>' in card(svg, "3")
    # Without an outline place, the tooltip says the round as the step list would: "round 2 in “…”".
    assert "round 2 in “Verify each slice”" in card(svg, "3")
    assert "↻" not in card(svg, "2")


def place(position: int, length: int, round_: int | None = None, inner: int | None = None) -> dict[str, object]:
    return {"place": {"position": position, "length": length, "round": round_, "inner": inner}}


def test_a_card_says_its_steps_place_in_the_outline_in_the_step_lists_words():
    # The outline's 2nd entry is a loop: the 3rd step taken is its 2nd round, the 5th the outline's 3rd entry.
    run = drawn(
        [(1, None), (2, 1), (3, 2), (4, 3), (5, 4)],
        **{
            "1": place(1, 3),
            "2": {**place(2, 3, 1, 1), "iteration": 1, "loop_title": "Verify each slice"},
            "3": {**place(2, 3, 1, 2), "iteration": 1, "loop_title": "Verify each slice"},
            "4": {**place(2, 3, 1, 2), "iteration": 1, "via": "checkpoint"},
            "5": place(3, 3),
        },
    )
    svg = screen(run)
    lines = [step_line(svg, node) for node in "12345"]
    # The one locator of the steps list's headings and the headline (friction19b 9, 22a A1), the card's title
    # naming the step, which tells a round's cards apart; a loop's card says the list's words whole (friction60a 4:
    # "loop round 1, part 1 of 2" on a card, no step at all), never the outline's "2.1" (friction24a 10); the
    # tooltip says it whole, with the loop's name.
    assert lines == [
        "step 1 of 3",
        "step 2 of 3 (round 1)",
        "step 2 of 3 (round 1)",
        "step 2 of 3 (round 1)",
        "step 3 of 3",
    ]
    assert all(line == node.place.brief for line, node in zip(lines, run.nodes, strict=True))
    assert "step 2 of 3 (round 1)" in svg
    assert "↻" not in svg  # the round is in the words: no second mark for it, and none in the legend
    assert "loop" not in {entry.key for entry in graph_drawing.legend(run, shown="5")}
    # The checkpoint's card names what made it under a one-line title, its place whole on the step line.
    assert re.findall(r'<text class="cv"[^>]*>([^<]*)</text>', card(svg, "4")) == ["checkpoint"]
    assert len(re.findall(r'<text class="ct"', card(svg, "4"))) == 1
    assert "made by a checkpoint during step 2 of 3 (round 1)" in card(svg, "4")
    assert all(len(line) <= graph_drawing.LOCATOR_CHARS for line in lines)


def test_a_long_stretch_in_a_loop_is_said_in_rounds_of_its_step():
    nodes = [(1, None)] + [(n, n - 1) for n in range(2, 301)]
    rounds = {str(n): place(2, 3, n - 1) for n in range(2, 300)}
    svg = screen(drawn(nodes, **{"1": place(1, 3), **rounds, "300": place(3, 3)}))
    # The chip between "step 2 of 3 (round 4)" and "step 2 of 3 (round 295)": the rounds it leaves out; its
    # tooltip says the step too.
    assert "⋯ rounds 5-294" in svg
    assert "not drawn (step 2 of 3 (rounds 5-294))" in svg


def test_a_stretch_of_one_rounds_steps_names_the_loops_entry_not_one_steps_letter():
    # Friction61a 6, 61b 1: a round's steps are lettered; a stretch holding 2a and 2b says the entry they share.
    a, b = (step_places.place(1, 4, (0, 3, 0), i, frame={"count": 9}) for i in (0, 2))
    first = GraphNode.model_construct(place=a, step_number=2, is_complete=False)
    last = GraphNode.model_construct(place=b, step_number=4, is_complete=False)
    assert graph_drawing.stretch_words(first, last) == "step 2 of 3 (round 4 of 9)"
    assert graph_drawing.stretch_words(first, first) == "step 2a of 3 (round 4 of 9)"


def test_checkpoint_and_complete_cards_are_told_apart():
    run = drawn([(1, None), (2, 1), (3, 2)], **{"2": {"via": "checkpoint"}, "3": {"is_complete": True}})
    svg = screen(run)
    assert 'class="card on-branch checkpoint"' in card(svg, "2")
    assert ">checkpoint</text>" in card(svg, "2") and "made by a checkpoint" in card(svg, "2")
    assert 'class="card on-branch complete' in card(svg, "3")


def test_a_checkpoint_with_a_long_title_keeps_it_whole_and_says_what_made_it_on_its_step_line():
    # Cut to one line ("Post the Approved…") it read as another step than the one it checkpoints.
    run = drawn([(1, None), (2, 1), (3, 2)], **{"2": {"via": "checkpoint", "title": "Post the Approved Comments"}})
    drawing = card(screen(run), "2")
    assert re.findall(r'<text class="ct"[^>]*>([^<]*)</text>', drawing) == ["Post the Approved", "Comments"]
    step_line = drawing.split('<text class="cs"', 1)[1].split("</text>", 1)[0]
    assert step_line.endswith(' · <tspan class="cv">checkpoint</tspan>') and '<text class="cv"' not in drawing


def test_the_screen_tags_neither_the_newest_nor_the_shown_node_and_the_shown_one_is_the_current_link():
    # 1-2-3 then a fork from 1: 4 is the newest; showing the first branch's end (3). Friction14: the blue fill
    # of the branch viewed and the branch states say where; no "latest", no "you are viewing" tag beside them.
    run = drawn([(1, None), (2, 1), (3, 2), (4, 1)])
    svg = screen(run, shown="3")
    tags = {node: re.findall(r'<text class="tag-text (\w+)"', card(svg, node)) for node in "1234"}
    # Each branch named where it splits off (card 1 is both branches'), the viewed one's name over "viewing".
    assert tags == {"1": [], "2": ["lane"], "3": [], "4": ["lane"]}
    assert re.findall(r'<text class="tag-text lane viewing"[^>]*>([^<]*)<', card(svg, "2")) == ["viewing"]
    assert "latest" not in svg and ">you are viewing<" not in svg
    assert re.findall(r'data-node-id="(\d+)" data-lane="\d+" aria-current="true"', svg) == ["3"]
    assert 'class="card on-branch current"' in card(svg, "3")
    # Said on hover still, in the card's tooltip.
    assert "the step the run reached last" in card(svg, "4") and "viewing" not in card(svg, "4")
    # The paper, which shows no page, keeps its "newest" tag.
    paper = graph_drawing.for_paper(run, shown=None, title="g") or ""
    assert re.findall(r'<text class="tag-text newest"[^>]*>([^<]*)<', card(paper, "4")) == ["newest"]


def test_on_screen_the_tags_stand_beside_their_card_one_under_the_other_never_on_its_border():
    # A branch of one node: its name, its state, "newest" and "shown" all apply to one card, which carries
    # its branch's name and its one tag, its state (friction14: no marker of where); the name stays whether the
    # card is viewed or not (friction8 item 11).
    run = drawn([(1, None), (2, 1), (3, 1)])
    svg = graph_drawing.for_screen(
        run, shown="3", href=lambda node: f"/nodes/{node.node_id}/", title="g", states={"3": "running"}
    )
    drawn_card = card(svg, "3")
    x, y, w, h = (
        int(v)
        for v in re.search(
            r'<rect class="card[^"]*" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"', drawn_card
        ).groups()
    )
    tags = [
        tuple(int(v) for v in m)
        for m in re.findall(r'<rect class="tag [^"]*" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"', drawn_card)
    ]
    said = r'<text class="tag-text [^"]*"[^>]*>([^<]*)</text>'
    assert re.findall(said, drawn_card) == ["Branch 2", "viewing", "Working"]
    # Shown from elsewhere, the same card says the same but for "viewing".
    other = graph_drawing.for_screen(run, shown="2", href=lambda node: "/", title="g", states={"3": "running"})
    assert re.findall(said, card(other, "3")) == ["Branch 2", "Working"]
    for tx, ty, tw, th in tags:
        assert x + w < tx and tx + tw <= x + w + graph_drawing.TAG_ROOM  # right of the card, off its borders
        # Clear of the thickest outline (the viewed branch's, the focus ring) by a fixed gap (friction17b 7).
        assert tx - (x + w + graph_drawing.OUTLINE_OUT) >= 6
        assert y <= ty and ty + th < y + h + 13  # level with the card, above the elbow of the edges under it
    tops = [ty for _, ty, _, _ in tags]
    assert all(b - a >= graph_drawing.TAG_H for a, b in itertools.pairwise(tops))  # none on another
    # The next lane starts beyond the widest tag.
    assert graph_drawing.SCREEN.lane_step >= w + graph_drawing.TAG_ROOM


def test_branches_are_labelled_in_lane_order_where_each_diverges_never_beside_a_shared_card():
    # Lanes are branches.py's numbering: the oldest child continues, each fork opens the next lane.
    run = drawn([(1, None), (2, 1), (3, 2), (4, 2), (5, 1)])
    svg = screen(run, shown="4")

    def labels(svg: str) -> dict[str, list[str]]:
        return {
            node: re.findall(r'<text class="tag-text lane[^"]*"[^>]*>([^<]*)</text>', card(svg, node))
            for node in "12345"
        }

    # Friction18a 13, friction18b 3: cards 1 and 2 are every branch's (branch 2 grew from 2, branch 3 from 1);
    # "Branch 1" beside them read as "these are branch 1's", and as "I'm on branch 1" while viewing branch 2.
    # Each name stands where its branch splits off, the viewed one's marked so.
    # Friction22b 15: the shared first steps are headed too, faint, by the branches that share them (named only at
    # the split, they read as unlabelled); the first card's tooltip says so as well. r59: one rule for every name,
    # a name wherever the branches a card belongs to change: card 2 is branches 1 and 2's (branch 3 left at 1), so
    # it heads "Branches 1-2" and "Branch 1" below it reads as branch 1's own first step, not its beginning.
    assert labels(svg) == {
        "1": ["Branches 1-3"],
        "2": ["Branches 1-2"],
        "3": ["Branch 1"],
        "4": ["Branch 2", "viewing"],
        "5": ["Branch 3"],
    }
    assert '<text class="tag-text lane shared"' in card(svg, "1") and "<title>Step at depth 0 · Branches 1-3 · " in svg
    assert "<title>Step at depth 1 · Branches 1-2 · " in card(svg, "2")
    # Every branch's own name stands at its first card no other branch shares, whichever lane it is drawn in.
    starts = {"Branch 1": "3", "Branch 2": "4", "Branch 3": "5"}
    assert {name: node for node, said in labels(svg).items() for name in said if name in starts} == starts
    # Down a trunk forked at every step, each shared stretch is named by the branches still on it.
    forks = drawn([(1, None), (2, 1), (3, 2), (4, 3), (5, 3), (6, 2), (7, 1)])
    assert graph_drawing.shared_labels(forks, graph_drawing.lane_starts(forks)) == {
        "1": "Branches 1-4",
        "2": "Branches 1-3",
        "3": "Branches 1-2",
    }
    assert graph_drawing.branches_label([1, 3]) == "Branches 1, 3"
    # No shared card, no such heading: branches forked at the start, or one branch alone.
    assert "lane shared" not in screen(drawn([(1, None), (2, None)]))
    assert "lane shared" not in screen(drawn([(1, None), (2, 1)]))
    assert labels(screen(run, shown="3"))["3"] == ["Branch 1", "viewing"]
    assert [p.lane for p in graph.lay_out([(1, None), (2, 1), (3, 2), (4, 2), (5, 1)]).nodes] == [0, 0, 0, 1, 2]
    assert graph_drawing.lane_starts(drawn([(1, None), (2, 1), (3, 2)])) == {"1"}  # one branch: its first card
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
    assert re.findall(r"⋯ steps (\d+)-(\d+)", paper) == [("8", "198")]  # 191 nodes of branch 1: one chip
    width, height = re.findall(r'width="([\d.]+)mm" height="([\d.]+)mm"', paper)[0]
    assert float(width) <= graph_drawing.PAPER_WIDTH_MM and float(height) <= graph_drawing.PAPER_HEIGHT_MM


def size(svg: str) -> tuple[int, int]:
    width, height = re.findall(r'viewBox="0 0 (\d+) (\d+)"', svg)[0]
    return int(width), int(height)


def test_the_screen_drawing_runs_down_draws_every_node_of_a_short_run_and_collapses_a_long_one():
    short = screen(drawn([(1, None)] + [(n, n - 1) for n in range(2, 21)]))
    assert short.count('class="graph-node"') == 20 and "⋯" not in short
    # Down the page: one branch is one card wide however deep it goes (the box never cuts it).
    long = screen(drawn([(1, None)] + [(n, n - 1) for n in range(2, 301)]))
    assert size(long)[0] == size(short)[0] < 360  # a card and its tags beside it
    assert "⋯ steps 6-295" in long
    assert 'data-node-id="1"' in long and 'data-node-id="300"' in long


def test_each_branch_tip_carries_its_state_as_a_class_and_a_word():
    run = drawn([(1, None), (2, 1), (3, 1), (4, 1)], **{"2": {"is_blocked": True}})
    states = {"2": "blocked", "3": "left-behind", "4": "waiting"}
    svg = graph_drawing.for_screen(run, shown="4", href=lambda node: "/", title="Branch graph", states=states)
    assert "state-blocked" in card_classes(svg, "2") and "state-waiting" in card_classes(svg, "4")
    tag = r'<text class="tag-text state state-[\w-]+"[^>]*>([^<]*)<'
    words = {node: re.findall(tag, card(svg, node)) for node in "234"}
    assert words == {"2": ["Refused"], "3": ["Left behind"], "4": ["Confirm"]}
    assert step_line(svg, "2") == "step 2"  # said once, by the state tag
    assert "its branch: Left behind (no agent works on this branch any more)" in card(svg, "3")
    keys = [entry.key for entry in graph_drawing.legend(run, shown="4", states=states)]
    assert keys[:3] == ["state-blocked", "state-waiting", "state-left-behind"] and "blocked" not in keys


def step_line(svg: str, node_id: str) -> str:
    return re.sub(r"<[^>]+>", "", re.findall(r'<text class="cs"[^>]*>(.*?)</text>', card(svg, node_id))[0])


def card_classes(svg: str, node_id: str) -> list[str]:
    return re.findall(r'<rect class="([^"]*)"', card(svg, node_id))[0].split()


def test_a_checkpoint_card_stays_at_its_step_and_a_complete_card_says_the_end():
    # start (step 1) - step taken (2) - a checkpoint during step 2 - a step taken (3) - complete. Without
    # outline places (a state that holds none) a card says its step as the step list then does: "step 2".
    run = drawn([(1, None), (2, 1), (3, 2), (4, 3), (5, 4)], **{"3": {"via": "checkpoint"}, "5": {"is_complete": True}})
    svg = screen(run)
    # The end card is no empty box (tenth review item 5): "Complete", then what it means.
    assert [step_line(svg, node) for node in "12345"] == ["step 1", "step 2", "step 2", "step 3", "all steps done"]
    assert "made by a checkpoint during step 2" in card(svg, "3")
    assert "· the end of its branch ·" in card(svg, "5")  # its tooltip; its title and state tag say it


def test_a_complete_card_says_the_steps_its_branch_passed_over():
    # friction61b 11: "Complete · all steps done" on a branch whose step 3 was skipped on the way.
    run = drawn([(1, None), (2, 1), (3, 2), (4, 3)], **{"4": {"is_complete": True}})
    skip = graph_drawing.Skipped("step 3 skipped", "Trace · step 3 of 8, skipped: it runs only if x")
    passed = {"3": (skip,)}
    svg = graph_drawing.for_screen(run, shown="4", href=lambda n: "/", title="g", skipped=lambda c: passed.get(c, ()))
    assert step_line(svg, "4") == "1 step skipped"
    loop = graph_drawing.Skipped("step 5 skipped", "Loop · step 5 of 8, skipped")  # a loop that ran no round
    passed = {"2": (skip,), "3": (skip, loop)}
    svg = graph_drawing.for_screen(run, shown="4", href=lambda n: "/", title="g", skipped=lambda c: passed.get(c, ()))
    assert step_line(svg, "4") == "3 steps skipped"  # one word for both (friction63b 12: "skipped" vs "not run")


def test_a_branch_started_by_hand_and_a_blocked_tip_are_told_apart():
    run = drawn([(1, None), (2, 1), (3, 1)], **{"3": {"via": "fork"}, "2": {"is_blocked": True}})
    svg = screen(run, shown="3")
    assert "by-hand" not in card_classes(svg, "3")  # said in words alone (friction62b 13)
    assert step_line(svg, "3") == "step 1"  # a fork waits at its parent's step
    assert re.findall(r'<text class="tag-text lane via"[^>]*>([^<]*)</text>', card(svg, "3")) == ["started by hand"]
    assert "blocked" in card_classes(svg, "2")
    assert step_line(svg, "2") == "step 2 · refused"
    assert "refused: the agent must send this step&#x27;s answer again" in card(svg, "2")


def test_the_legend_lists_only_the_marks_the_drawing_holds():
    plain = drawn([(1, None), (2, 1)])
    keys = [entry.key for entry in graph_drawing.legend(plain, shown="2")]
    assert keys == ["on-branch", "lane", "current"]  # no loop, checkpoint, complete, other branches
    # The newest node shown: it says "you are viewing" alone, so "latest" is explained only where drawn.
    assert [entry.key for entry in graph_drawing.legend(plain, shown="1")][-2:] == ["current", "newest"]
    # The screen tags neither (friction14), so its legend explains neither.
    forked = drawn([(1, None), (2, 1), (3, 1)])
    states = {"2": "left-behind", "3": "running"}
    on_screen = {entry.key for entry in graph_drawing.legend(forked, shown="2", states=states, screen=True)}
    assert not on_screen & {"newest", "current"}
    svg = graph_drawing.for_screen(forked, shown="2", href=lambda node: "/", title="g", states=states)
    assert 'class="tag-text newest"' not in svg and 'class="tag-text current"' not in svg
    marked = drawn(
        [(1, None), (2, 1), (3, 2), (4, 1), (5, 1)],
        **{
            "2": {"iteration": 2},
            "3": {"via": "checkpoint", "is_complete": True},
            "4": {"via": "fork"},
            "5": {"is_blocked": True},
        },
    )
    legend = {entry.key: entry.words for entry in graph_drawing.legend(marked, shown="3")}
    assert list(legend) == [
        "on-branch",
        "other",
        "lane",
        "checkpoint",
        "by-hand",
        "complete",
        "blocked",
        "loop",
        "current",
        "newest",
    ]
    # One rule for every branch's tag, and what filled and hollow cards mean, said (friction7 12).
    assert legend["lane"] == "stands at branch N's first step of its own"
    assert legend["on-branch"].startswith("blue fill: the branch you are viewing")
    assert legend["other"].startswith("hollow: ")
    assert legend["loop"] == "the n-th time round a loop"
    assert legend["by-hand"] == "dotted border: a branch a person started by hand"


def in_sight(entries: list[graph_drawing.LegendEntry]) -> dict[str, str]:
    return {entry.key: entry.words for entry in entries if entry.in_sight}


def test_the_legend_in_sight_says_what_left_behind_means_and_explains_the_marks_drawn():
    # Tenth review item 4: a legend made from the drawing, each entry true for this run.
    states = {"3": "left-behind", "4": "running"}
    # The agent rewound: branch 2 answered step 2 again; branch 1 is left behind by the rewind.
    rewound = drawn(
        [(1, None), (2, 1), (3, 2), (4, 1)],
    )
    told = in_sight(graph_drawing.legend(rewound, shown="4", states=states, again={"4"}, screen=True))
    # One rule for the screen's cards (friction24a 5, 24b 11): a dashed border where no agent works on the branch
    # any more, the fill the step's state; the states it says ("Left behind", "Working") are not keyed again by their
    # word, and no meaning is said twice.
    assert told == {
        "answered": "green fill: answered",
        "pending": "blue fill: current, the step the agent works on",
        "unreached": "grey fill: not answered",
        "aside": "grey dashed border: no agent works on that branch any more",
        "again": "the branch's first step, redone after branching (the steps above it are shared)",
    }
    every = graph_drawing.legend(rewound, shown="4", states=states, again={"4"}, screen=True)
    assert [entry.key for entry in every if entry.said_by_rule] == ["state-left-behind", "state-running"]
    shown = [entry.words for entry in every if not entry.said_by_rule]
    assert len(shown) == len(set(shown)) and sum("no agent works" in words for words in shown) == 1
    # Friction24a 18: the key's names in one case.
    assert [entry.name for entry in every if entry.in_sight] == [
        "answered",
        "current",
        "not answered",
        "no agent works on that branch any more",
        "redone",
    ]
    # Friction15a 6: "left behind" means one thing on every drawing, whichever branch the agent is on and however
    # the branch came about (its pill's word, on a phone); the card's words say how a branch began by hand, no key
    # of a border (friction62a 9, 62b 13: a teal dotted key no card was drawn with).
    by_hand = drawn([(1, None), (2, 1), (3, 2), (4, 1)], **{"4": {"via": "fork"}})
    every = graph_drawing.legend(by_hand, shown="4", states=states, screen=True)
    assert next(e.words for e in every if e.key == "state-left-behind") == "no agent works on this branch any more"
    told = in_sight(every)
    assert list(told) == ["answered", "pending", "unreached", "aside"]
    svg = graph_drawing.for_screen(by_hand, shown="4", href=lambda node: "/", title="g", states=states)
    assert "Left behind (no agent works on this branch any more)" in card(svg, "3")  # its tooltip agrees
    # Checkpoints drawn as marks: their key in sight; the marks whose words explain themselves stay behind the "?".
    entries = graph_drawing.legend(rewound, shown="4", states=states, checkpoints=True, screen=True)
    assert "checkpoint-mark" in in_sight(entries)
    # friction22a B8: the branch viewed is its dark line and "viewing" under its name, which say themselves: its
    # entry waits behind the "?" with the lanes' names.
    assert {entry.key for entry in entries if not entry.in_sight and not entry.said_by_rule} == {"lane", "on-branch"}
    viewed = next(entry for entry in entries if entry.key == "on-branch")
    assert viewed.swatch == "line" and viewed.words.startswith("dark line, “viewing” under its name")
    # Paper keeps its own fills (the blue of the branch shown, hollow others): its legend says those.
    paper = {entry.key: entry.words for entry in graph_drawing.legend(rewound, shown="4", states=states)}
    assert paper["on-branch"].startswith("blue fill") and "other" in paper and "answered" not in paper


def test_the_screen_fills_each_card_by_its_steps_state():
    # Friction15b 15: 1 is shared by both branches (answered), 2 only the left-behind branch holds (aside), 3 and 5
    # are the tips (their state), 4 is answered on the running branch; the viewed branch adds no class of state.
    run = drawn([(1, None), (2, 1), (3, 2), (4, 1), (5, 4)])
    states = {"3": "left-behind", "5": "running"}
    svg = graph_drawing.for_screen(run, shown="3", href=lambda node: "/", title="g", states=states)
    assert "answered" in card_classes(svg, "1") and "aside" not in card_classes(svg, "1")
    assert "aside" in card_classes(svg, "2") and "on-branch" in card_classes(svg, "2")
    # Friction16a 2: answered stays answered (green) on the branch left behind; "aside" only dashes its outline.
    assert "answered" in card_classes(svg, "2")
    assert "answered" in card_classes(svg, "4") and "on-branch" not in card_classes(svg, "4")
    assert {"answered", "aside"}.isdisjoint(card_classes(svg, "3")) and "state-left-behind" in card_classes(svg, "3")
    assert "state-running" in card_classes(svg, "5")
    # Paper draws no state fills.
    paper = graph_drawing.for_paper(run, shown="3", title="g") or ""
    assert 'class="card answered' not in paper and " aside" not in paper


def test_the_paper_drawing_places_steps_as_the_reports_and_the_dashboard_do():
    # The reports name a step by its place in the outline ("Step 2 of 3, round 2 · Record…"), as the
    # dashboard does: their drawing's cards say the same, not the count of steps taken.
    run = drawn(
        [(1, None), (2, 1), (3, 2)],
        **{"1": place(1, 3), "2": {**place(2, 3, 1), "iteration": 1}, "3": {**place(2, 3, 2), "iteration": 2}},
    )
    paper = graph_drawing.for_paper(run, shown=None, title="Branch graph")
    assert paper is not None
    lines = [re.sub(r"<[^>]+>", "", line) for line in re.findall(r'<text class="cs"[^>]*>(.*?)</text>', paper)]
    assert lines == ["step 1 of 3", "step 2 of 3 (round 1)", "step 2 of 3 (round 2)"]
    assert "loop" not in {entry.key for entry in graph_drawing.legend(run, shown=None)}  # the words say it


def start_edges(svg: str) -> list[tuple[str, str, str]]:
    return re.findall(r'<path class="edge start-edge( on-branch)?" d="M(\d+) (\d+)', svg)


def test_branches_that_forked_at_the_start_hang_from_one_start_root_on_screen():
    # Friction13 item 6: a rewind to the run's first step starts a second root; on screen both hang from "Start".
    rewound = drawn([(1, None), (2, 1), (3, None), (4, 3)])
    svg = screen(rewound, shown="4")
    assert svg.count('class="start-root"') == 1 and ">Start</text>" in svg
    edges = start_edges(svg)
    assert len(edges) == 2 and len({(x, y) for _, x, y in edges}) == 1  # one root, a line into each branch
    assert [on for on, _, _ in edges] == ["", " on-branch"]  # the shown branch's line in the accent colour
    top = int(re.search(r'class="card[^"]*" x="\d+" y="(\d+)"', svg).group(1))
    assert int(edges[0][2]) < top  # above every first card
    assert escape("each branch below it began at the run's first step") in svg
    # The paper has no Start root: its figure begins at the first step.
    assert "start-root" not in (graph_drawing.for_paper(rewound, shown="4", title="g") or "")


def test_every_screen_graph_starts_from_start_even_when_it_forked_mid_way() -> None:
    # Friction14: the Start root came only on runs that forked at their start, so graphs began two ways. A run
    # that forked mid-way has it too: one root, one line into the first card, nothing else hangs from it.
    mid_way = drawn([(1, None), (2, 1), (3, 2), (4, 2)])
    svg = screen(mid_way, shown="3")
    assert svg.count('class="start-root"') == 1 and ">Start</text>" in svg
    assert f"<title>{escape(graph_drawing.START_TIP)}</title>" in svg
    edges = start_edges(svg)
    assert [on for on, _, _ in edges] == [" on-branch"]
    top = min(int(y) for y in re.findall(r'<rect class="card[^"]*" x="\d+" y="(\d+)"', svg))
    assert int(edges[0][2]) < top
    # The root's pill is no tag: tags are a card's, and it is the graph's.
    assert 'class="tag' not in svg.split('<g class="start-root">', 1)[1].split("</g>", 1)[0]
    # Forked at the start or mid-way: the same top, the first card as far down.
    rewound = drawn([(1, None), (2, 1), (3, None), (4, 3)])
    first_y = [re.search(r'class="card[^"]*" x="\d+" y="(\d+)"', d).group(1) for d in (svg, screen(rewound))]
    assert first_y[0] == first_y[1]


def test_a_branch_name_heads_its_column_first_beside_its_first_card():
    forked = drawn([(1, None), (2, 1), (3, 1)])
    svg = graph_drawing.for_screen(forked, shown="3", href=lambda node: "/", title="g", states={"3": "running"})
    tags = re.findall(r'<text class="tag-text ([^"]+)"', card(svg, "3"))
    assert tags == ["lane", "lane viewing", "state state-running"]  # the name first, above its one tag


def test_a_card_carries_one_tag_at_most_and_a_checkpoint_is_a_diamond_on_its_card_not_a_tag() -> None:
    # Friction14: eight badges on one graph, and "redone" and "checkpoint" two look-alike dashed pills. A rewind to
    # step 2 (branch 2's first card, 4, redoes it), two checkpoints saved during step 2 of branch 1.
    run = drawn([(1, None), (2, 1), (3, 2), (4, 1), (5, 4)])
    states = {"3": "left-behind", "5": "running"}
    svg = graph_drawing.for_screen(
        run,
        shown="5",
        href=lambda node: f"/nodes/{node.node_id}/",
        title="g",
        states=states,
        again={"4"},
        checkpoints=lambda card_id: ("/nodes/8/", "/nodes/9/") if card_id == "2" else (),
    )
    said = r'<text class="tag-text ([^"]+)"[^>]*>([^<]*)</text>'
    tags = {
        node: [(kind, text) for kind, text in re.findall(said, card(svg, node)) if not kind.startswith("lane")]
        for node in "12345"
    }
    assert tags == {
        "1": [],
        "2": [],
        "3": [("state state-left-behind", "Left behind")],
        "4": [],
        "5": [("state state-running", "Working")],
    }
    # The graph's tags: its branches' states, nothing else (friction22b A5: "↺ redone" as a pill under "Branch 2"
    # read as a branch state); the redone step is a badge inside its card's box, named for a screen reader.
    assert len(re.findall(r'<rect class="tag (?!lane)', svg)) == 2
    assert svg.count('class="again-badge"') == 1 and 'class="again-badge"' in card(svg, "4")
    x4, y4, w4, h4 = (
        int(v)
        for v in re.search(
            r'class="card[^"]*" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"', card(svg, "4")
        ).groups()  # type: ignore[union-attr]
    )
    cx, cy, r = (
        int(v)
        for v in re.search(r'class="again-dot" cx="(\d+)" cy="(\d+)" r="(\d+)"', card(svg, "4")).groups()  # type: ignore[union-attr]
    )
    assert x4 + w4 // 2 < cx - r and cx + r < x4 + w4 and y4 < cy - r and cy + r < y4 + h4 // 2  # top right, inside
    assert 'role="img" aria-label="redone after branching"' in card(svg, "4") and ">↺</text>" in card(svg, "4")
    # Each checkpoint: a link of its own holding a diamond (a path, no rect, no word) inside its card's top right
    # corner (friction62a 9, 62b 4: under the card, on the line to the next step, it read as "after this step"; on
    # the edge as a rendering glitch, friction61b 8; on a line as a junction, friction28a 5), clear of the title.
    marks = re.findall(r'<a href="([^"]+)" class="checkpoint-mark">(.*?)</a>', svg)
    assert [href for href, _ in marks] == ["/nodes/8/", "/nodes/9/"]
    x, y, w, h = (
        int(v)
        for v in re.search(
            r'class="card[^"]*" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"', card(svg, "2")
        ).groups()
    )
    for _, body in marks:
        assert "<rect" not in body and "checkpoint</text>" not in body
        top_x, top_y = (int(v) for v in re.search(r'<path class="checkpoint-flag" d="M(\d+) (\d+)', body).groups())
        r = graph_drawing.CHECKPOINT_R
        assert x + w // 2 < top_x - r and top_x + r < x + w and y < top_y and top_y + 2 * r < y + h // 2
    # The key names them by their shapes: "↺ redone" and the checkpoint's diamond, in sight beside the drawing.
    entries = graph_drawing.legend(run, shown="5", states=states, checkpoints=True, again={"4"}, screen=True)
    assert {entry.key: entry.name for entry in entries if entry.key in ("again", "checkpoint-mark")} == {
        "again": "redone",
        "checkpoint-mark": "checkpoint",
    }
    assert {entry.key: entry.swatch for entry in entries if entry.key in ("again", "checkpoint-mark")} == {
        "again": "badge",
        "checkpoint-mark": "diamond",
    }
    assert graph_drawing.CHECKPOINT_GLYPH == "◆" and graph_drawing.AGAIN_GLYPH not in graph_drawing.STATE_WORDS.values()


# The classes of a card that say where, not what it is (the shown node, the newest, the branch viewed): no fill or
# outline of their own on screen (the branch viewed is its dark line and "viewing" under its name, friction22a B8).
WHERE_CLASSES = {"card", "on-branch", "current", "newest"}


def test_the_legend_draws_every_fill_and_outline_the_cards_use_as_a_swatch_of_the_same_classes():
    # friction22a B8, friction22b A5: grey (a branch no agent works on) and blue (the agent's step) had no key.
    # Four branches: one done (complete), one left behind, one replaced by hand, one the agent works on, started
    # from a checkpoint; a redone step and a branch started by hand.
    run = drawn(
        [(1, None), (2, 1), (3, 2), (4, 3), (5, 1), (6, 5), (7, 2), (8, 2), (9, 8)],
        **{"4": {"is_complete": True}, "7": {"via": "fork"}, "8": {"via": "checkpoint"}},
    )
    states = {"4": "done", "6": "left-behind", "7": "superseded", "9": "running"}
    svg = graph_drawing.for_screen(run, shown="9", href=lambda node: "/", title="g", states=states, again={"5"})
    entries = graph_drawing.legend(run, shown="9", states=states, again={"5"}, screen=True)
    keyed = {cls for entry in entries if entry.swatch == "card" for cls in entry.card_classes.split()}
    used = {cls for classes in re.findall(r'<rect class="(card[^"]*)"', svg) for cls in classes.split()}
    assert used - WHERE_CLASSES <= keyed, used - WHERE_CLASSES - keyed
    assert {"state-left-behind", "state-running", "state-superseded", "answered", "aside"} <= used
    # Each branch state by its word, a swatch of its card (never a pill: the pills read as filters).
    # The key names each lower-case (friction24a 18); "?" says the pill's own word.
    said = {entry.key: (entry.tag, entry.name) for entry in entries if entry.tag}
    assert said == {
        "state-superseded": ("Replaced", "replaced"),
        "state-left-behind": ("Left behind", "left behind"),
        "state-done": ("Done", "done"),
        "state-running": ("Working", "working"),
    }
    assert all(entry.swatch == "card" for entry in entries if entry.tag)
    # The marks that are no card: the redone step's badge, the branch viewed's line, the lanes' names.
    assert {entry.key: entry.swatch for entry in entries if entry.swatch != "card"} == {
        "on-branch": "line",
        "lane": "lane",
        "again": "badge",
    }
    # A replaced branch says what is left to the person (friction22a B9).
    assert graph_drawing.STATE_LEGEND["superseded"].endswith("tell it in its chat to stop")


def test_a_branch_started_by_hand_is_said_in_words_beside_its_card_and_drawn_as_its_state_alone():
    # friction61a 7: the key's "paused" swatch solid, the paused card (started by hand) dotted; friction62a 9, 62b 13:
    # then a teal dotted "started by hand" key beside an amber dotted card. One style per meaning: the card is drawn
    # as its state's key draws it, and "started by hand" is its words, beside the card under its branch's name:
    # on a line of the card it cut the title to one line, "Draft Plan with Ri…" (friction63a 6, 63b 8).
    run = drawn([(1, None), (2, 1), (3, 1)], **{"3": {"via": "fork", "title": "Draft Plan with Risks"}})
    entries = {e.key: e for e in graph_drawing.legend(run, shown="3", states={"3": "paused", "2": "done"}, screen=True)}
    assert entries["state-paused"].card_classes.split() == ["state-paused"]
    assert "by-hand" not in entries
    states = {"3": "paused", "2": "done"}
    svg = graph_drawing.for_screen(run, shown="3", href=lambda node: "/", title="g", states=states)
    assert set(card_classes(svg, "3")) <= {"card", "state-paused", "on-branch", "current", "newest"}
    assert re.findall(r'<text class="tag-text lane via"[^>]*>([^<]*)</text>', card(svg, "3")) == ["started by hand"]
    assert re.findall(r'<text class="ct"[^>]*>([^<]*)</text>', card(svg, "3")) == ["Draft Plan with", "Risks"]
    assert 'class="cv"' not in card(svg, "3")
    # The paper keeps its dotted border and its key.
    assert "by-hand" in {e.key for e in graph_drawing.legend(run, shown="3")}


def test_the_words_beside_a_card_stay_within_its_height_however_many():
    # Friction r64: beside a branch started by hand, viewed, at its only card, four labels ("Branch 2", "started by
    # hand", "viewing", its state) stacked 12 px below the card, onto the elbows crossing under it. All four stay.
    run = drawn([(1, None), (2, 1), (3, 1)], **{"3": {"via": "fork"}})
    svg = graph_drawing.for_screen(
        run, shown="3", href=lambda node: "/", title="g", states={"3": "paused", "2": "done"}
    )
    top = int(re.search(r'<rect class="card[^"]*" x="\d+" y="(\d+)"', card(svg, "3")).group(1))  # type: ignore[union-attr]
    tags = [
        (int(y), int(h))
        for y, h in re.findall(
            r'<rect class="tag [^"]*" x="\d+" y="(-?\d+)" width="\d+" height="(\d+)"', card(svg, "3")
        )
    ]
    words = re.findall(r'<text class="tag-text [^"]*" x="\d+" y="(\d+)"[^>]*>([^<]*)</text>', card(svg, "3"))
    assert [text for _, text in words] == ["Branch 2", "started by hand", "viewing", "No agent yet"]
    card_h = graph_drawing.SCREEN.card_h
    assert max(y + h for y, h in tags) <= top + card_h + graph_drawing.TAG_OVERHANG
    # Each line still clear of the next (13 px text): never closer than 15 px.
    baselines = [int(y) for y, _ in words]
    assert all(b - a >= 15 for a, b in itertools.pairwise(baselines))
    # Three or fewer keep their usual spacing.
    plain = graph_drawing.for_screen(
        run, shown="2", href=lambda node: "/", title="g", states={"3": "paused", "2": "done"}
    )
    spaced = [int(y) for y in re.findall(r'<text class="tag-text [^"]*" x="\d+" y="(\d+)"', card(plain, "3"))]
    assert [b - a for a, b in itertools.pairwise(spaced)] == [graph_drawing.TAG_H + graph_drawing.TAG_GAP] * 2


def test_a_step_passed_over_is_a_dashed_placeholder_between_the_two_cards_around_it():
    # Friction16b 6: branch 1 went from step 2 to step 4 with nothing drawn between.
    run = drawn([(1, None), (2, 1), (3, 2)])
    passed = {"3": (graph_drawing.Skipped("step 3 skipped", "Trace · step 3 of 8, skipped: it runs only if x"),)}
    svg = graph_drawing.for_screen(
        run, shown="3", href=lambda node: "/", title="g", skipped=lambda card: passed.get(card, ())
    )
    assert svg.count('class="skipped-step"') == 1
    pill = svg.split('class="skipped-step"', 1)[1].split("</g>", 1)[0]
    assert ">step 3 skipped</text>" in pill and "<title>Trace · step 3 of 8, skipped: it runs only if x</title>" in pill
    top = int(re.search(r'class="skipped-pill"[^>]* y="(-?\d+)"', pill).group(1))  # type: ignore[union-attr]
    cards = {
        m[0]: int(m[1]) for m in re.findall(r'data-node-id="(\d+)".*?<rect class="card[^"]*" x="\d+" y="(\d+)"', svg)
    }
    bottom_of_2 = cards["2"] + graph_drawing.SCREEN_CARD_H
    assert bottom_of_2 <= top and top + graph_drawing.SKIPPED_H <= cards["3"]
    # Two passed over: how many, each named in its tooltip; none, none drawn.
    two = (passed["3"][0], graph_drawing.Skipped("step 4 skipped", "Plan · step 4 of 8, skipped: y"))
    svg = graph_drawing.for_screen(run, shown="3", href=lambda node: "/", title="g", skipped=lambda card: two)
    assert ">2 steps passed over</text>" in svg
    assert 'class="skipped-step"' not in screen(run)


def test_every_line_that_passes_over_a_step_carries_its_placeholder():
    # Friction63b 9: drawn once where branches split after one card (friction61a 5), the branch turning out of it
    # had none and read as not skipping the step while the other did: one rule, every such line carries it.
    run = drawn([(1, None), (2, 1), (3, 2), (4, 2)])
    skip = graph_drawing.Skipped("step 3 skipped", "Trace · step 3 of 8, skipped: it runs only if x")
    passed = {"3": (skip,), "4": (skip,)}
    svg = graph_drawing.for_screen(run, shown="3", href=lambda n: "/", title="g", skipped=lambda c: passed.get(c, ()))
    assert svg.count('class="skipped-step"') == 2
    # Each beside the line into its own card.
    xs = sorted(int(x) for x in re.findall(r'class="skipped-pill" x="(-?\d+)"', svg))
    card_x = {m[0]: int(m[1]) for m in re.findall(r'data-node-id="(\d+)".*?<rect class="card[^"]*" x="(\d+)"', svg)}
    for x, card in zip(xs, sorted((card_x["3"], card_x["4"])), strict=True):
        assert card <= x < card + graph_drawing.SCREEN_CARD_W
    # A line that passed over nothing carries none.
    passed = {"3": (skip,)}
    svg = graph_drawing.for_screen(run, shown="3", href=lambda n: "/", title="g", skipped=lambda c: passed.get(c, ()))
    assert svg.count('class="skipped-step"') == 1


def test_a_cards_step_line_keeps_the_steps_number_and_its_round_within_the_cards_width():
    # Friction22a A1: a loop's card said its round alone ("area 1 of 2"), so the cards read step 2, step 3
    # skipped, area 1 of 2, step 5: step 4 missing. Friction26b 4: the cards' own format read as another counting
    # system. A loop's card says the list's locator in its short form (StepPlace.short), the step's place alone
    # when nothing else fits.
    fits = GraphNode.model_construct(place=StepPlace(position=4, length=8), step_number=4, is_complete=False)
    assert graph_drawing.card_words(fits) == "step 4 of 8"
    looped = step_places.place(3, 1, (0, 0, 0, 1, 0, 0, 0, 0), 0, nouns=("", "", "", "area"), frame={"count": 2})
    short = GraphNode.model_construct(place=looped, step_number=4, is_complete=False)
    assert looped is not None and looped.brief == "step 4 of 8 (area 1 of 2)"
    assert graph_drawing.card_words(short) == looped.brief  # it fits whole: the list's words
    # A round's steps lettered apart (friction61a 6, 61b 1). Too long for the card: the round's length goes, the
    # step's stays (friction61a 6, 61b 1: "step 2 (round 149 of 150)" beside "step 3 of 3"; friction60a 4: "loop
    # round 1, part 1 of 2" on a card said no step at all); never another notation (friction28a 3, 28b 6); the
    # tooltip says it whole.
    parts = [step_places.place(1, 1, (0, 2, 0), i, frame={"count": 3}) for i in (0, 1)]
    said = [
        graph_drawing.card_words(GraphNode.model_construct(place=p, step_number=2, is_complete=False)) for p in parts
    ]
    assert said == ["step 2a of 3 (round 1 of 3)", "step 2b of 3 (round 1 of 3)"]
    long = step_places.place(1, 149, (0, 2, 0), 1, frame={"count": 150})
    card = GraphNode.model_construct(place=long, step_number=2, is_complete=False)
    assert long is not None and long.brief == "step 2b of 3 (round 149 of 150)"
    assert graph_drawing.card_words(card) == "step 2b of 3 (round 149)"
    assert all(len(w) <= graph_drawing.LOCATOR_CHARS for w in [*said, graph_drawing.card_words(card)])


def test_a_drawing_of_two_branches_widens_its_cards_to_say_a_long_round_whole():
    # Friction62a, 62b 12: the card's "step 2b of 3 (round 149)" beside the list's "(round 150 of 150)" read as two
    # counts. Where two branches leave room, the cards grow to say the list's locator whole; a wider drawing keeps
    # its cards (its text would shrink below 12px) and drops the round's total alone.
    long = step_places.place(1, 150, (0, 2, 0), 1, frame={"count": 150})
    assert long is not None and long.brief == "step 2b of 3 (round 150 of 150)"
    two = drawn([(1, None), (2, 1), (3, 1)], **{"2": {"place": long}})
    svg = screen(two, shown="2")
    assert step_line(svg, "2") == "step 2b of 3 (round 150 of 150)"
    width = int(re.search(r'class="card[^"]*" x="\d+" y="\d+" width="(\d+)"', card(svg, "2")).group(1))  # type: ignore[union-attr]
    assert width == graph_drawing.SCREEN_CARD_W + 4 * graph_drawing.LOCATOR_CHAR_W
    three = drawn([(1, None), (2, 1), (3, 1), (4, 1)], **{"2": {"place": long}})
    assert step_line(screen(three, shown="2"), "2") == "step 2b of 3 (round 150)"
    assert graph_drawing.screen_geometry(three) is graph_drawing.SCREEN
