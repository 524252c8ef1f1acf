"""Tool-call timings: recorded off the call's path, bounded, summarised per tool."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from runs.mcp import timings, tools
from runs.models import Run, ToolCall
from runs.readmodels.timings import median, percentile, tool_lines, tool_timings
from runs.store import tool_calls

pytestmark = pytest.mark.django_db


@pytest.fixture
def recording():
    timings.enable(background=False)
    yield
    timings.disable()


def test_each_tool_call_is_recorded_with_its_outcome(service_catalog, recording):
    start = tools.call("start_workflow", {"workflowId": "wr.routine-focused_plan"})
    arguments = {**start.structured["nextCall"]["arguments"], "output": {"notesMarkdown": "<fill in: notes>"}}
    tools.call("continue_workflow", arguments)  # an unchanged placeholder: blocked, the contract working
    tools.call("continue_workflow", {"stateToken": "st1_garbage"})
    tools.call("no_such_tool", {})
    assert timings.flush() == 4
    rows = list(ToolCall.objects.order_by("pk").values_list("tool", "outcome"))
    assert rows == [
        ("start_workflow", "ok"),
        ("continue_workflow", "blocked"),
        ("continue_workflow", "TOKEN_MALFORMED"),
        ("(unknown tool)", "INVALID_INPUT"),
    ]
    # A failed call keeps its error's message as the agent was told it, for the timings page to say why.
    failed = list(ToolCall.objects.order_by("pk").values_list("message", flat=True))
    assert failed[:2] == ["", ""] and failed[2] and "no_such_tool" in failed[3]
    assert all(d > 0 for d in ToolCall.objects.values_list("duration_ms", flat=True))
    assert timings.flush() == 0  # nothing twice


def test_nothing_is_recorded_unless_the_mcp_server_turned_recording_on(service_catalog):
    tools.call("list_workflows", {})
    assert timings.flush() == 0
    assert ToolCall.objects.count() == 0


def test_the_table_keeps_only_the_newest_calls(recording):
    now = datetime.now(UTC)
    for index in range(30):
        timings.record("list_workflows", "ok", float(index), now)
    timings.flush()
    assert tool_calls.prune(10) == 20
    assert sorted(ToolCall.objects.values_list("duration_ms", flat=True)) == [float(i) for i in range(20, 30)]
    assert tool_calls.prune(10) == 0


def test_percentiles_are_nearest_rank():
    ordered = [float(i) for i in range(1, 101)]
    assert (percentile(ordered, 0.5), percentile(ordered, 0.95), percentile([], 0.5)) == (50.0, 95.0, 0.0)
    assert percentile([7.0], 0.95) == 7.0


def test_the_median_of_an_even_count_is_the_midpoint_of_the_middle_two(settings):
    assert (median([3.0, 1800.0]), median([1.0, 2.0, 9.0]), median([])) == (901.5, 2.0, 0.0)
    now = datetime.now(UTC)
    ToolCall.objects.bulk_create(
        [ToolCall(tool="start_workflow", outcome="ok", duration_ms=ms, started_at=now) for ms in (3.0, 1800.0)]
    )
    # Two calls: the page calls no figure a median (friction16a 18); the API still gives its p50.
    assert [line.median for line in tool_lines().lines] == [""]
    assert [s.p50_ms for s in tool_timings().stats] == [901.5]
    ToolCall.objects.bulk_create(
        [ToolCall(tool="start_workflow", outcome="ok", duration_ms=ms, started_at=now) for ms in (2.0, 1900.0)]
    )
    assert [line.median for line in tool_lines().lines] == ["902 ms"]


def test_the_timings_view_summarises_each_tool(settings):
    now = datetime.now(UTC)
    ToolCall.objects.bulk_create(
        [ToolCall(tool="continue_workflow", outcome="ok", duration_ms=float(i), started_at=now) for i in range(1, 21)]
        + [ToolCall(tool="continue_workflow", outcome="TOKEN_UNKNOWN", duration_ms=100.0, started_at=now)]
        + [ToolCall(tool="list_workflows", outcome="blocked", duration_ms=3.0, started_at=now)]
    )
    view = tool_timings(recent=5)
    stats = {s.tool: s for s in view.stats}
    # An unknown token is turned away (the agent was told), not a failure of the server (friction26b 13).
    continuing = stats["continue_workflow"]
    assert (continuing.calls, continuing.errors, continuing.refused) == (21, 0, 1)
    assert (stats["continue_workflow"].p50_ms, stats["continue_workflow"].p95_ms) == (11.0, 20.0)
    assert stats["continue_workflow"].max_ms == 100.0
    assert stats["list_workflows"].errors == 0
    assert [r.tool for r in view.recent] == ["list_workflows"] + ["continue_workflow"] * 4
    assert view.kept == settings.WORKRAIL_TOOL_TIMINGS_KEPT


def test_a_call_notes_the_run_or_session_it_was_about_and_an_unexpected_exceptions_kind(
    service_catalog, recording, monkeypatch
):
    start = tools.call("start_workflow", {"workflowId": "wr.routine-focused_plan"})
    state_token = start.structured["nextCall"]["arguments"]["stateToken"]
    tools.call("continue_workflow", {"stateToken": state_token})  # rehydrates: the token names the run
    tools.call("list_workflows", {})  # about no session

    def broken(request):
        raise KeyError("a secret in the message")

    monkeypatch.setattr("runs.mcp.services.start_workflow", broken)
    failed = tools.call("start_workflow", {"workflowId": "wr.routine-focused_plan"})
    assert failed.structured["error"]["code"] == "INTERNAL_ERROR"
    assert "KeyError" not in str(failed.structured)  # the answer is unchanged: the kind goes to the timing row
    timings.flush()
    assert "a secret" not in ToolCall.objects.order_by("pk").values_list("message", flat=True).last()  # the answer's
    run = Run.objects.get()
    rows = list(ToolCall.objects.order_by("pk").values_list("tool", "outcome", "run_id", "session_id", "exception"))
    assert rows == [
        ("start_workflow", "ok", "", run.session.public_id, ""),
        ("continue_workflow", "ok", run.public_id, run.session.public_id, ""),
        ("list_workflows", "ok", "", "", ""),
        ("start_workflow", "INTERNAL_ERROR", "", "", "KeyError"),
    ]


def test_the_page_counts_a_refusal_to_an_ended_run_apart_and_gives_a_p95_from_enough_calls():
    now = datetime.now(UTC)
    ToolCall.objects.bulk_create(
        [ToolCall(tool="continue_workflow", outcome="ok", duration_ms=float(i), started_at=now) for i in range(1, 20)]
        + [ToolCall(tool="continue_workflow", outcome=code, duration_ms=1834.25, started_at=now)
           for code in ("RUN_CANCELED", "NODE_COMPLETE", "TOKEN_UNKNOWN")]
        + [ToolCall(tool="start_workflow", outcome="RUN_CANCELED", duration_ms=0.4, started_at=now)]
        + [ToolCall(tool="list_workflows", outcome=code, duration_ms=1.0, started_at=now)
           for code in ("INTERNAL_ERROR", "KeyError", "WORKFLOW_NOT_FOUND")]
    )  # fmt: skip
    lines = {line.tool: line for line in tool_lines().lines}
    going_on, starting = lines["continue_workflow"], lines["start_workflow"]
    # Refusals by code, not by words: the canceled run's, the complete branch's and an unknown token are turned
    # away, told to the agent, not the server's failures (friction26b 13); a crash inside the server is one.
    assert (going_on.calls, going_on.errors, going_on.refused, going_on.error_share) == (22, 0, 3, "0")
    assert (starting.errors, starting.refused, starting.error_share) == (0, 1, "0")
    listing = lines["list_workflows"]  # a crash, and a code this server does not know: the server's failures
    assert (listing.errors, listing.refused, listing.error_share) == (2, 1, "2 (67%)")
    # 22 calls: a p95, in the unit that suits it; one call: none.
    # An even count: the midpoint of the middle two (11 ms and 12 ms).
    assert (going_on.median, going_on.p95, going_on.slowest) == ("12 ms", "1.8 s", "1.8 s")
    assert (starting.median, starting.p95, starting.slowest) == ("", "", "0.4 ms")  # one call: no median
    assert tool_lines().kept_said == f"{tool_lines().kept:,}"
    # The HTTP API splits them the same way: the page and the API never disagree on what failed.
    api = {s.tool: (s.calls, s.errors, s.refused) for s in tool_timings().stats}
    assert api == {"continue_workflow": (22, 0, 3), "start_workflow": (1, 0, 1), "list_workflows": (3, 2, 1)}
    assert api == {line.tool: (line.calls, line.errors, line.refused) for line in lines.values()}
