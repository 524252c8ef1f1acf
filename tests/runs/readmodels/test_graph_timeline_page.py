"""The session timeline's layout (runs/readmodels/timeline_page.py): the template only prints it."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from runs.contract.dashboard import RunSummary, SessionDetail, StateName, TimelineLane
from runs.readmodels import timeline_page
from runs.readmodels.timeline_marks import NodeKind, NodeMark

T0 = datetime(2026, 11, 28, 22, 0, tzinfo=UTC)


NOW = T0 + timedelta(hours=1)


def detail(*lanes: TimelineLane, state: str = "done") -> SessionDetail:
    # The run started with its first step (a run started earlier than its first step: its own test).
    began = lanes[0].first_at if lanes else None
    runs = [
        RunSummary.model_construct(
            run_id="r1", workflow_name="Risk-Scaled Merge Request Review", state=state, created_at=began
        )
    ]
    return SessionDetail.model_construct(runs=runs, timeline=list(lanes))


def test_each_row_keeps_its_full_name_and_duration_apart_from_dots_placed_in_percent_of_the_track():
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 0.5, 1.0], first_at=T0, last_at=T0 + timedelta(seconds=90))
    marks = {"r1": [NodeMark(T0 + timedelta(seconds=s), "done", f"at {s}") for s in (0, 45, 90)]}
    page = timeline_page.timeline_page(detail(lane), "/runs/RUN/", "r1", marks, NOW)
    (row,) = page.rows
    assert row.label == "Risk-Scaled Merge Request Review"  # never cut: its column wraps it
    assert row.href == "/runs/r1/" and row.selected
    assert row.took == "1\xa0min · 3 steps answered"  # as a person counts time, held on one line
    # The ends are inset so that a dot at either end stays whole; the middle is the middle.
    assert [dot.at for dot in row.dots] == ["1.50%", "50.00%", "98.50%"] and (row.start, row.end) == ("1.50%", "98.50%")
    assert "2026-11-28 22:00:00 UTC to 2026-11-28 22:01:30 UTC" in row.tooltip
    assert page.caption == "2026-11-28 22:00:00 to 22:01:30 UTC · 1 min 30 s"
    assert page.ticks[0].anchor == "start" and page.ticks[-1].anchor == "end"
    # To the minute, each label once per axis (friction59 T 1). The wide axis a grid of round minutes, the start
    # said where none stands near it; the phone's (no tooltip) says its dots' own times, the first and the last
    # step's, under them (friction59 T 2).
    wide = [(tick.label, tick.at) for tick in page.ticks if tick.only != "narrow"]
    narrow = [(tick.label, tick.at) for tick in page.ticks if tick.only != "wide"]
    # A span of 90 s is zoomed to the second (friction61a 3: one tick under a short run read as idle for long).
    assert wide == [(f"22:0{m}:{s:02}", f"{1.5 + (m * 60 + s) / 90 * 97:.2f}%") for m, s in ((0, 0), (0, 15), (0, 30),
        (0, 45), (1, 0), (1, 15), (1, 30))]  # fmt: skip
    assert narrow == [("22:00:00", row.dots[0].at), ("22:00:30", "33.83%"), ("22:01:00", "66.17%"),
        ("22:01:30", row.dots[-1].at)]  # fmt: skip


def test_a_run_without_times_has_a_row_and_no_axis():
    lane = TimelineLane(run_id="r2", label="Focused Plan Routine", points=[])
    page = timeline_page.timeline_page(detail(lane), "/runs/RUN/", None, {}, NOW)
    assert [(row.label, row.took, row.dots, row.states) for row in page.rows] == [
        ("Focused Plan Routine", "0 steps answered", [], [])
    ]
    assert page.ticks == [] and page.caption == ""


def test_each_dot_keeps_its_nodes_state_and_name_and_the_row_says_which_states_its_dots_show():
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 0.5, 1.0], first_at=T0, last_at=T0 + timedelta(seconds=60))
    marks = {
        "r1": [
            NodeMark(T0, "done", "Step 1 · Triage: Done"),
            NodeMark(T0 + timedelta(seconds=20), "left_behind", "Step 2 · Review api: Left behind (branch 2)"),
            NodeMark(T0 + timedelta(seconds=40), "left_behind", "Step 3 · Review storage: Left behind (branch 3)"),
            NodeMark(T0 + timedelta(seconds=60), "needs_you", "Step 4 · Confirm: Your move · Confirm (branch 1)"),
        ]
    }
    (row,) = timeline_page.timeline_page(detail(lane), "/runs/RUN/", None, marks, NOW).rows
    assert [(dot.state, dot.words) for dot in row.dots] == [(mark.state, mark.words) for mark in marks["r1"]]
    # Most urgent first, by name: the row's duration line counts its steps, once (friction14 item 4).
    assert [(count.state, count.label) for count in row.states] == [
        ("needs_you", "Confirm"),
        ("left_behind", "Left behind"),
        ("done", "Answered"),
    ]


def test_a_stalled_run_spans_its_steps_and_reaches_on_to_now_after_a_gap():
    # Two nodes 15 ms apart, then nothing for 45 minutes: the row, still open, is measured to now (friction60b 8:
    # "under a minute" for a run stalled 45 min), and the stretch up to now is a break after its steps.
    first, last = T0, T0 + timedelta(milliseconds=15)
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=first, last_at=last)
    marks = {"r1": [NodeMark(first, "done", "Step 1"), NodeMark(last, "stalled", "Step 2", kind="unanswered")]}
    now = T0 + timedelta(minutes=45)
    page = timeline_page.timeline_page(detail(lane, state="stalled"), "/runs/RUN/", None, marks, now)
    (row,) = page.rows
    assert row.took == "45\xa0min · 2 steps reached (1 answered)" and "so far" not in row.tooltip
    assert "2026-11-28 22:00:00 UTC to 2026-11-28 22:00:00 UTC (under a minute), still going" in row.tooltip
    # The track draws MIN_SHOWN (half a minute) to scale, then a gap of GAP_SHARE to now (the dashed tail, after a
    # break): the two nodes 15 ms apart stand close (friction60a 10: they stood 600 px apart), never squeezed left
    # of a dashed line 45 minutes long either.
    recorded_end = f"{100 - timeline_page.INSET - timeline_page.GAP_SHARE:.2f}%"
    places = [float(dot.at.rstrip("%")) for dot in row.dots]
    assert places[0] == 1.5 and places[1] - places[0] < 2 * timeline_page.MERGE_WIDE, places
    assert row.until == "98.50%" and page.gap == recorded_end and page.now == "98.50%"
    assert page.caption == "2026-11-28 22:00:00 to 22:00:00 UTC · 15 ms"
    # The summary line is on the wall clock (friction15 2): when the first step was and how long ago the newest
    # (whole minutes, as a person counts). No "steps took 15 ms" (friction16b 3), and no "waiting 45 min for
    # you": whose move it is, and since when, is the status line's (friction16b 4).
    assert page.summary.text == "2 steps reached (1 answered) · started 22:00 UTC · last step 44 min ago"
    # The axis before the break has a scale: round moments, at least two of them (friction60a 10, 60b 8: one label
    # under a long track), each once, none past the break; seconds apart, zoomed to the second (friction64).
    wide = [tick.label for tick in page.ticks if tick.only != "narrow"]
    narrow = [tick.label for tick in page.ticks if tick.only != "wide"]
    assert wide[:2] == ["22:00:00", "22:00:05"] and len(narrow) >= 2, (wide, narrow)
    assert max(float(tick.at.rstrip("%")) for tick in page.ticks) <= float(recorded_end.rstrip("%"))
    # The summary says how long nothing was recorded, not the axis (no "45 min with no step" under "now"); the
    # row's tail says it too, as every stalled row's does (friction63a 9: a stalled row's dashed line had no words
    # where a 150-step run's had), on a phone on a line of its own.
    assert row.quiet == row.narrow_quiet == "no new step for 44 min"
    # Its line runs across the break at the axis's end: the "//" is drawn on it too (friction63b 6).
    assert row.broken
    # A run that ended keeps the span of its nodes, with no gap and no now.
    ended_page = timeline_page.timeline_page(detail(lane, state="done"), "/runs/RUN/", None, marks, now)
    (ended,) = ended_page.rows
    assert (
        ended.took == "under\xa0a\xa0minute · 2 steps reached (1 answered)" and ended.until == "" and ended.quiet == ""
    )
    assert ended_page.gap == "" and ended.dots[-1].at == "98.50%" and not ended.broken
    # Its summary runs from the first step to the last, on the clock, and says how long that took.
    assert ended_page.summary.text == (
        "2 steps reached (1 answered) · started 22:00 UTC · last step 22:00 UTC · took under a minute"
    )
    # A running run's move is the agent's: the line says how long ago the last step was, not "waiting".
    running = timeline_page.timeline_page(detail(lane, state="running"), "/runs/RUN/", None, marks, now)
    assert running.summary.text == ("2 steps reached (1 answered) · started 22:00 UTC · last step 44 min ago")
    # A run quiet for less than the stall minutes, whose quiet stretch the summary says, says nothing on its tail.
    soon = timeline_page.timeline_page(
        detail(lane, state="running"), "/runs/RUN/", None, marks, T0 + timedelta(minutes=5)
    )
    assert soon.rows[0].quiet == soon.rows[0].narrow_quiet == ""


def test_only_a_session_whose_runs_all_ended_says_how_long_it_took():
    # Friction63a 3: "took under a minute" over runs waiting for an agent (paused: no gap, no "now") read as finished.
    first, last = T0, T0 + timedelta(seconds=20)
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=first, last_at=last)
    marks = {"r1": [NodeMark(first, "done", "Step 1"), NodeMark(last, "paused", "Step 2", kind="unanswered")]}
    paused = timeline_page.timeline_page(detail(lane, state="paused"), "/runs/RUN/", None, marks, NOW)
    assert paused.summary.took == "" and paused.summary.open
    assert paused.summary.text == "2 steps reached (1 answered) · started 22:00 UTC · last step 22:00 UTC"
    for state in ("done", "canceled"):
        ended = timeline_page.timeline_page(detail(lane, state=state), "/runs/RUN/", None, marks, NOW)
        assert ended.summary.text.endswith("· took under a minute") and not ended.summary.open, state


def test_a_standing_run_reaches_now_and_only_a_long_quiet_stretch_is_cut_out():
    # Friction12 item 1: whether the axis reaches "now" follows the runs' states, never the machine's speed.
    # Friction24a 4: a "//" under a run that lasted under a minute read as "a long gap was cut out here": the
    # stretch since the newest step is cut out only when longer than BREAK_AFTER and than half the span shown.
    first, last = T0, T0 + timedelta(milliseconds=300)
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=first, last_at=last)
    marks = {"r1": [NodeMark(first, "done", "Step 1"), NodeMark(last, "running", "Step 2")]}
    quiets = (timedelta(milliseconds=5), timedelta(seconds=2), timedelta(minutes=9), timedelta(hours=3))
    for state, standing, broken in (
        ("running", True, [False, False, False, True]),
        ("stalled", True, [False, False, False, True]),
        ("done", False, [False] * 4),
        ("canceled", False, [False] * 4),
    ):
        layouts = [
            timeline_page.timeline_page(detail(lane, state=state), "/runs/RUN/", None, marks, last + quiet)
            for quiet in quiets
        ]
        assert [bool(page.gap) for page in layouts] == broken, state
        assert {page.summary.standing for page in layouts} == {standing}, state
        if not standing:  # an ended session's layout never depends on now
            placed = [([(row.dots, row.narrow_dots) for row in page.rows], page.ticks) for page in layouts]
            assert all(layout == placed[0] for layout in placed), state
    # Drawn to scale: two minutes of work, quiet for one since: the dots take two thirds of the track, the
    # standing row's tail runs on to now, and the newest dot's moment is labelled (friction24a 4: it had none).
    last = T0 + timedelta(minutes=2)
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=first, last_at=last)
    marks = {"r1": [NodeMark(first, "done", "Step 1"), NodeMark(last, "running", "Step 2")]}
    page = timeline_page.timeline_page(
        detail(lane, state="running"), "/runs/RUN/", None, marks, last + timedelta(minutes=1)
    )
    assert not page.gap and page.summary.standing
    (row,) = page.rows
    assert float(row.dots[-1].at.rstrip("%")) == pytest.approx(1.5 + 97 * 2 / 3, abs=0.01)
    assert row.until == f"{100 - 1.5:.2f}%"
    assert page.ticks[0].at == row.dots[0].at and row.dots[-1].at in {tick.at for tick in page.ticks}
    assert all(float(tick.at.rstrip("%")) <= 100 - 1.5 - 97 * 0.15 for tick in page.ticks)  # "now" has the end


def test_each_rows_duration_is_measured_on_the_axis_span_first_step_to_newest():
    # Two runs, one still running: an ended row's duration is its steps' span, in whole units as a person
    # counts ("808 ms so far" over "all 13 steps within 405 ms" was noise); the running one's is measured to
    # now, where its tail ends (friction60b 8: an open run's steps' span is not its length).
    r1 = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=T0, last_at=T0 + timedelta(minutes=3))
    later = T0 + timedelta(minutes=1)
    r2 = TimelineLane(run_id="r2", label="y", points=[0.0, 1.0], first_at=later, last_at=later + timedelta(minutes=1))
    runs = [
        RunSummary.model_construct(run_id="r1", workflow_name="One", state="running", created_at=T0),
        RunSummary.model_construct(run_id="r2", workflow_name="Two", state="done", created_at=later),
    ]
    marks = {
        "r1": [
            NodeMark(T0, "done", "Step 1"),
            NodeMark(T0 + timedelta(minutes=3), "running", "Step 2", kind="unanswered"),
        ],
        "r2": [NodeMark(later, "done", "Step 1"), NodeMark(later + timedelta(minutes=1), "done", "Step 2")],
    }
    page = timeline_page.timeline_page(
        SessionDetail.model_construct(runs=runs, timeline=[r1, r2]), "/runs/RUN/", None, marks, NOW
    )
    assert [row.took for row in page.rows] == [
        "1\xa0h · 2 steps reached (1 answered)",
        "1\xa0min · 2 steps answered",
    ]
    # Two runs: the session's count says so, so that it never reads as one run's (friction13 item 3). One still
    # stands: the line says when its last step was, and no "steps took" span beside it (friction16b 3).
    assert page.summary.counts == "4 steps reached in 2 runs (3 answered)" and page.summary.took == ""
    assert "took" not in page.summary.text
    # It covers the session, not the shown run: its one line says so ("in 2 runs"), under the one title
    # "Timeline" (friction26b 5: two titles read as two sections).
    assert not hasattr(page, "title")
    assert page.caption.endswith("· 3 min")
    # Each row's ends sit on the axis where its first and newest steps' clock times are: three minutes of steps
    # take the track's width before the break (friction64: five minutes drawn put short activity in a corner).
    recorded_end = round(timeline_page.INSET + (97 - timeline_page.GAP_SHARE), 2)
    ticks = {tick.label: float(tick.at.rstrip("%")) for tick in page.ticks}
    assert ticks["22:00"] == timeline_page.INSET and ticks["22:03"] == recorded_end
    assert [(row.start, row.end) for row in page.rows] == [
        ("1.50%", f"{recorded_end:.2f}%"),
        (f"{ticks['22:01']:.2f}%", f"{ticks['22:02']:.2f}%"),
    ]


def test_a_run_quiet_for_longer_than_the_session_says_its_own_quiet_stretch():
    # r1 stalled after 15 ms; r2 took a step ten minutes later and stands too: the axis's gap is r2's quiet
    # stretch (35 min), and r1's tail says its own, longer one.
    r1 = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=T0, last_at=T0 + timedelta(milliseconds=15))
    later = T0 + timedelta(minutes=10)
    r2 = TimelineLane(run_id="r2", label="y", points=[0.0], first_at=later, last_at=later)
    runs = [
        RunSummary.model_construct(run_id="r1", workflow_name="One", state="stalled", created_at=T0),
        RunSummary.model_construct(run_id="r2", workflow_name="Two", state="running", created_at=later),
    ]
    marks = {"r1": [NodeMark(T0, "done", "Step 1")], "r2": [NodeMark(later, "running", "Step 1")]}
    now = T0 + timedelta(minutes=45)
    page = timeline_page.timeline_page(
        SessionDetail.model_construct(runs=runs, timeline=[r1, r2]), "/runs/RUN/", None, marks, now
    )
    # r1 stalled waits for the person, but the line says only how long since the session's newest step: when
    # the move became the person's is the status line's to say (friction16b 4: "waiting 45 min for you"
    # counted from the newest step overstated the wait on a blocked run).
    assert page.summary.quiet == "35 min" and "for you" not in page.summary.text
    # A phone says the same words on a line of their own (friction61a 11: its tail's "5 h" read "5 h·").
    # r2, quiet for longer than the stall minutes (30), says its own too (friction63a 9).
    assert [(row.quiet, row.narrow_quiet) for row in page.rows] == [
        ("no new step for 44 min",) * 2,
        ("no new step for 35 min",) * 2,
    ]
    # A row quiet for barely longer than the session says nothing of its own ("no step for 6.1 s" over "6.0 s
    # with no step" was noise: friction12 item 1).
    close = T0 + timedelta(milliseconds=115)
    r2 = TimelineLane(run_id="r2", label="y", points=[0.0], first_at=close, last_at=close)
    marks["r2"] = [NodeMark(close, "running", "Step 1")]
    page = timeline_page.timeline_page(
        SessionDetail.model_construct(runs=runs, timeline=[r1, r2]),
        "/runs/RUN/",
        None,
        marks,
        T0 + timedelta(seconds=6),
    )
    assert page.summary.quiet == "under a minute" and [row.quiet for row in page.rows] == ["", ""]


def test_a_numbered_dot_counts_its_checkpoints_and_the_runs_end_apart_from_its_steps():
    # Friction15 1: "7 steps within 151 ms" listed a checkpoint as its seventh step.
    moments = [T0 + timedelta(milliseconds=10 * i) for i in range(8)] + [T0 + timedelta(seconds=60)]
    kinds: list[NodeKind] = ["answered"] * 6 + ["checkpoint", "end", "answered"]
    pairs = enumerate(zip(moments, kinds, strict=True))
    marks = {"r1": [NodeMark(m, "done", f"Node {i}", kind=k) for i, (m, k) in pairs]}
    lane = TimelineLane(run_id="r1", label="x", points=[0.0] * 9, first_at=moments[0], last_at=moments[-1])
    (row,) = timeline_page.timeline_page(detail(lane), "/runs/RUN/", None, marks, NOW).rows
    # A checkpoint answered on is a ◆ of its own (friction61a 3), never in a numbered step's dot.
    assert row.dots[0].within == "6 steps and the run's end within a second"
    assert [(dot.checkpoint, dot.count) for dot in row.dots] == [(False, 7), (True, 1), (False, 1)]
    two = [NodeMark(T0, "done", "a"), NodeMark(T0 + timedelta(milliseconds=5), "done", "b", kind="checkpoint")]
    assert timeline_page.cluster_words(two) == "1 step and 1 checkpoint within a second"


def test_dots_closer_than_a_dot_merge_into_one_per_state_that_says_how_many_and_names_them_all():
    # Nine nodes in the first second of a minute-long run, one of them left behind, then one at its end.
    moments = [T0 + timedelta(milliseconds=100 * i) for i in range(9)] + [T0 + timedelta(seconds=60)]
    lane = TimelineLane(run_id="r1", label="x", points=[0.0] * 10, first_at=moments[0], last_at=moments[-1])
    marks = {"r1": [NodeMark(m, "done", f"Step {i + 1}") for i, m in enumerate(moments)]}
    marks["r1"][4] = NodeMark(moments[4], "left_behind", "Step 5")
    (row,) = timeline_page.timeline_page(detail(lane), "/runs/RUN/", None, marks, NOW).rows
    for dots, gap in ((row.dots, timeline_page.MERGE_WIDE), (row.narrow_dots, timeline_page.MERGE_NARROW)):
        # The cluster draws a dot per state, side by side: the left-behind node is never folded into the
        # eight done ones' colour.
        assert [(dot.state, dot.count) for dot in dots] == [("done", 8), ("left_behind", 1), ("done", 1)]
        assert sum(dot.count for dot in dots) == row.nodes == 10
        # It says what its number is: that many steps, and within how long of each other.
        assert dots[0].words.startswith("8 steps within a second (Answered): Step 1; Step 2;")
        assert "Step 9" in dots[0].words
        assert "Step 5" not in dots[0].words and dots[1].words == "Step 5"
        places = [float(dot.at.rstrip("%")) for dot in dots]
        assert all(b - a >= gap - 0.01 for a, b in itertools.pairwise(places))
    assert [count.label for count in row.states] == ["Left behind", "Answered"]  # the states, not a second count
    # The page's legend says what a numbered dot is, at each width whose layout has one.
    page = timeline_page.timeline_page(detail(lane), "/runs/RUN/", None, marks, NOW)
    assert row.clustered == ["wide", "narrow"] and page.clustered == ["wide", "narrow"]


def test_the_newest_cluster_kept_on_the_span_never_covers_the_one_before_it():
    # A cluster of two states at the span's end moves back so its last dot stays on the track; the cluster
    # just before it (a dot's width earlier) moves back with it instead of being covered (the newest step
    # always stands at the span's end, so this is every busy run's case).
    span = 10.0
    moments = [T0 + timedelta(seconds=span * share) for share in (0.0, 0.95, 0.995, 1.0)]
    lane = TimelineLane(run_id="r1", label="x", points=[0.0] * 4, first_at=moments[0], last_at=moments[-1])
    states = ["done", "done", "left_behind", "running"]
    pairs = enumerate(zip(moments, states, strict=True))
    marks = {"r1": [NodeMark(m, state, f"Step {i + 1}") for i, (m, state) in pairs]}
    (row,) = timeline_page.timeline_page(detail(lane), "/runs/RUN/", None, marks, NOW).rows
    for dots, gap in ((row.dots, timeline_page.MERGE_WIDE), (row.narrow_dots, timeline_page.MERGE_NARROW)):
        places = [float(dot.at.rstrip("%")) for dot in dots]
        assert all(b - a >= gap - 0.01 for a, b in itertools.pairwise(places)), places
        assert places[-1] <= 100 - timeline_page.INSET + 0.01


def test_a_numbered_dots_list_links_each_of_its_steps_to_its_page():
    # friction64: the list under the axis named a numbered dot's steps in plain text, so a phone (no tooltip) could
    # reach none of them; each entry links to its step's page, as the graph's cards do.
    moments = [T0 + timedelta(milliseconds=10 * i) for i in range(3)] + [T0 + timedelta(seconds=60)]
    marks = {
        "r1": [NodeMark(m, "done", f"Step {i}: Answered", f"Step {i}", node=f"70{i}") for i, m in enumerate(moments)]
    }
    lane = TimelineLane(run_id="r1", label="x", points=[0.0] * 4, first_at=moments[0], last_at=moments[-1])
    page = timeline_page.timeline_page(detail(lane), "/runs/RUN/", None, marks, NOW, "/nodes/NODE/")
    for dots in (page.rows[0].dots, page.rows[0].narrow_dots):
        assert dots[0].steps == tuple(timeline_page.ClusterStep(f"Step {i}", f"/nodes/70{i}/") for i in range(3))
    # Without a node, or without the URL, the entry stays words.
    plain = timeline_page.timeline_page(detail(lane), "/runs/RUN/", None, marks, NOW)
    assert [step.href for step in plain.rows[0].dots[0].steps] == ["", "", ""]


def test_a_page_without_numbered_dots_has_no_legend_for_them():
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=T0, last_at=T0 + timedelta(seconds=60))
    marks = {"r1": [NodeMark(T0, "done", "Step 1"), NodeMark(T0 + timedelta(seconds=60), "done", "Step 2")]}
    assert timeline_page.timeline_page(detail(lane), "/runs/RUN/", None, marks, NOW).clustered == []


def test_a_burst_is_one_clock_tick_and_its_length_is_said_once_in_the_summary():
    # Two nodes 53 ms apart: the axis is one clock tick, the start to the second (on the reader's clock:
    # times.js), never "+20 ms" ticks (friction9 item 6) nor a "53 ms later" tick (friction10 9); how long the
    # steps took is the fold's summary's to say, once (friction12 item 1).
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=T0, last_at=T0 + timedelta(milliseconds=53))
    marks = {
        "r1": [
            NodeMark(T0, "done", "Step 1"),
            NodeMark(T0 + timedelta(milliseconds=53), "canceled", "Step 2", kind="unanswered"),
        ]
    }
    page = timeline_page.timeline_page(detail(lane, state="canceled"), "/runs/RUN/", None, marks, NOW)
    [tick] = page.ticks  # not the same second again at the far end (friction21a 3, 21b 1)
    assert (tick.label, tick.moment) == (f"{T0:%H:%M}", T0.isoformat())  # to the minute (friction59 T 1)
    assert tick.step == 60 and not tick.only and tick.anchor == "start"
    assert float(tick.at.rstrip("%")) == timeline_page.INSET
    assert page.summary.text == (
        "2 steps reached (1 answered) · started 22:00 UTC · last step 22:00 UTC · took under a minute"
    )
    assert page.gap == "" and not page.summary.standing
    assert page.rows[0].took == "under\xa0a\xa0minute · 2 steps reached (1 answered)"


def test_every_state_the_row_lists_has_a_dot_of_its_colour_at_both_widths():
    # A stalled run: its two nodes made at once (one done, one stalled), then 45 minutes of nothing; and
    # a cluster at the track's end keeps its last dot on the track.
    first, last = T0, T0 + timedelta(milliseconds=15)
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=first, last_at=last)
    marks = {"r1": [NodeMark(first, "done", "Step 1"), NodeMark(last, "stalled", "Step 2", kind="unanswered")]}
    (row,) = timeline_page.timeline_page(detail(lane, state="stalled"), "/runs/RUN/", None, marks, NOW).rows
    for dots in (row.dots, row.narrow_dots):
        assert [(dot.state, dot.count) for dot in dots] == [("done", 1), ("stalled", 1)]
        assert {dot.state for dot in dots} == {count.state for count in row.states}
    end = T0 + timedelta(seconds=60)
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0, 1.0], first_at=T0, last_at=end)
    marks = {"r1": [NodeMark(T0, "done", "1"), NodeMark(end, "done", "2"), NodeMark(end, "left_behind", "3")]}
    (ended,) = timeline_page.timeline_page(detail(lane), "/runs/RUN/", None, marks, end).rows
    assert [dot.at for dot in ended.narrow_dots] == ["1.50%", f"{98.5 - timeline_page.MERGE_NARROW:.2f}%", "98.50%"]


def test_a_numbered_dot_says_answered_and_which_branches_it_mixes_not_done():
    # Friction16b 16: a "9" dot in Done's green mixed steps of branches 1, 2 and 3 and read as "finished". Its
    # colour is the graph's "answered" (a step answered on a branch left behind since stays answered).
    mixed = [
        NodeMark(T0, "done", "a", branch=1),
        NodeMark(T0, "done", "b", branch=3),
        NodeMark(T0, "done", "c", branch=2),
    ]
    assert timeline_page.cluster_state("done", mixed) == "Answered, on branches 1, 2 and 3"
    assert timeline_page.cluster_state("done", mixed[:1]) == "Answered, on branch 1"
    # A checkpoint among them is green too: the legend's word, not "Done" (friction18a 3, 18b 4).
    with_checkpoint = [*mixed, NodeMark(T0, "done", "d", kind="checkpoint", branch=1)]
    assert timeline_page.cluster_state("done", with_checkpoint) == "Answered, on branches 1, 2 and 3"
    # A cluster holding the run's end, or another state, keeps its state's word.
    ended = [NodeMark(T0, "done", "a"), NodeMark(T0, "done", "Complete", kind="end")]
    assert timeline_page.cluster_state("done", ended) == "Done"
    assert timeline_page.cluster_state("left_behind", [NodeMark(T0, "left_behind", "a", branch=2)]) == (
        "Left behind, on branch 2"
    )


def test_a_dots_closeness_and_the_legend_read_as_a_person_counts():
    """friction17b 16 and 13: "within 51 ms" is a developer's precision; the legend's green is "Answered", not
    the graph's "Done" for a finished branch; the count of steps cannot be read as the workflow's."""
    assert timeline_page.within_words(0.051) == "within a second"
    assert timeline_page.within_words(12) == "within a minute"
    assert timeline_page.within_words(3 * 60 + 5) == "within 3 min"
    counts = timeline_page.StepCounts(answered=1, unanswered=1)
    assert counts.words == "2 steps reached (1 answered)"


def test_a_rows_quiet_words_stand_clear_of_its_newest_dots_as_drawn():
    # The last step answered and the step it led to stand at one moment (timeline_marks: an answered dot stands
    # when it was answered), drawn side by side: the tail's "no step for 14 min" stands between the second of
    # them and now, at either width, never on it (a phone's "5 h" read "h").
    r1 = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=T0, last_at=T0 + timedelta(minutes=86))
    later = T0 + timedelta(minutes=95)
    r2 = TimelineLane(run_id="r2", label="y", points=[0.0], first_at=later, last_at=later)
    runs = [
        RunSummary.model_construct(run_id="r1", workflow_name="One", state="running", created_at=T0),
        RunSummary.model_construct(run_id="r2", workflow_name="Two", state="running", created_at=later),
    ]
    answered = T0 + timedelta(minutes=86)
    marks = {
        "r1": [NodeMark(answered, "done", "Step 1"), NodeMark(answered, "running", "Step 2", kind="unanswered")],
        "r2": [NodeMark(later, "running", "Step 1", kind="unanswered")],
    }
    page = timeline_page.timeline_page(
        SessionDetail.model_construct(runs=runs, timeline=[r1, r2]),
        "/runs/RUN/",
        None,
        marks,
        T0 + timedelta(minutes=100),
    )
    row = page.rows[0]
    # The 86 min before the first answer are cut out (a break before it, friction62a 3); the 14 min since are not.
    assert row.quiet == "no new step for 14 min" and page.gap and page.gap_end
    quiet_at = float(row.quiet_at.rstrip("%"))
    for dots, room in ((row.dots, timeline_page.MERGE_WIDE), (row.narrow_dots, timeline_page.MERGE_NARROW)):
        assert quiet_at - max(float(dot.at.rstrip("%")) for dot in dots) >= room / 2, (row.quiet_at, dots)


def test_a_row_starts_where_its_run_started_and_says_how_long_as_its_card_does():
    # Friction61a (false 2): a run card said "started 50 min ago"; its row said "under a minute" and began at its
    # first dot, 50 min later, while its sibling's began at its run's start.
    r1 = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=T0, last_at=T0 + timedelta(minutes=50))
    started = T0 + timedelta(minutes=2)
    first = started + timedelta(minutes=48)
    r2 = TimelineLane(run_id="r2", label="y", points=[1.0, 1.0], first_at=first, last_at=first + timedelta(seconds=5))
    runs = [
        RunSummary.model_construct(run_id="r1", workflow_name="One", state="running", created_at=T0),
        RunSummary.model_construct(run_id="r2", workflow_name="Two", state="running", created_at=started),
    ]
    marks = {
        "r1": [NodeMark(T0, "done", "Step 1"), NodeMark(T0 + timedelta(minutes=50), "running", "Step 2")],
        "r2": [NodeMark(first, "done", "Step 1"), NodeMark(first + timedelta(seconds=5), "running", "Step 2")],
    }
    now = T0 + timedelta(minutes=52)
    page = timeline_page.timeline_page(
        SessionDetail.model_construct(runs=runs, timeline=[r1, r2]), "/runs/RUN/", None, marks, now
    )
    one, two = page.rows
    # At its run's start, not at its first dot: the 48 quiet minutes between them cut out (friction62a 3).
    assert two.start == page.gap
    assert float(two.start.rstrip("%")) < float(page.gap_end.rstrip("%")) <= float(two.dots[0].at.rstrip("%"))
    assert two.took.startswith("50\xa0min")  # from its start to now, as its card's "started 50 min ago"
    assert one.start == "1.50%"
    assert page.summary.first == T0  # the summary still says when the first step was


def test_the_summary_says_when_the_session_started_and_when_its_first_step_was_answered():
    # Friction62b 10: "first step 2:47 AM" above a first dot at 3:37 AM: the step was given at one, answered at the
    # other. Both are said: the start (the axis's), then the first answer (the first green dot's).
    given, answered = T0, T0 + timedelta(minutes=50)
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=given, last_at=answered)
    marks = {"r1": [NodeMark(answered, "done", "Step 1"), NodeMark(answered, "running", "Step 2", kind="unanswered")]}
    page = timeline_page.timeline_page(detail(lane, state="running"), "/runs/RUN/", None, marks, answered)
    assert page.summary.text == (
        "2 steps reached (1 answered) · started 22:00 UTC · first answer 22:50 UTC · last step under a minute ago"
    )
    # Answered within the minute it was given: the start says it, once.
    quick = {"r1": [NodeMark(T0 + timedelta(seconds=20), "done", "Step 1"), *marks["r1"][1:]]}
    page = timeline_page.timeline_page(detail(lane, state="running"), "/runs/RUN/", None, quick, answered)
    assert page.summary.answered is None and "first answer" not in page.summary.text


def test_a_checkpoint_answered_on_is_a_diamond_of_its_own_with_its_own_key():
    # Friction61a 3, 61b 6: an "Answered" dot "10" held 9 answers and a checkpoint; the graph draws a ◆.
    moments = [T0 + timedelta(milliseconds=10 * i) for i in range(4)]
    kinds: list[NodeKind] = ["answered", "checkpoint", "answered", "unanswered"]
    shown: list[StateName] = ["done", "done", "done", "running"]
    rows = enumerate(zip(moments, kinds, shown, strict=True))
    marks = {"r1": [NodeMark(m, s, f"Node {i}", kind=k) for i, (m, k, s) in rows]}
    lane = TimelineLane(run_id="r1", label="x", points=[0.0] * 4, first_at=moments[0], last_at=moments[-1])
    (row,) = timeline_page.timeline_page(detail(lane, state="running"), "/runs/RUN/", None, marks, NOW).rows
    for dots in (row.dots, row.narrow_dots):
        assert [(dot.state, dot.checkpoint, dot.count) for dot in dots] == [
            ("done", False, 2),
            ("done", True, 1),
            ("running", False, 1),
        ]
        assert dots[0].within == "2 steps within a second"
    assert [(s.label, s.checkpoint) for s in row.states] == [
        ("Working", False),
        ("Answered", False),
        ("Checkpoint", True),
    ]


def test_a_quiet_stretch_before_the_first_answer_is_cut_out_so_that_the_activity_spreads():
    # Friction62a 3: a run started 50 min before its first answer, then a burst of steps in the last minute: every
    # dot piled into the axis's last few pixels. The quiet stretch is cut out by a break at the axis's start, and
    # the activity takes the track's width, to scale: dots a minute apart stand far apart, not in one cluster.
    answered = T0 + timedelta(minutes=50)
    moments = [answered + timedelta(seconds=20 * i) for i in range(4)]
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=T0, last_at=moments[-1])
    marks = {"r1": [NodeMark(m, "done", f"Step {i}") for i, m in enumerate(moments[:-1])]}
    marks["r1"].append(NodeMark(moments[-1], "running", "Step 4", kind="unanswered"))
    now = moments[-1] + timedelta(seconds=30)
    page = timeline_page.timeline_page(detail(lane, state="running"), "/runs/RUN/", None, marks, now)
    (row,) = page.rows
    places = [float(dot.at.rstrip("%")) for dot in row.dots]
    assert page.gap == "1.50%" and float(page.gap_end.rstrip("%")) <= places[0], (page.gap, page.gap_end, places)
    assert len(row.dots) == 4 and all(dot.count == 1 for dot in row.dots)  # each its own dot
    assert places[-1] - places[0] > 15, places  # a minute of steps spread out, not piled at the end
    # The axis says the start before the break, and round moments after it, each in order.
    wide = [tick for tick in page.ticks if tick.only != "narrow"]
    assert wide[0].moment == T0.isoformat() and wide[0].at == "1.50%"
    assert all(float(tick.at.rstrip("%")) >= float(page.gap_end.rstrip("%")) for tick in wide[1:]), wide
    assert len(wide) >= 3, wide
    # The row still starts where its run started, at the axis's start (friction61a false 2).
    assert row.start == "1.50%"
    # Its line runs from before the break to after it: the break's "//" is drawn on it too (friction63b 6).
    assert row.broken


def test_seconds_of_steps_beside_a_long_quiet_stretch_spread_over_the_track_on_a_zoomed_axis():
    # Friction64: 20 s of steps, then 45 min without one: five minutes drawn to scale before the break put every dot
    # in the track's first tenth. The activity takes the track's width up to the break, on an axis to the second.
    moments = [T0 + timedelta(seconds=s) for s in (0, 10, 20)]
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=T0, last_at=moments[-1])
    marks = {"r1": [NodeMark(m, "done", f"Step {i}") for i, m in enumerate(moments[:-1])]}
    marks["r1"].append(NodeMark(moments[-1], "stalled", "Step 3", kind="unanswered"))
    page = timeline_page.timeline_page(
        detail(lane, state="stalled"), "/runs/RUN/", None, marks, T0 + timedelta(minutes=45)
    )
    places = [float(dot.at.rstrip("%")) for dot in page.rows[0].dots]
    gap = float(page.gap.rstrip("%"))
    assert places[0] == timeline_page.INSET and places[-1] > 0.6 * gap, (places, gap)
    wide = [tick.label for tick in page.ticks if tick.only != "narrow"]
    assert len(wide) >= 3 and all(len(label) == len("22:00:10") for label in wide), wide


def test_a_refused_steps_dot_is_marked_as_the_progress_strips_chip_is():
    # Friction63a 7: a refused dot in Working's blue read as progress: it carries "!" whatever its tone, a step
    # at work none.
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=T0, last_at=T0 + timedelta(seconds=5))
    refused = NodeMark(T0 + timedelta(seconds=5), "blocked", "Step 2", kind="unanswered", tone="agents")
    marks = {"r1": [NodeMark(T0, "done", "Step 1"), refused]}
    page = timeline_page.timeline_page(detail(lane, state="blocked"), "/runs/RUN/", None, marks, NOW)
    assert [dot.mark for dot in page.rows[0].dots] == ["", "!"]
    marks["r1"][1] = NodeMark(refused.at, "running", "Step 2", kind="unanswered")
    page = timeline_page.timeline_page(detail(lane, state="running"), "/runs/RUN/", None, marks, NOW)
    assert [dot.mark for dot in page.rows[0].dots] == ["", ""]


def test_a_short_quiet_stretch_is_drawn_to_scale():
    # Two steps 4 min apart after a run started 2 min before: no stretch is long enough to cut out (BREAK_AFTER).
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 1.0], first_at=T0, last_at=T0 + timedelta(minutes=6))
    marks = {
        "r1": [
            NodeMark(T0 + timedelta(minutes=2), "done", "Step 1"),
            NodeMark(T0 + timedelta(minutes=6), "running", "Step 2", kind="unanswered"),
        ]
    }
    page = timeline_page.timeline_page(
        detail(lane, state="running"), "/runs/RUN/", None, marks, T0 + timedelta(minutes=7)
    )
    assert page.gap == "" and page.gap_end == ""


def test_a_rows_quiet_words_say_when_its_agent_was_active_since_its_newest_step():
    # Friction62a, 62b: "Agent's move · Working" (something recorded in the last 30 min) beside "no step for 30 min"
    # read as a contradiction. The words say "no new step", and when the agent recorded something since, that too.
    r1 = TimelineLane(run_id="r1", label="x", points=[0.0], first_at=T0, last_at=T0 + timedelta(seconds=5))
    later = T0 + timedelta(minutes=30)
    r2 = TimelineLane(run_id="r2", label="y", points=[0.0], first_at=later, last_at=later)
    marks = {"r1": [NodeMark(T0, "running", "Step 1")], "r2": [NodeMark(later, "running", "Step 1")]}
    now = later + timedelta(minutes=1)

    def quiet(active: datetime) -> str:
        runs = [
            RunSummary.model_construct(
                run_id="r1", workflow_name="One", state="running", created_at=T0, updated_at=active
            ),
            RunSummary.model_construct(
                run_id="r2", workflow_name="Two", state="running", created_at=later, updated_at=later
            ),
        ]
        page = timeline_page.timeline_page(
            SessionDetail.model_construct(runs=runs, timeline=[r1, r2]), "/runs/RUN/", None, marks, now
        )
        row = page.rows[0]
        # The longer words on a line of their own under the track at every width, the tail's left blank.
        return row.narrow_quiet if row.quiet_below and not row.quiet else row.quiet

    assert quiet(T0 + timedelta(seconds=5)) == "no new step for 30 min"
    assert quiet(now - timedelta(minutes=5)) == "no new step for 30 min (active 5 min ago)"
