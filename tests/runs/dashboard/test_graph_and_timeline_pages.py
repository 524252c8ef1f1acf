"""The run page's branch graph and the session page's timeline as served (the drawing itself is tested
in tests/runs/readmodels/test_graph_drawing.py): labelled cards, short node ids in link texts with the
full id in their title and URL, and a timeline with clock times and durations."""

from __future__ import annotations

import re

import pytest

from runs.models import Checkpoint, Node
from runs.readmodels import graph_drawing, graph_page, graph_story, run_view, timeline_marks, timeline_page
from tests.support import attention_sessions
from tests.support.looped_run import looped_and_forked
from tests.support.pages import page
from tests.support.sample_session import two_runs_one_forked_twice

pytestmark = pytest.mark.django_db


def test_the_run_page_draws_labelled_cards_with_loop_marks_and_tags(client, service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    html = page(client, f"/runs/{looped.run_id}/")
    svg = html.split('<svg class="run-graph"', 1)[1].split("</svg>", 1)[0]
    titles = [
        " / ".join(re.findall(r'<text class="ct"[^>]*>([^<]*)</text>', card))
        for card in svg.split('class="graph-node"')[1:]
    ]
    # Two lines of title on a card before it is shortened: five "Record what the slic…" read in full.
    assert titles[:3] == ["Scope the change / into slices", "Verify slice 1", "Record what the / slice showed"]
    assert "Complete" in titles
    # The loop's round is in each card's place, in the headline's one short locator (friction19b 9): its second
    # round's two steps, and on branch 2 the step it answered again and its last card, their titles telling them
    # apart (friction18a 12: no "2b"; friction24a 10: no "2.2", read as a version number); the part of the round
    # and the loop's name in the tooltip.
    # The card says the list's locator whole, in its notation (friction28a 3, 28b 6, 60a 4: never "loop round 2,
    # part 1 of 2", no step at all); the cards' titles tell a round's two steps apart.
    # Friction61a 6, 61b 1: a round's two steps lettered apart, "2a" and "2b".
    assert svg.count(">step 2a of 3 (round 2 of 3)</text>") == 2
    assert svg.count(">step 2b of 3 (round 2 of 3)</text>") == 2
    assert ">step 1 of 3</text>" in svg  # off the loop, the long form fits
    assert not re.search(r"step \d\.\d", svg)
    assert "↻" not in svg
    # The fork's one-node branch, shown and newest, says its name, as when another branch is shown (friction8
    # item 11); no "you are viewing", no "latest" (friction14: the blue fill and the branch's state say it).
    assert re.findall(r'<text class="tag-text (\w+)"[^>]*>([^<]*)<', svg) == [
        ("lane", "Branch 1"),
        ("lane", "Branch 2"),
    ]
    # Branch 2's first card, the step it answered again (ninth review item 3), carries the "↺" badge inside its
    # card, no pill beside it (friction22b A5: pills are the branch states' shape).
    redone = [card for card in svg.split('class="graph-node"')[1:] if 'class="again-badge"' in card]
    assert len(redone) == 1 and 'data-lane="1"' in redone[0] and "tag-text again" not in svg
    # The checkpoint of round 1: a diamond on its step's card, no word and no tag (friction14).
    assert svg.count('<path class="checkpoint-flag"') == 1
    # One plain phrase for it, on the card, in its key and the steps list (friction13 6: "answered again" is jargon).
    assert "answered again" not in html.lower() and "redone after branching" in html.lower()
    # Each branch's tip says its branch's state in words: branch 1 completed, branch 2 is the agent's.
    assert re.findall(r'<text class="tag-text state state-([\w-]+)"[^>]*>([^<]*)<', svg) == [
        ("done", "Done"),
        ("running", "Working"),
    ]
    assert "graph.js" not in html  # nothing scrolls: the drawing fits its box


def test_node_ids_in_link_texts_are_short_with_the_full_id_in_the_title_and_the_url(client, service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    newest = Node.objects.filter(run__public_id=looped.run_id).order_by("-created_at", "-pk").first()
    assert newest is not None
    full = str(newest.public_id)
    html = page(client, f"/runs/{looped.run_id}/")
    # The newest step's page is linked from its graph card, the id in the URL, never as the link's text.
    assert f'href="/nodes/{full}/"' in html and 'id="pending-step"' not in html
    assert f">node {full[:8]}<" not in html  # a node is not named by a bare id
    session = page(client, f"/sessions/{looped.session_id}/")
    notes = session.split('data-live-region="session-notes"', 1)[1]
    links = re.findall(r'href="/nodes/(\d+)/" title="node (\d+)">([^<]*)</a>', notes)
    assert all(url == title and text == "the step's page" for url, title, text in links)
    assert not re.search(r">node \d+<", notes)
    # The shown branch's checkpoint is listed among its steps (issue 32: once per page), not under the notes: a
    # mark on the step it was saved during (ninth review item 5).
    assert "before the step was answered" in session.split('id="steps-title"', 1)[1].split("</section>", 1)[0]
    node = page(client, f"/nodes/{full}/")
    assert re.search(
        r"<title>Record what the slice showed · step \d+b of \d+ \(round \d+ of \d+\) in “Verify each slice” · ",
        node,
    )
    assert f"· node {full[:8]}" not in node


# The step redone after the rewind counts, as its graph box does (friction15 1).
COUNTED = re.escape("10 steps reached (9 answered) and 1 checkpoint")


def test_the_timeline_has_clock_times_on_its_axis_and_each_runs_duration(client, service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    html = page(client, f"/sessions/{looped.session_id}/")
    timeline = html.split('id="timeline-title"', 1)[1].split("</section>", 1)[0]
    ticks = [
        re.sub(r"<[^>]+>", "", tick) for tick in re.findall(r'<text class="tl-tick[^"]*"[^>]*>(.*?)</text>', timeline)
    ]
    # Clock times (UTC without scripts), never ticks counted from the start ("+100 ms": friction9 item 6), to
    # the minute as the page writes times (friction59 T 1): a run walked within a minute is one tick, its start.
    assert ticks and all(re.fullmatch(r"\d\d:\d\d", tick) for tick in ticks), ticks
    assert len(ticks) == len(set(ticks)) == 1, ticks
    # The run's name and duration are text of their own, beside its track, not inside the drawing; the
    # duration runs to its newest step, as the axis does, never on to now (friction12 item 1).
    # Counted as the run page's Steps card counts (friction13 item 3): its answered steps, its pending one, and
    # the checkpoint apart (not a step); the ended branch's "Complete" is no step at all.
    # Its span as a person counts time: a run walked within a second is "under a minute", never "36 ms"
    # (friction16b 3), its number never apart from its unit.
    took = re.search(rf'<span class="tl-duration">(under\xa0a\xa0minute|\d+\xa0(min|h)) · {COUNTED}</span>', timeline)
    assert took, timeline
    assert " ms" not in took.group(0) and "\xa0ms" not in timeline
    assert "so far" not in timeline and 'class="tl-time"' not in timeline
    assert re.search(r'<a class="tl-label" href="/runs/[^"]+/">[^<]+</a>', timeline)
    # The timeline is history, folded shut under one line that says what it holds; the run still stands, so
    # its axis ends in "now" however fast the machine recorded the steps. No "steps took 36 ms": a
    # span of server-quick steps reads as the agent's work time (friction16b 3).
    assert re.search(
        r'<details class="fold" id="timeline">\s*<summary><h2 id="timeline-title">Timeline '
        rf'<span class="fold-parts">{COUNTED}<span class="tl-pair"><span class="tl-sep"> · </span>started '
        r'<time [^>]+>[^<]+</time></span><span class="tl-pair"><span class="tl-sep"> · </span>last step '
        r'<time [^>]+ data-when="ago">[^<]+</time></span></span></h2>',
        html,
    )
    assert "steps took" not in html
    # Quiet for seconds, not minutes: drawn to scale, no break (friction24a 4), and "now" at the axis's end.
    assert "tl-break" not in timeline and ">now</text>" in timeline
    # Each clock tick carries its moment for times.js to put on the reader's clock.
    assert len(re.findall(r'data-tick-at="[^"]+" data-tick-step="', timeline)) == len(ticks)
    assert "first node" not in timeline and "newest node" not in timeline


def card_step_line(html: str, node_id: str) -> str:
    card = html.split(f'data-node-id="{node_id}"', 1)[1].split("</a>", 1)[0]
    return re.sub(r"<[^>]+>", "", re.findall(r'<text class="cs"[^>]*>(.*?)</text>', card)[0])


def test_one_step_place_on_a_run_with_a_checkpoint_sentence_callout_and_card_agree(client, service_catalog):
    # The checkpoint (during step 3) adds a node, not a step: branch 2 waits at step 5 of the workflow.
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    newest = Node.objects.filter(run__public_id=looped.run_id).order_by("-created_at", "-pk").first()
    assert newest is not None
    html = page(client, f"/runs/{looped.run_id}/")
    words = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    # The sentences place the step in the outline (the loop is its 2nd entry, in its 2nd round); the graph's
    # cards say the same place, in the same words (the card's status line names it once, its chip that the run
    # is running).
    assert (
        "Record what the slice showed · step 2b of 3 (round 2 of 3) · branch 2 · agent working" in words
    )  # one locator, on the step's line, before the state (friction28b 5)
    assert "round 2, running" not in words
    # Finished and running at once, told as what happened (friction8 5); the finished branch's link names its
    # last step, as every other branch's does.
    # The phone's list of branches says the step branch 2 redoes in the one short locator, then the branch it grew
    # from (fork_point.py, friction19a 8).
    forked = "Redoes Verify slice 2 · step 2a of 3 (round 2 of 3), from branch 1"
    # What the finished branch means, once (friction18b 11); where branch 2 grew from, its list says.
    assert "Branch 1 finished; branch 2 redoes part of it and is where the agent works now." in words, words
    assert forked in words and "Branched from" not in words
    assert "replaced" not in words and "Branch 1 · finished with Summarize the verification" in words
    assert "open at step 6" not in words and "open at step 4" not in words
    # The branch row under the graph is gone (its links were the run card's other-branches list again); the
    # phone's branch list says where branch 2 forked, in the same words (above).
    # The list's locator whole, its title telling that round's two cards apart (friction60a 4).
    assert card_step_line(html, str(newest.public_id)) == "step 2b of 3 (round 2 of 3)"
    # The checkpoint (saved during round 1's "Record what the slice showed") is no card of its own: as a card it
    # read as that step twice (ninth review item 5). A mark beside its step's card, linking its own node's page
    # (it can be resumed from); the loop's two steps of round 1 are one card each. The complete one names no
    # step: its title and its branch's state say it.
    svg = html.split('<svg class="run-graph"', 1)[1].split("</svg>", 1)[0]
    lines = [re.sub(r"<[^>]+>", "", line) for line in re.findall(r'<text class="cs"[^>]*>(.*?)</text>', svg)]
    # One card each, in one notation (friction28a 3), their titles telling them apart (friction60a 4).
    assert lines.count("step 2a of 3 (round 1 of 3)") == lines.count("step 2b of 3 (round 1 of 3)") == 1
    saved = Checkpoint.objects.get(node__run__public_id=looped.run_id)
    assert saved.child is not None
    card = svg.split('<a href="/nodes/' + str(saved.child.public_id) + '/" class="checkpoint-mark">', 1)[0]
    assert re.findall(r'<text class="ct"[^>]*>([^<]*)</text>', card.rsplit('class="graph-node"', 1)[1]) == [
        "Record what the",
        "slice showed",
    ]
    assert "a checkpoint the agent saved during that step" in html  # the legend says what the mark is

    # Showing branch 1: its banner leads to branch 2 at the same step, once: no row for branch 2 under it, no
    # story of how branch 2 came after branch 1 (friction24a 9).
    first = page(client, f"/runs/{looped.run_id}/?tip={newest.parent.public_id if newest.parent else ''}")
    said = ">Record what the slice showed · step 2b of 3 (round 2 of 3)&nbsp;→</a>"
    banner = first.split('id="shown-branch">', 1)[1].split("</p>", 1)[0]
    assert said in banner and '<span class="nowrap">Branch 2:</span>' in banner and "Agent&#x27;s move" in banner
    assert "is where the agent works now" not in first and 'id="other-branches"' not in first
    node = page(client, f"/nodes/{newest.public_id}/")
    crumb = node.split('<p class="crumbs">', 1)[1].split("</p>", 1)[0]  # said once, in full, by the crumb
    assert "Record what the slice showed · step 2b of 3 (round 2 of 3) in “Verify each slice”" in crumb
    assert "<li>step 2 of 3" not in node


def test_the_steps_card_the_branch_box_and_the_timeline_count_each_branch_alike(client, service_catalog):
    # Friction13 item 3: "Steps: 1 recorded" sat over "Timeline · 2 steps", and a branch box said "4 steps
    # answered" over a list of "5 recorded" (a checkpoint counted as a step). For each branch of a looped and
    # forked run (a checkpoint on the first): the Steps card's count, the branch box's and the timeline's dots
    # along that branch are one count, answered steps apart from checkpoints and from the pending step.
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    shown = run_view.shown_run(looped.run_id)
    tree = shown.branches
    kinds = timeline_marks.node_kinds(tree)
    assert tree.checkpoints and len(tree.branches) == 2
    for branch in tree.branches:
        detail = run_view.run_detail(looped.run_id, tip=str(tree.public(branch.tip)))
        card = graph_page.steps_counted(detail)
        along = [kinds[pk] for pk in tree.path(branch.tip)]
        assert (card.answered, card.checkpoints) == (along.count("answered"), along.count("checkpoint")), branch
        assert along.count("unanswered") <= 1
        (box,) = [s for s in graph_page.graph_page(detail, "/r/", "/n/NODE/").sections if s.shown]
        # The box counts the steps it shares with the branch it grew from apart from its own: together they are
        # the Steps card's count.
        assert box.listed_below.startswith(f"{card.answered} steps answered")
        if branch.number > 1:
            shared = box.listed_below.split(": ")[1]
            own = int(shared.split(", ")[1].split(" ")[0])
            assert int(shared.split(" ")[0]) + own == card.answered, box.listed_below
    # The run's timeline row counts all its branches' dots the same way, and the card's words are the timeline's.
    marks = timeline_marks.marks([tree], {looped.run_id: "running"})[looped.run_id]
    counted = timeline_page.StepCounts.of(marks)
    redone = timeline_marks.answered_again(tree)
    assert redone and counted.answered == sum(kind == "answered" for kind in kinds.values()) + len(redone)
    assert graph_page.steps_counted(shown.detail).words.endswith(" and 1 checkpoint")


def graph_boxes(run_id: str) -> tuple[int, int]:
    """The step boxes the run page's graph draws (its checkpoints are marks on them, its end no step), and how
    many of them are answered: a box another box grows from."""
    story = graph_story.told(run_view.run_detail(run_id).graph)
    boxes = [node for node in story.graph.nodes if not node.is_complete and node.via != "checkpoint"]
    parents = {node.parent_id for node in story.graph.nodes}
    return len(boxes), sum(node.node_id in parents for node in boxes)


@pytest.mark.parametrize("made", ["rewound", "looped and forked", "forked twice"])
def test_the_timeline_counts_every_step_box_the_graph_draws_redone_ones_too(made, service_catalog):
    # Friction15 1: REWIND-1's graph had 5 step boxes (3 answered) while its timeline said "4 steps (2
    # answered, 2 not answered)": the step answered again after the rewind ("↺ redone") had no dot.
    if made == "rewound":
        run_ids = [attention_sessions.left_behind().run_id]
    elif made == "looped and forked":
        run_ids = [looped_and_forked(service_catalog["extra"], iterations=3).run_id]
    else:
        built = two_runs_one_forked_twice()
        run_ids = [built.review_run, built.plan_run]
    for run_id in run_ids:
        tree = run_view.shown_run(run_id).branches
        own = timeline_marks.marks([tree], {run_id: "running"})[run_id]
        counted = timeline_page.StepCounts.of(own)
        assert (counted.answered + counted.unanswered, counted.answered) == graph_boxes(run_id), (made, run_id)
        # A redone step's dot says so, and stands where its answer was given, in time order.
        redone = [mark for mark in own if graph_drawing.AGAIN_TAG in mark.words]
        assert len(redone) == len(timeline_marks.answered_again(tree))
        assert [mark.at for mark in own] == sorted(mark.at for mark in own)
    if made == "rewound":
        assert (counted.answered, counted.unanswered) == (3, 2) and len(redone) == 1
