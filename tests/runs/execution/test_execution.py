"""start_workflow / continue_workflow through the service layer: tokens, idempotency, forks, recaps."""

import json
import os

import pytest
from django.db import connection

from runs.contract.errors import ErrorCode, WorkRailError
from runs.execution.session_actions import cancel_run
from runs.models import Ack, Event, EventKind, Node, Output, Run, RunStatus, Session
from tests.support import texts
from tests.support.checks import assert_gap_free, canonical, error_code
from tests.support.mcp_calls import ack, checkpoint_workflow, continue_workflow, notes_for, start_workflow
from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db


def three_steps(workflow_id="project.three"):
    return workflow_doc(
        workflow_id,
        steps=[
            {"id": "one", "title": "One", "prompt": "Do one."},
            {"id": "two", "title": "Two", "prompt": "Do two for {{ticketId}}."},
            {"id": "three", "title": "Three", "prompt": "Do three."},
        ],
    )


@pytest.fixture
def three(service_catalog):
    return write_json(service_catalog["project"] / ".workrail" / "workflows" / "three.json", three_steps())


def test_start_returns_the_first_step_tokens_session_and_next_call(three):
    response = start_workflow("project.three", {"ticketId": "AUTH-1"})
    assert response["kind"] == "step"
    assert response["isComplete"] is False
    assert response["pending"]["stepId"] == "one"
    assert response["stateToken"].startswith("st1_")
    assert response["ackToken"].startswith("ak1_")
    assert response["session"]["sessionKey"] == "ticket:AUTH-1"
    assert response["session"]["runId"].startswith("run_")
    call = response["nextCall"]
    assert call["tool"] == "continue_workflow"
    assert call["arguments"]["stateToken"] == response["stateToken"]
    assert call["arguments"]["ackToken"] == response["ackToken"]
    assert "notesMarkdown" in call["arguments"]["output"]
    assert_gap_free()


def test_advancing_walks_the_steps_to_completion(three):
    response = start_workflow("project.three", {"ticketId": "AUTH-1"})
    second = ack(response)
    assert second["pending"]["stepId"] == "two"
    assert "AUTH-1" in second["pending"]["prompt"]
    third = ack(second)
    done = ack(third)
    assert done["kind"] == "complete"
    assert done["isComplete"] is True
    assert done["pending"] is None
    assert done["ackToken"] is None
    assert done["nextCall"] is None
    run = Run.objects.get(public_id=done["session"]["runId"])
    assert run.status == RunStatus.COMPLETE
    assert Event.objects.filter(kind=EventKind.RUN_COMPLETED).count() == 1
    assert_gap_free()


def test_a_replayed_ack_returns_the_recorded_answer_and_never_advances_twice(three):
    response = start_workflow("project.three")
    first = ack(response)
    nodes = Node.objects.count()
    again = ack(response)
    assert canonical(again) == canonical(first)
    assert Node.objects.count() == nodes
    assert Ack.objects.count() == 1


def test_a_replay_with_other_output_is_still_a_replay_and_says_how_to_fork(three):
    response = start_workflow("project.three")
    first = ack(response)
    other = continue_workflow(
        stateToken=response["stateToken"],
        ackToken=response["ackToken"],
        output={"notesMarkdown": "Something else entirely."},
    )
    assert other["stateToken"] == first["stateToken"]
    notice = other["warnings"][0]  # first, before anything the recorded answer says
    assert notice["code"] == "REPLAY_OUTPUT_IGNORED"
    assert notice["message"].startswith("Nothing you sent with this call was recorded")
    assert f'call continue_workflow {{"stateToken": "{response["stateToken"]}"}} (no ackToken)' in notice["message"]
    text = texts.execution_text(other)  # the old answer is introduced as old, not passed off as news
    assert text.startswith("NOT RECORDED: Nothing you sent") and "\nThe answer recorded then:\n" in text
    assert "Warning REPLAY_OUTPUT_IGNORED" not in text
    assert not texts.execution_text(first).startswith("NOT RECORDED")
    assert Node.objects.count() == 2


def test_a_replay_with_other_output_points_at_where_its_branch_stands_now(three):
    """Issue 28: the step below a replayed answer may have been acknowledged since; its tokens would only
    replay again. The answer gives the branch's tip, with the tokens that go on from there."""
    start = start_workflow("project.three")
    second = ack(start)
    third = ack(second)  # the branch moved on past the answer the replay gives again
    other = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output={"notesMarkdown": "Other words."}
    )
    assert other["stateToken"] == second["stateToken"]  # the recorded answer, unchanged
    tip = other["branchTip"]
    assert tip == {
        "stateToken": third["stateToken"],
        "ackToken": third["ackToken"],  # its pending step's unused ackToken
        "pendingStepId": "three",
        "isComplete": False,
    }
    text = texts.execution_text(other)
    call = json.dumps({"stateToken": third["stateToken"], "ackToken": third["ackToken"]})
    assert f"has moved on since: its tip is at step three. Go on there with continue_workflow {call}." in text
    assert "do not use the tokens below: the step below was acknowledged since" in text
    assert "go on with the step below" not in text
    done = ack(third)
    finished = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output={"notesMarkdown": "Other words."}
    )
    assert finished["branchTip"] == {
        "stateToken": done["stateToken"], "ackToken": None, "pendingStepId": None, "isComplete": True,
    }  # fmt: skip
    assert "the run is complete there" in texts.execution_text(finished)
    # Where the branch has not moved, the recorded answer is where it stands: no tip is added.
    assert "branchTip" not in continue_workflow(
        stateToken=third["stateToken"], ackToken=third["ackToken"], output={"notesMarkdown": "Other again."}
    )


def test_rehydrating_the_tip_recaps_notes_and_does_not_advance(three):
    response = start_workflow("project.three")
    second = continue_workflow(
        stateToken=response["stateToken"],
        ackToken=response["ackToken"],
        output={"notesMarkdown": "Found the flaky test."},
    )
    nodes = Node.objects.count()
    again = continue_workflow(stateToken=second["stateToken"])
    assert Node.objects.count() == nodes
    assert again["rehydrated"] is True
    assert again["pending"]["stepId"] == "two"
    assert again["ackToken"] == second["ackToken"]  # the unused ack of that step, not a new one
    assert [e["notesMarkdown"] for e in again["recap"]["entries"]] == ["Found the flaky test."]
    assert again["recap"]["truncated"] is False
    assert "branches" not in again


def test_an_older_state_token_forks_a_sibling_branch(three):
    start = start_workflow("project.three")
    main = ack(start)
    ack(main)
    rewound = continue_workflow(stateToken=start["stateToken"])
    assert rewound["pending"]["stepId"] == "one"
    assert len(rewound["branches"]) == 1
    assert rewound["branches"][0]["completedStepId"] == "one"
    assert [e["stepId"] for e in rewound["downstreamRecap"]["entries"]] == ["one", "two"]
    other_branch = texts.execution_text(rewound).split("already has 1 branch(es)")[1].split("Step:")[0]
    assert "Branch 1: after one" in other_branch and "[1]" not in other_branch  # not this path's history
    assert rewound["ackToken"] != start["ackToken"]
    fork = continue_workflow(
        stateToken=start["stateToken"], ackToken=rewound["ackToken"], output={"notesMarkdown": "Different approach."}
    )
    assert fork["pending"]["stepId"] == "two"
    assert fork["stateToken"] != main["stateToken"]
    [notice] = [w for w in fork["warnings"] if w["code"] == "BRANCH_STARTED"]
    assert "you are now on branch 2 from that point, and the 1 earlier one(s) are kept" in notice["message"]
    assert not [w for w in main["warnings"] if w["code"] == "BRANCH_STARTED"]  # the first branch is no fork
    root = Node.objects.get(depth=0)
    assert root.children.count() == 2
    assert root.latest_child.public_id != Node.objects.get(parent=root, pk=root.children.order_by("pk")[0].pk).public_id
    again = continue_workflow(stateToken=start["stateToken"])
    assert len(again["branches"]) == 2


def test_a_fork_from_a_finished_run_reopens_it(three):
    start = start_workflow("project.three")
    step = start
    for _ in range(3):
        step = ack(step)
    assert Run.objects.get().status == RunStatus.COMPLETE
    rewound = continue_workflow(stateToken=start["stateToken"])
    ack(rewound)
    assert Run.objects.get().status == RunStatus.IN_PROGRESS


def test_scope_is_enforced_across_runs_and_nodes(three):
    run_a = start_workflow("project.three")
    run_b = start_workflow("project.three")
    assert error_code(lambda: continue_workflow(stateToken=run_a["stateToken"], ackToken=run_b["ackToken"])) == (
        ErrorCode.TOKEN_SCOPE_MISMATCH
    )
    next_a = ack(run_a)
    assert error_code(lambda: continue_workflow(stateToken=next_a["stateToken"], ackToken=run_a["ackToken"])) == (
        ErrorCode.TOKEN_SCOPE_MISMATCH
    )


def test_tokens_from_another_key_or_unknown_ids_are_refused(three, tmp_path):
    from runs.store import tokens
    from runs.store.tokens import TokenKind

    response = start_workflow("project.three")
    foreign = tokens.mint(tmp_path, TokenKind.STATE, 1)
    assert error_code(lambda: continue_workflow(stateToken=foreign)) == ErrorCode.TOKEN_BAD_SIGNATURE
    from django.conf import settings

    unknown = tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, 12345)
    assert error_code(lambda: continue_workflow(stateToken=unknown)) == ErrorCode.TOKEN_UNKNOWN
    unknown_ack = tokens.mint(settings.WORKRAIL_HOME, TokenKind.ACK, 12345)
    assert error_code(lambda: continue_workflow(stateToken=response["stateToken"], ackToken=unknown_ack)) == (
        ErrorCode.TOKEN_UNKNOWN
    )
    assert error_code(lambda: continue_workflow(stateToken="garbage")) == ErrorCode.TOKEN_MALFORMED
    assert error_code(lambda: continue_workflow(stateToken=response["ackToken"])) == ErrorCode.TOKEN_MALFORMED


def test_wrapped_tokens_still_work(three):
    response = start_workflow("project.three")
    second = continue_workflow(
        stateToken=f'"{response["stateToken"]}"',
        ackToken=f"`{response['ackToken']}`\n",
        output=notes_for(response["pending"]),
    )
    assert second["pending"]["stepId"] == "two"


def test_sessions_are_joined_by_ticket_id_or_session_key(three):
    a = start_workflow("project.three", {"ticketId": "T-9"})
    b = start_workflow("project.three", {"ticketId": "T-9"})
    c = start_workflow("project.three", {"sessionKey": "my-work"})
    d = start_workflow("project.three")
    assert a["session"]["sessionId"] == b["session"]["sessionId"]
    assert a["session"]["runId"] != b["session"]["runId"]
    assert len({a["session"]["sessionId"], c["session"]["sessionId"], d["session"]["sessionId"]}) == 3
    assert_gap_free()


def test_missing_notes_block_the_step_and_a_retry_keeps_the_run_in_place(three):
    response = start_workflow("project.three")
    blocked = continue_workflow(stateToken=response["stateToken"], ackToken=response["ackToken"], output={})
    assert blocked["kind"] == "blocked"
    assert blocked["stateToken"] == response["stateToken"]
    assert blocked["ackToken"] != response["ackToken"]
    assert blocked["pending"]["stepId"] == "one"
    assert blocked["blocked"]["issues"][0]["code"] == "NOTES_REQUIRED"
    assert blocked["blocked"]["expectedOutputSchema"]["properties"]["notesMarkdown"]
    assert Run.objects.get().status == RunStatus.BLOCKED
    replay = continue_workflow(stateToken=response["stateToken"], ackToken=response["ackToken"], output={})
    assert canonical(replay) == canonical(blocked)
    moved = ack(blocked)
    assert moved["pending"]["stepId"] == "two"
    assert Run.objects.get().status == RunStatus.IN_PROGRESS


def test_a_run_continues_on_its_pinned_snapshot_when_the_file_changes_or_goes(three):
    response = start_workflow("project.three")
    edited = three_steps()
    edited["steps"][1]["prompt"] = "A completely different second step."
    write_json(three, edited)
    os.utime(three, ns=(10**18, 10**18))
    second = ack(response)
    assert second["pending"]["prompt"] == "Do two for [not set: ticketId]."
    assert [w["code"] for w in second["warnings"]] == ["WORKFLOW_CHANGED_ON_DISK"]
    # Said once per run: the next answer does not repeat it while nothing changed.
    assert continue_workflow(stateToken=second["stateToken"])["warnings"] == []
    three.unlink()
    third = ack(second)
    assert third["pending"]["stepId"] == "three"
    assert [w["code"] for w in third["warnings"]] == ["WORKFLOW_SOURCE_MISSING"]
    assert [w["code"] for w in ack(third)["warnings"]] == []
    fresh = start_workflow  # a new run cannot start from a file that is gone
    assert error_code(lambda: fresh("project.three")) == ErrorCode.WORKFLOW_NOT_FOUND


def test_a_canceled_run_refuses_to_advance_but_can_be_read(three):
    response = start_workflow("project.three")
    cancel_run(response["session"]["runId"])
    assert error_code(lambda: ack(response)) == ErrorCode.RUN_CANCELED
    assert continue_workflow(stateToken=response["stateToken"])["pending"]["stepId"] == "one"


def test_context_and_output_without_an_ack_are_not_recorded_and_say_so(three):
    response = start_workflow("project.three")
    again = continue_workflow(stateToken=response["stateToken"], output={"notesMarkdown": "lost?"})
    assert again["warnings"][-1]["code"] == "IGNORED_WITHOUT_ACK"
    assert not Event.objects.filter(kind=EventKind.OUTPUT_RECORDED).exists()


def test_events_are_append_only(three):
    from runs.models import AppendOnlyError

    start_workflow("project.three")
    event = Event.objects.first()
    with pytest.raises(AppendOnlyError):
        event.save()
    with pytest.raises(AppendOnlyError):
        event.delete()
    with pytest.raises(AppendOnlyError):
        Event.objects.filter(pk=event.pk).update(kind="x")
    with pytest.raises(AppendOnlyError):
        Event.objects.all().delete()
    with pytest.raises(Exception, match="append-only"), connection.cursor() as cursor:
        cursor.execute("UPDATE runs_event SET kind = 'x' WHERE id = %s", [event.pk])


def test_rebuilt_projections_equal_the_stored_ones(three):
    from harness.projections import snapshot

    start = start_workflow("project.three", {"ticketId": "R-1"})
    second = ack(start)
    continue_workflow(stateToken=second["stateToken"], ackToken=second["ackToken"], output={})  # blocked
    rewound = continue_workflow(stateToken=start["stateToken"])
    ack(rewound)
    before = snapshot()
    from runs.store.rebuild import rebuild_projections

    counts = rebuild_projections()
    assert counts["events"] == Event.objects.count()
    assert snapshot() == before


def test_malformed_output_and_context_are_refused_before_anything_is_stored(three):
    response = start_workflow("project.three")
    events = Event.objects.count()
    for bad in (
        {"output": {"notesMarkdown": 5}},
        {"output": {"artifacts": [{"no": "kind"}]}},
        {"output": "text"},
        {"context": ["a"]},
    ):
        arguments = {"stateToken": response["stateToken"], "ackToken": response["ackToken"], **bad}
        assert error_code(lambda a=arguments: continue_workflow(**a)) == ErrorCode.INVALID_INPUT
    assert Event.objects.count() == events
    assert json.loads(json.dumps(ack(response)))["pending"]["stepId"] == "two"


def test_recaps_keep_the_first_and_the_most_recent_entries_within_the_byte_budget(three, monkeypatch):
    from runs.readmodels import recap
    from tests.support.texts import execution_text

    monkeypatch.setattr(recap, "RECAP_BUDGET_BYTES", 700)
    response = start_workflow("project.three")
    for index in range(2):
        response = continue_workflow(
            stateToken=response["stateToken"],
            ackToken=response["ackToken"],
            output={"notesMarkdown": f"Entry {index}: " + "x" * 150},
        )
    for index in range(2, 4):
        response = checkpoint_workflow(
            stateToken=response["stateToken"], output={"notesMarkdown": f"Entry {index}: " + "x" * 150}
        )
    again = continue_workflow(stateToken=response["stateToken"])
    summary = again["recap"]
    assert summary["truncated"] is True
    assert summary["omittedEntries"] == 2
    assert [e["notesMarkdown"][:7] for e in summary["entries"]] == ["Entry 0", "Entry 3"]
    assert "700 bytes" in summary["policy"]
    assert (summary["omitted"]["fromPosition"], summary["omitted"]["toPosition"]) == (2, 3)
    assert "2 entries left out (positions 2 to 3)" in execution_text(again)
    assert len(json.dumps(summary["entries"])) <= 700


def test_a_blocked_retry_repeats_the_context_that_came_with_it(three):
    response = start_workflow("project.three")
    blocked = continue_workflow(
        stateToken=response["stateToken"], ackToken=response["ackToken"], context={"ticketId": "LATE-7"}, output={}
    )
    assert blocked["nextCall"]["arguments"]["context"] == {"ticketId": "LATE-7"}
    moved = continue_workflow(**{**blocked["nextCall"]["arguments"], "output": {"notesMarkdown": "done"}})
    assert "LATE-7" in moved["pending"]["prompt"]


@pytest.mark.parametrize(
    ("key", "value"),
    [("ticketId", "T" * 191), ("sessionKey", "k" * 201), ("ticketId", {"id": 1}), ("sessionKey", True)],
)
def test_session_ids_in_context_are_short_ids_and_refused_without_being_echoed(service_catalog, key, value):
    from runs.mcp import tools

    out = tools.call("start_workflow", {"workflowId": "wr.routine-focused_plan", "context": {key: value}})
    assert out.is_error and out.structured["error"]["code"] == "INVALID_INPUT"
    assert f"context.{key}" in out.structured["error"]["message"]
    assert len(json.dumps(out.structured)) < 1000  # the value is not echoed back
    assert Session.objects.count() == 0


def test_the_longest_accepted_ticket_id_fits_the_session_key(service_catalog):
    answer = start_workflow("wr.routine-focused_plan", context={"ticketId": "T" * 190})
    assert Session.objects.get(public_id=answer["session"]["sessionId"]).session_key == "ticket:" + "T" * 190


def test_a_point_rewound_many_times_lists_only_its_newest_branches_with_the_count(service_catalog, settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 1000
    start = start_workflow("wr.routine-focused_plan")
    notes = []
    for index in range(15):
        fresh = continue_workflow(stateToken=start["stateToken"])["ackToken"]
        note = f"Attempt {index}: a different idea."
        notes.append(note)
        continue_workflow(stateToken=start["stateToken"], ackToken=fresh, output={"notesMarkdown": note})
    again = continue_workflow(stateToken=start["stateToken"])
    assert again["branchCount"] == 15
    listed = again["branches"]
    # The newest ten, oldest first; the newest one's notes are in the downstream recap instead of its preview.
    assert [b["notesPreview"] for b in listed[:-1]] == notes[-10:-1]
    assert listed[-1]["notesBelow"] and again["downstreamRecap"]["entries"][0]["notesMarkdown"] == notes[-1]
    assert "15 branch(es) (the newest 10 are listed)" in again["fork"]
    few = start_workflow("wr.routine-focused_plan")
    fresh = continue_workflow(stateToken=few["stateToken"])["ackToken"]
    continue_workflow(stateToken=few["stateToken"], ackToken=fresh, output={"notesMarkdown": "One idea."})
    one = continue_workflow(stateToken=few["stateToken"])
    assert (one["branchCount"], len(one["branches"])) == (1, 1) and "listed" not in one["fork"]


def test_a_runs_accumulated_context_is_bounded_and_a_refusal_records_nothing(service_catalog):
    from runs.contract.inputs import MAX_RUN_CONTEXT_BYTES

    chunk = "x" * (MAX_RUN_CONTEXT_BYTES // 3)
    answer = start_workflow("wr.routine-focused_plan", context={"a": chunk})
    answer = continue_workflow(
        stateToken=answer["stateToken"],
        ackToken=answer["ackToken"],
        output=notes_for(answer["pending"]),
        context={"b": chunk},
    )
    events_before = Event.objects.count()
    with pytest.raises(WorkRailError) as refused:
        continue_workflow(
            stateToken=answer["stateToken"],
            ackToken=answer["ackToken"],
            output=notes_for(answer["pending"]),
            context={"c": chunk, "d": "y" * 1000},
        )
    assert refused.value.code.value == "INVALID_INPUT" and refused.value.details["pointer"] == "/context"
    assert Event.objects.count() == events_before
    replaced = continue_workflow(  # replacing a value instead of adding one fits: the same ack still works
        stateToken=answer["stateToken"],
        ackToken=answer["ackToken"],
        output=notes_for(answer["pending"]),
        context={"b": "short"},
    )
    assert replaced["kind"] == "step"
    assert (
        max(len(json.dumps(n)) for n in Node.objects.values_list("engine_state", flat=True)) < 2 * MAX_RUN_CONTEXT_BYTES
    )


def test_a_run_of_a_workflow_renamed_since_is_told_the_new_id_and_no_path(three):
    response = start_workflow("project.three")
    renamed = three_steps()
    renamed["id"], renamed["formerIds"] = "project.three_steps", ["project.three"]
    write_json(three, renamed)
    os.utime(three, ns=(10**18, 10**18))
    second = ack(response)
    assert second["pending"]["stepId"] == "two"  # on its pinned snapshot
    [warning] = second["warnings"]
    assert warning["code"] == "WORKFLOW_CHANGED_ON_DISK"
    assert "'project.three' is 'project.three_steps' now" in warning["message"]
    assert str(three.parent) not in warning["message"]


def test_a_title_rendered_from_a_long_loop_item_is_recorded_within_its_column(service_catalog):
    """PostgreSQL refused the Output row (varchar 200) when a loop's title named a long item: an
    INTERNAL_ERROR on a real run with long slice names. The row keeps what a page shows; the event all."""
    loop = {"type": "forEach", "items": "items", "itemVar": "item", "maxIterations": 5}
    steps = [
        loop_doc("each", "Each", loop, [step_doc("handle-item", "Handle {{item}}", "Handle {{item}}.")]),
        step_doc("end", "End", "Finish."),
    ]
    path = service_catalog["project"] / ".workrail" / "workflows" / "long.json"
    write_json(path, workflow_doc("project.long_items", steps=steps))
    item = "x" * 300
    started = start_workflow("project.long_items", {"items": [item]})
    assert item in started["pending"]["title"]
    ack(started)
    [recorded] = Output.objects.filter(step_id="handle-item")
    assert len(recorded.step_title) == 200 and recorded.step_title.endswith("…")
