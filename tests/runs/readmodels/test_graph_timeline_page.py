"""The session timeline's layout (runs/readmodels/timeline_page.py): the template only prints it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from runs.contract.dashboard import RunSummary, SessionDetail, TimelineLane
from runs.readmodels import timeline_page

T0 = datetime(2026, 11, 28, 22, 0, tzinfo=UTC)


def detail(*lanes: TimelineLane) -> SessionDetail:
    runs = [RunSummary.model_construct(run_id="r1", workflow_name="Risk-Scaled Merge Request Review")]
    return SessionDetail.model_construct(runs=runs, timeline=list(lanes))


def test_each_row_keeps_its_full_name_and_duration_apart_from_dots_placed_in_percent_of_the_track():
    lane = TimelineLane(run_id="r1", label="x", points=[0.0, 0.5, 1.0], first_at=T0, last_at=T0 + timedelta(seconds=90))
    page = timeline_page.timeline_page(detail(lane), "/runs/RUN/", selected_run="r1")
    (row,) = page.rows
    assert row.label == "Risk-Scaled Merge Request Review"  # never cut: its column wraps it
    assert row.href == "/runs/r1/" and row.selected
    assert row.took == "1 min 30 s · 3 nodes"
    # The ends are inset so that a dot at either end stays whole; the middle is the middle.
    assert row.dots == ["1.50%", "50.00%", "98.50%"] and (row.start, row.end) == ("1.50%", "98.50%")
    assert "2026-11-28 22:00:00 UTC to 2026-11-28 22:01:30 UTC" in row.tooltip
    assert page.caption == "2026-11-28 22:00:00 to 22:01:30 UTC · 1 min 30 s"
    assert page.ticks[0].anchor == "start" and page.ticks[-1].anchor == "end"
    assert [tick.minor for tick in page.ticks] == [index % 2 == 1 for index in range(len(page.ticks))]


def test_a_run_without_times_has_a_row_and_no_axis():
    lane = TimelineLane(run_id="r2", label="Focused Plan Routine", points=[])
    page = timeline_page.timeline_page(detail(lane), "/runs/RUN/")
    assert [(row.label, row.took, row.dots) for row in page.rows] == [("Focused Plan Routine", "0 nodes", [])]
    assert page.ticks == [] and page.caption == ""
