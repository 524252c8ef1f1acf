"""runs/readmodels/graph_page.py: the run page's branch graph laid out by the read model, links and all,
so that the template tag only gives it the URLs and prints it."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from runs.contract.dashboard import AttentionPanel, BranchOutcomeEntry, GraphNode, RunDetail, RunGraph, RunSummary
from runs.models import Checkpoint
from runs.readmodels import graph_drawing, graph_story, step_places
from runs.readmodels.graph_page import branch_sections, graph_page, tip_states
from runs.readmodels.run_view import run_detail
from tests.support import attention_sessions
from tests.support.branched_review import blocked_review
from tests.support.looped_run import looped_and_forked
from tests.support.sample_session import two_runs_one_forked_twice

pytestmark = pytest.mark.django_db


def test_the_graph_page_is_laid_out_from_the_run_and_the_two_urls_it_is_given(service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    detail = run_detail(looped.run_id)
    laid_out = graph_page(detail, "/r/", "/n/NODE/")
    assert (
        not laid_out.stepper
        and laid_out.drawing.startswith("<svg")
        and 'aria-label="Branch graph of ' in laid_out.drawing
    )
    # Each branch's section says the step it redoes, in the step list's one short locator, then the branch it grew
    # from (friction19a 8); the step answered again (Verify slice 2) is the new branch's own.
    first, newest = laid_out.sections
    assert newest.href.startswith("/r/?tip=") and newest.shown and not first.shown
    assert newest.forked == "redoes Verify slice 2 · step 2a of 3 (round 2 of 3), from branch 1"
    # The phone's list gives the branch shown first, and folds a settled branch it does not show (friction25b 11).
    assert laid_out.listed == [newest, first]
    assert first.folded and not newest.folded
    # Folded, its heading says where it stands, as the desktop's list does (friction61b 10); open, its rows say it.
    tip = [row for row in first.rows if row.words and not row.skipped][-1]
    assert first.stands_at == f"{tip.title} · {tip.words}" and " · step " in first.stands_at, first.stands_at
    assert newest.stands_at == ""
    assert f'href="/n/{detail.graph.nodes[0].node_id}/"' in laid_out.drawing
    # Friction14: no tag says "you are viewing" or "latest" on the drawing, so its legend explains neither.
    assert "lane" in {entry.key for entry in laid_out.legend}
    assert not {entry.key for entry in laid_out.legend} & {"current", "newest"}
    # Tenth review item 4: in sight, the states drawn and the marks no card's words explain, only those this run
    # draws (a step answered again and a checkpoint; no branch started by hand); behind the "?", the rest.
    # A done branch's last card is filled as an answered step (friction23a A4, 23b 3): its "Done" pill says it, the
    # key does not repeat the answered swatch under a second name; the "?" still says what Done means.
    # One rule for the cards (friction24a 5): the fill says the step's state, so the "Working" branch is keyed by its
    # blue fill, "current", not by its pill's word a second time.
    assert [entry.key for entry in laid_out.state_key] == ["answered", "pending", "checkpoint-mark", "again"]
    # The branch viewed is its dark line and "viewing" under its name (friction22a B8): behind the "?" alone.
    assert not {entry.key for entry in laid_out.other_marks} & {"again", "checkpoint-mark", "by-hand"}
    assert "on-branch" in {entry.key for entry in laid_out.other_marks}
    # Friction12 item 15: the key beside the drawing names each of them in a few words, one line; their meaning
    # in full waits behind the "?".
    # The branch states in the pills' words (friction18a 3), the marks in a few words.
    assert "state-done" in {entry.key for entry in laid_out.other_marks}
    assert [entry.name for entry in laid_out.state_key] == ["answered", "current", "checkpoint", "redone"]
    # Behind the "?", the pill's word "Working" is not said again: the fill says it, on the phone's list too.
    running = next(entry for entry in laid_out.legend if entry.key == "state-running")
    assert running.said_by_rule and not running.in_sight


def test_each_branch_tip_gets_its_state_from_the_branch_outcomes_and_the_panels():
    def outcome(tip: str, status: str, left_behind: bool = False, state: str = "running") -> BranchOutcomeEntry:
        return BranchOutcomeEntry.model_construct(tip_node_id=tip, status=status, left_behind=left_behind, state=state)

    detail = RunDetail.model_construct(
        branch=outcome("1", "open"),
        other_branches=[
            outcome("2", "open", left_behind=True),
            outcome("3", "blocked"),
            outcome("4", "complete"),
            outcome("5", "canceled"),
            outcome("6", "open"),
            outcome("7", "open", state="paused"),  # the newest, no agent has it, while another branch is shown
        ],
        # A panel says more than "open": the shown branch waits for the user; branch 6 stalled.
        panels=[
            AttentionPanel.model_construct(kind="waiting_for_user", node_id="1"),
            AttentionPanel.model_construct(kind="stalled", node_id="6"),
            AttentionPanel.model_construct(kind="left_behind", node_id="2"),
        ],
    )
    assert tip_states(detail) == {
        "1": "waiting",
        "2": "left-behind",
        "3": "blocked",
        "4": "done",
        "5": "canceled",
        "6": "stalled",
        "7": "paused",
    }


def test_the_phone_list_has_a_section_per_branch_saying_where_it_forked_and_a_row_per_step(service_catalog):
    forked = two_runs_one_forked_twice()
    detail = run_detail(forked.review_run)
    sections = graph_page(detail, "/r/", "/n/NODE/").sections
    assert [(s.number, s.state, s.state_label, s.shown) for s in sections] == [
        (1, "running", "Working", True),
        (2, "left_behind", "Left behind", False),
        (3, "left_behind", "Left behind", False),
    ]
    assert [s.forked for s in sections] == [
        "",
        # Ninth review item 3: the step it answered again is its own; a loop's round in its item word.
        "redoes Review api · step 4 of 8 (area 1 of 2), from branch 1",
        "redoes Record the Changed Files · step 2 of 8, from branch 1",
    ]
    assert sections[1].href.startswith("/r/?tip=")
    # A branch's list starts at its own first step, never at a step passed over on the way into it (friction22a
    # B13: branch 2's "step 3 skipped" read as branch 2's own); between its steps a skipped one stays (branch 3).
    assert [row.words for row in sections[1].rows] == [
        "step 4 of 8 (area 1 of 2)",
        "step 4 of 8 (area 2 of 2)",
    ]
    # A branch left behind is offered back by its own panel, once it is shown, not by a link in the list
    # (friction26a 7: a second agent by one click): its heading opens it.
    tip = sections[1].href.split("tip=")[1]
    shown = graph_page(run_detail(forked.review_run, tip=tip), "/r/", "/n/NODE/").sections
    assert [(s.number, s.shown) for s in shown] == [(1, False), (2, True), (3, False)]
    assert not any(hasattr(s, "resume_href") for s in shown)
    first = sections[0].rows
    # Each row says its step's place in the outline as the step list does: the 3rd entry skipped (its
    # condition did not hold), the loop (the 4th) in two rounds; the answered ones done, the last one running.
    # The checkpoint is no row of its own (two "Step 7 of 8" rows, ninth review item 5): a mark on its step's.
    # The step passed over is a row where it would stand (friction16b 6), marked skipped, its why its label.
    assert [row.words for row in first] == [
        "step 1 of 8",
        "step 2 of 8",
        "step 3 skipped",
        "step 4 of 8 (area 1 of 2)",
        "step 4 of 8 (area 2 of 2)",
        "step 5 of 8",
        "step 6 of 8",
        "step 7 of 8",
        "step 8 of 8",
    ]
    skipped = first[2]
    assert (
        skipped.skipped
        and not skipped.href
        and skipped.state_label.endswith("it runs only if complexity is 'complex', and complexity is 'standard'")
    )
    first = [row for row in first if not row.skipped]
    # The step list's words, short (its loop unnamed: the step list below names it, a phone row has no room).
    said = {step.node_id: step.place.brief for step in detail.steps if step.place is not None}
    assert [said[row.href.split("/")[2]] for row in first[:-1]] == [row.words for row in first[:-1]]
    assert [row.state for row in first] == ["done"] * 7 + ["running"]
    # "you are viewing" once, in the shown branch's heading (friction6 item 6): never again on its last row; no
    # "latest" either (friction14: the drawing tags none, the branch's state in its heading says where it works).
    assert first[6].notes == "" and first[-1].notes == "" and first[-1].is_tip
    (saved,) = Checkpoint.objects.filter(node__run__public_id=forked.review_run)
    assert saved.child is not None and first[6].checkpoints == (f"/n/{saved.child.public_id}/",)
    assert not any(row.checkpoints for row in first[:6] + first[7:])
    assert first[-1].is_current and not any(row.is_current for row in first[:-1])
    assert first[0].title == "Triage the Change" and first[0].href.startswith("/n/")
    # Another branch's last step shows that branch, as the drawing's card does; before it, the step the branch
    # answered again (its page: the node the agent rewound to, where the step list links it too).
    assert [(row.words, row.title, row.notes, row.href.startswith("/r/?tip=")) for row in sections[2].rows] == [
        ("step 2 of 8", "Record the Changed Files", "↺ redone", False),
        ("step 3 skipped", "Trace the Impact Beyond the Diff", "", False),
        ("step 4 of 8 (area 1 of 2)", "Review api", "", True),
    ]
    rewound_to = sections[2].rows[0].href.split("/")[2]
    assert [step.node_id for step in detail.steps if step.title == "Record the Changed Files"] == [rewound_to]


def test_the_shown_branchs_box_counts_its_steps_for_the_steps_card_below_and_lists_no_rows(service_catalog):
    # Friction12 item 2: on a phone the shown branch's steps were its box's rows and the Steps card's entries right
    # under it. Its box counts them instead, as that card lists them (answered steps, checkpoints aside); the
    # other branches keep their rows: they are listed nowhere else.
    forked = two_runs_one_forked_twice()
    detail = run_detail(forked.review_run)
    sections = graph_page(detail, "/r/", "/n/NODE/").sections
    assert [s.listed_below for s in sections] == ["7 steps answered", "", ""]
    # Its box keeps one row: where the branch stands now, its pending step (friction17a 15), not an answered one.
    assert [(row.words, row.title, row.state) for row in sections[0].box_rows] == [
        ("step 8 of 8", "Summarize the Review", "running")
    ]
    assert [s.box_rows == s.rows for s in sections] == [False, True, True]
    assert len([step for step in detail.steps if step.kind == "step"]) == 7 < len(detail.steps)  # and a checkpoint
    # Showing branch 3: its path's steps (the first step, then the one it answered again) are the card's.
    third = run_detail(forked.review_run, tip=sections[2].href.split("tip=")[1])
    # The one it shares with branch 1 counted apart from its own, so the boxes add up (status_line, friction15).
    assert [s.listed_below for s in graph_page(third, "/r/", "/n/NODE/").sections] == [
        "",
        "",
        "2 steps answered: 1 shared with branch 1, 1 on this branch",
    ]
    # A shown branch with no step answered yet keeps its rows: there is nothing below to point to.
    unanswered = graph_page(third.model_copy(update={"steps": []}), "/r/", "/n/NODE/").sections
    assert [s.listed_below for s in unanswered] == ["", "", ""]


def straight(count: int, *, shown: str) -> RunDetail:
    """A run of one branch, `count` steps in a row, the last one pending; the page shows node `shown`."""
    at = datetime(2026, 11, 28, 22, 0, tzinfo=UTC)
    nodes = [
        GraphNode.model_construct(
            node_id=str(depth),
            parent_id=str(depth - 1) if depth else None,
            step_id="s",
            title=f"Step {depth + 1}",
            depth=depth,
            lane=0,
            is_complete=False,
            is_tip=depth == 29,
            is_leaf=depth == 29,
            via="step",
            step_number=depth + 1,
            is_blocked=False,
            created_at=at,
            iteration=None,
            loop_title="",
        )
        for depth in range(count)
    ]
    graph = RunGraph.model_construct(nodes=nodes, edges=[], lanes=1, depth=count - 1, tip=str(count - 1))
    run = RunSummary.model_construct(workflow_name="Plan and build")
    return RunDetail.model_construct(run=run, graph=graph, branch_tip=shown, branch=None, other_branches=[], panels=[])


def test_a_run_of_one_branch_is_a_stepper_with_its_shown_step_marked_once():
    # Friction6 item 6: no drawing (a 200 px box) for two steps in a row, and no "latest", "you are viewing"
    # and "Branch 1" all on one node: one marker, the page's node (aria-current in the template).
    laid_out = graph_page(straight(2, shown="1"), "/r/", "/n/NODE/")
    assert laid_out.stepper and laid_out.drawing == ""
    (section,) = laid_out.sections
    assert [(row.title, row.words, row.notes, row.is_current) for row in section.rows] == [
        ("Step 1", "step 1", "", False),
        ("Step 2", "step 2", "", True),
    ]
    assert [row.state for row in section.rows] == ["done", "running"]


def test_a_canceled_runs_last_step_is_where_it_stopped_not_the_current_step():
    # Round 64: the last pill of a canceled run's strip was outlined as the step an agent works on. A canceled
    # run has no current step: that pill is drawn in its state's colour, and no row is marked current.
    detail = straight(3, shown="2")
    story = graph_story.told(detail.graph)
    (section,) = branch_sections(detail, "/r/", lambda node: f"/n/{node.node_id}/", {"2": "canceled"}, story)
    assert [row.state for row in section.rows] == ["done", "done", "canceled"]
    # A step's pill says "Answered", never the run's "Done" (round 64: it read as the run's end).
    assert [row.state_label for row in section.rows] == ["Answered", "Answered", "Canceled"]
    assert not any(row.is_current for row in section.rows)
    (working,) = branch_sections(detail, "/r/", lambda node: f"/n/{node.node_id}/", {"2": "running"}, story)
    assert working.rows[-1].is_current


def test_the_phone_list_leaves_out_the_straight_stretch_the_drawing_leaves_out():
    detail = straight(30, shown="29")
    (section,) = branch_sections(
        detail, "/r/", lambda node: f"/n/{node.node_id}/", {"29": "running"}, graph_story.told(detail.graph)
    )
    assert [row.words for row in section.rows] == [
        *[f"step {n}" for n in range(1, 6)],
        "steps 6-25",
        *[f"step {n}" for n in range(26, 31)],
    ]
    gap = section.rows[5]
    assert (gap.title, gap.href, gap.state) == ("⋯ 20 steps in a row, without a fork", "", "done")
    assert section.rows[-1].state == "running" and section.forked == ""


def test_a_stepper_shows_the_outlines_steps_still_to_come(service_catalog):
    # Friction7 item 11: progress shows what is left, not only the past.
    built = two_runs_one_forked_twice()
    laid_out = graph_page(run_detail(built.plan_run), "/r/", "/n/NODE/")
    assert laid_out.stepper
    assert [(up.words, up.title) for up in laid_out.upcoming or []] == [("step 3 of 3", "Self-Check the Plan")]
    # A run of several branches is drawn, not a stepper: nothing listed after it.
    forked = looped_and_forked(service_catalog["extra"], iterations=1)
    assert graph_page(run_detail(forked.run_id), "/r/", "/n/NODE/").upcoming == []


def test_a_loop_still_to_come_is_shown_as_its_rows_will_name_it():
    # Friction61a 6: the progress bar named step 4 "Review Each Focus Area" (the loop's title) where the rows say
    # "Review api · step 4 of 8 (area 1 of 2)": its body's step, its place and what it repeats for.
    stuck = blocked_review("MR-61")
    laid_out = graph_page(run_detail(stuck.run_id), "/r/", "/n/NODE/")
    upcoming = [(up.words, up.title) for up in laid_out.upcoming or []]
    # Not the workflow file's "Review [area]" only the workflow page explains (friction62a 2, 62b 15): the areas
    # are not set yet, so the loop's own title, as the workflow's outline names step 4 (friction63a 10, 63b 12: the
    # outline said "Review Each Focus Area", the strip "Review each area"), no "(each area)" after it.
    assert ("step 4 of 8", "Review Each Focus Area") in upcoming
    assert all("Review each area" not in title and "[" not in title for _, title in upcoming)


def test_a_conditional_step_still_to_come_says_when_it_runs():
    # Friction62b 15: "Trace the Impact Beyond the Diff · step 3 of 8" read as a step that will happen; the workflow
    # page says it runs only if complexity is 'complex'. The stepper says so, in the catalog's words.
    stuck = blocked_review("MR-62")
    laid_out = graph_page(run_detail(stuck.run_id), "/r/", "/n/NODE/")
    conditions = {up.title: up.condition for up in laid_out.upcoming or []}
    assert conditions["Trace the Impact Beyond the Diff"] == "complexity is 'complex'"
    assert conditions["Post the Approved Comments"] == "post comments is true"
    assert conditions["Summarize the Review"] == ""


def test_a_stepper_shows_a_step_skipped_where_it_would_stand(service_catalog):
    # Friction62b 15: a step passed over by its condition is said as skipped, not missing from the strip.
    from tests.support import traced_run

    traced_run.install(service_catalog["extra"])
    run = traced_run.traced_run(until="verify")
    laid_out = graph_page(run_detail(run.run_id), "/r/", "/n/NODE/")
    assert laid_out.stepper
    rows = [(row.title, row.words, row.skipped) for row in laid_out.sections[0].rows]
    assert rows[:4] == [
        ("Intake", "step 1 of 7", False),
        ("Phase 0b", "step 2 skipped", True),
        ("Phase 1", "step 3 of 7", False),
        ("Update the docs", "step 4 skipped", True),
    ]


def test_a_loop_of_several_steps_still_to_come_letters_each():
    two = {
        "id": "l",
        "title": "Verify each slice",
        "loop": {"type": "forEach", "items": "slices", "itemVar": "currentSlice"},
        "body": [{"id": "v", "title": "Verify {{currentSlice}}"}, {"id": "r", "title": "Record it"}],
    }
    assert step_places.ahead(two, 2, 3) == [
        ("Verify each slice", "step 2a of 3", ""),
        ("Record it", "step 2b of 3 (each slice)", ""),
    ]
    # The slices once set, when a few short texts: named (friction62a 2: "Review storage, api").
    assert step_places.ahead(two, 2, 3, {"slices": ["storage", "api"]})[0] == (
        "Verify storage, api",
        "step 2a of 3 (each slice)",
        "",
    )
    many = {"slices": ["a", "b", "c", "d", "e"]}
    assert step_places.ahead(two, 2, 3, many)[0].title == "Verify each slice"
    assert step_places.ahead({"id": "s", "title": "Deploy"}, 3, 3) == [("Deploy", "step 3 of 3", "")]
    ruled = {"id": "s", "title": "Deploy", "runCondition": {"var": "target", "equals": "prod"}}
    assert step_places.ahead(ruled, 3, 3) == [("Deploy", "step 3 of 3", "target is 'prod'")]


def test_a_canceled_stepper_shows_the_steps_it_never_reached(service_catalog):
    # Friction10 item 10: a canceled run shows all its steps, as every other run does, the rest greyed.
    canceled = attention_sessions.canceled()
    laid_out = graph_page(run_detail(canceled.run_id), "/r/", "/n/NODE/")
    assert laid_out.stepper
    [rest] = laid_out.upcoming or []
    assert (rest.words, rest.never, rest.state_words) == ("step 3 of 3", True, "Never reached: the run was canceled")


def _segments(drawing: str) -> list[tuple[float, float, float, float]]:
    """Every connector of a drawing as straight segments (x1, y1, x2, y2): its paths are M, then H and V moves."""
    found = []
    for d in re.findall(r'<path class="edge[^"]*" d="([^"]+)"', drawing):
        moves = re.findall(r"([MHV])(-?\d+)(?: (-?\d+))?", d)
        x = y = 0.0
        for move, a, b in moves:
            if move == "M":
                x, y = float(a), float(b)
                continue
            nx, ny = (float(a), y) if move == "H" else (x, float(a))
            found.append((x, y, nx, ny))
            x, y = nx, ny
    return found


def _crosses(box: tuple[float, float, float, float], segment: tuple[float, float, float, float]) -> bool:
    """An axis-parallel segment touches the box (left, top, right, bottom)."""
    left, top, right, bottom = box
    x1, y1, x2, y2 = segment
    return min(x1, x2) <= right and max(x1, x2) >= left and min(y1, y2) <= bottom and max(y1, y2) >= top


def test_no_skipped_placeholder_or_checkpoint_sits_on_a_line(service_catalog):
    # friction28a 5: "step 3 skipped" was drawn over the lines (branch 2's elbow ran through one), and the
    # checkpoint's diamond sat where the fork's line left its card.
    forked = two_runs_one_forked_twice()
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    for run_id, kind in ((forked.review_run, "skipped-pill"), (looped.run_id, "checkpoint-flag")):
        drawing = graph_page(run_detail(run_id), "/r/", "/n/NODE/").drawing
        lines = _segments(drawing)
        assert lines, drawing
        boxes = [
            (float(x), float(y), float(x) + float(w), float(y) + float(h))
            for x, y, w, h in re.findall(
                r'<rect class="skipped-pill" x="(-?\d+)" y="(-?\d+)" width="(\d+)" height="(\d+)"', drawing
            )
        ]
        r = graph_drawing.CHECKPOINT_R
        diamonds = [
            (float(x), float(top) + r)
            for x, top in re.findall(r'class="checkpoint-flag" d="M(-?\d+) (-?\d+)L', drawing)
        ]
        boxes += [(cx - r, cy - r, cx + r, cy + r) for cx, cy in diamonds]
        starts = set(diamonds)
        assert drawing.count(f'class="{kind}"') >= 1 and boxes, kind
        assert [(box, line) for box in boxes for line in lines if _crosses(box, line)] == [], kind
        assert not starts & {(x1, y1) for x1, y1, _, _ in lines}


def test_the_phone_key_says_only_the_marks_its_list_draws(service_catalog):
    # Friction r59 2: the phone's key explained six marks of the drawing (a diamond, a "↺" badge...) its list of
    # branches does not draw. Each entry now says at which width it shows: on a phone, the fills and border the
    # list's step marks draw, and the glyphs its rows carry ("◆ checkpoint", "↺ redone": friction62b 8, they were
    # unexplained), only where a row carries them.
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    laid_out = graph_page(run_detail(looped.run_id), "/r/", "/n/NODE/")
    kinds = {row.entry.key: row.kind for row in laid_out.key_rows}
    drawn = frozenset().union(*(section.marks for section in laid_out.sections))
    assert {key for key, kind in kinds.items() if kind == "listed"} == drawn
    assert drawn <= {"answered", "pending", "unreached", "aside", "checkpoint-mark", "again", "complete"}
    rows = [row for section in laid_out.sections for row in section.box_rows]
    assert ("checkpoint-mark" in drawn) == any(row.checkpoints for row in rows)
    # Friction r64: the end card ("Complete · all steps done") had no entry; the list's end row is keyed as the card.
    assert "complete" in drawn and any(row.complete for row in rows)
    complete = next(row.entry for row in laid_out.key_rows if row.entry.key == "complete")
    assert complete.words.startswith("“Complete”: the end of a branch that went through its workflow")
    assert "“all steps done”" in complete.words and complete.swatch == "card" and complete.card_classes == "complete"
    assert kinds["lane"] == kinds["on-branch"] == "drawing-only"
    assert kinds["state-running"] == "said-by-rule" and kinds["state-done"] == "worded"
    # A branch no agent works on any more draws its marks dashed; the branch the page shows lists its last step.
    first, newest = laid_out.sections
    assert newest.marks == {"pending"} and "aside" not in first.marks and "answered" in first.marks
    sample = two_runs_one_forked_twice()
    forked = graph_page(run_detail(sample.review_run), "/r/", "/n/NODE/")
    listed = [row.entry.key for row in forked.key_rows if row.kind == "listed"]
    # Branch 3's list holds a "step 3 skipped" row: its key says what that means too (friction r60).
    # Branches 2 and 3 start with a step redone ("↺ redone" rows): keyed too.
    assert listed == ["answered", "pending", "unreached", "aside", "again", "skipped"]
    skipped = next(row.entry for row in forked.key_rows if row.entry.key == "skipped")
    assert skipped.words == "“step N skipped”: a step the workflow's condition skipped on that branch"
    assert skipped.in_sight and skipped.name == "skipped by the workflow's condition"
