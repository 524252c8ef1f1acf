"""checkpoint_workflow and start_session: durable progress that survives rewinds."""

import pytest

from runs.contract.errors import WorkRailError
from runs.models import Checkpoint, Event, EventKind, Node
from tests.support.checks import canonical, error_code
from tests.support.mcp_calls import (
    ack,
    checkpoint_workflow,
    continue_workflow,
    start_session,
    start_workflow,
)

pytestmark = pytest.mark.django_db
PLAN = "wr.routine-focused_plan"


def test_a_checkpoint_records_progress_without_advancing(service_catalog):
    start = start_workflow(PLAN)
    saved = checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": "Prototyped the parser."})
    assert saved["kind"] == "checkpoint"
    assert saved["pending"]["stepId"] == start["pending"]["stepId"]  # still the same step
    assert saved["stateToken"] != start["stateToken"]
    assert saved["checkpoint"]["recorded"]["notesMarkdown"] == "Prototyped the parser."
    again = continue_workflow(stateToken=saved["stateToken"])
    assert [e["notesMarkdown"] for e in again["recap"]["entries"]] == ["Prototyped the parser."]
    assert again["recap"]["entries"][0]["kind"] == "checkpoint"
    moved = ack(saved)
    assert moved["pending"]["stepId"] != start["pending"]["stepId"]


def test_retrying_the_same_checkpoint_records_it_once(service_catalog):
    start = start_workflow(PLAN)
    first = checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": "Same work."})
    second = checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": "Same work."})
    assert canonical(first) == canonical(second)
    assert Checkpoint.objects.count() == 1
    other = checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": "More work."})
    assert other["stateToken"] != first["stateToken"]
    assert Checkpoint.objects.count() == 2


def test_after_a_rewind_the_old_token_shows_the_checkpointed_notes(service_catalog):
    start = start_workflow(PLAN)
    done = ack(start)
    checkpoint_workflow(stateToken=done["stateToken"], output={"notesMarkdown": "Benchmarked both designs; B wins."})
    # The chat is rewound: everything is gone but the first stateToken.
    rewound = continue_workflow(stateToken=start["stateToken"])
    downstream = [e["notesMarkdown"] for e in rewound["downstreamRecap"]["entries"]]
    assert "Benchmarked both designs; B wins." in downstream


def test_a_checkpoint_needs_something_to_record_and_valid_artifacts(service_catalog):
    start = start_workflow(PLAN)
    assert error_code(lambda: checkpoint_workflow(stateToken=start["stateToken"], output={})) == "INVALID_INPUT"
    bad = {"notesMarkdown": "x", "artifacts": [{"kind": "mr_review.changed_files", "changedFiles": [{"path": "a"}]}]}
    with pytest.raises(WorkRailError) as caught:
        checkpoint_workflow(stateToken=start["stateToken"], output=bad)
    assert caught.value.code.value == "ARTIFACT_INVALID"
    issue = caught.value.details["issues"][0]
    assert issue["pointer"] == "/output/artifacts/0/changedFiles/0"
    assert "mr_review.changed_files" in issue["message"]
    unknown = {"notesMarkdown": "x", "artifacts": [{"kind": "made.up"}]}
    assert error_code(lambda: checkpoint_workflow(stateToken=start["stateToken"], output=unknown)) == "ARTIFACT_INVALID"
    assert not Event.objects.filter(kind=EventKind.CHECKPOINT_RECORDED).exists()
    assert error_code(lambda: checkpoint_workflow(output={"notesMarkdown": "x"})) == "INVALID_INPUT"


def test_checkpoints_can_be_turned_off(service_catalog, settings):
    settings.WORKRAIL_ENABLE_CHECKPOINT = False
    start = start_workflow(PLAN)
    assert error_code(lambda: checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": "x"})) == (
        "FEATURE_DISABLED"
    )


def test_checkpoint_only_sessions_need_their_flag_and_keep_notes(service_catalog, settings):
    assert error_code(lambda: start_session(title="Spike")) == "FEATURE_DISABLED"
    settings.WORKRAIL_ENABLE_START_SESSION = True
    session = start_session(title="Caching spike", sessionKey="cache-spike", tags=["perf"])
    assert session["sessionToken"].startswith("ss1_")
    assert session["nextCall"]["tool"] == "checkpoint_workflow"
    saved = checkpoint_workflow(sessionToken=session["sessionToken"], output={"notesMarkdown": "LRU beats TTL."})
    assert saved["checkpoint"]["checkpointCount"] == 1
    assert canonical(
        checkpoint_workflow(sessionToken=session["sessionToken"], output={"notesMarkdown": "LRU beats TTL."})
    ) == canonical(saved)
    joined = start_session(sessionKey="cache-spike")
    assert joined["joined"] is True
    assert joined["sessionToken"] == session["sessionToken"]
    assert not Node.objects.exists()
    state = start_workflow(PLAN, {"sessionKey": "workflow-key"})
    assert state["session"]["sessionKey"] == "workflow-key"
    assert error_code(lambda: start_session(sessionKey="workflow-key")) == "INVALID_INPUT"


def test_a_runaway_loop_is_rate_limited_as_data(service_catalog, settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 3
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 6
    start = start_workflow(PLAN)
    for index in range(3):
        checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": f"loop {index}"})
    with pytest.raises(WorkRailError) as caught:
        checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": "loop 3"})
    assert caught.value.code.value == "RATE_LIMITED"
    assert caught.value.retryable is True
    assert 9000 <= caught.value.details["retryAfterMs"] <= 10000
    # Replays write nothing, so they are never limited.
    assert checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": "loop 0"})["kind"] == (
        "checkpoint"
    )
