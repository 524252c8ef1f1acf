"""The read-only resources: the service views (runs/readmodels/resources.py) and their MCP registration."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from django.db import transaction
from django.utils import timezone
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from runs.contract.errors import ErrorCode, WorkRailError
from runs.execution import catalog
from runs.mcp.services import read_workflow, read_workflows
from runs.models import RunSynthesis
from runs.readmodels.resources import read_run, read_session_artifacts
from runs.readmodels.synthesis import synthesize
from runs.store import events
from runs.store.journal import Journal
from tests.runs.readmodels.support import (
    A_FINDING,
    FILES,
    FINDINGS,
    PLAN,
    changed_files,
    node_of,
    record_checkpoint,
)
from tests.support.mcp_calls import ack_with_notes, continue_workflow, start_workflow

pytestmark = pytest.mark.django_db


def code_of(call: Any) -> str:
    with pytest.raises(WorkRailError) as raised:
        call()
    return raised.value.code.value


def finalize(done: dict[str, Any]) -> dict[str, Any]:
    """The synthesis of a finished run, recorded as the run's completion records it (once per node)."""
    node = node_of(done)
    existing = RunSynthesis.objects.filter(node=node).first()
    if existing is not None:
        return existing.synthesis
    synthesis = synthesize(node)
    with transaction.atomic():
        journal = Journal(node.run.session, timezone.now())
        journal.record(events.RunFinalized(run_id=node.run.public_id, node_id=node.public_id, synthesis=synthesis))
        journal.flush()
    return synthesis


# --- the catalog -----------------------------------------------------------------------------------------


def test_the_workflow_resources_are_the_catalog_answers(service_catalog):
    listing = read_workflows()
    assert listing == catalog.list_workflows().dump()
    # The overview, as list_workflows answers without arguments: tags and sources, no workflow listed.
    assert listing["workflows"] == [] and "routines" in {tag["id"] for tag in listing["overview"]["tags"]}
    details = read_workflow(PLAN)
    assert details == catalog.inspect_workflow(PLAN, "metadata").dump()
    assert [s["id"] for s in details["steps"]] == ["clarify-goal", "draft-plan", "self-check-plan"]
    assert "prompt" not in details["steps"][0]


def test_an_unknown_workflow_is_not_found(service_catalog):
    assert code_of(lambda: read_workflow("nope.nothing")) == ErrorCode.WORKFLOW_NOT_FOUND


# --- runs ------------------------------------------------------------------------------------------------


def test_a_run_in_progress_shows_its_tip_and_a_recap(service_catalog):
    start = start_workflow(PLAN, {"sessionKey": "orders"})
    second = ack_with_notes(start, "Goal: paginate /orders.")
    view = read_run(start["session"]["runId"])

    assert view["runId"] == start["session"]["runId"]
    assert view["status"] == "in_progress"
    assert view["workflowId"] == PLAN
    assert view["workflowHash"] == start["workflow"]["workflowHash"]
    assert view["sessionId"] == start["session"]["sessionId"]
    assert view["sessionKey"] == "orders"
    assert view["tip"]["pendingStepId"] == second["pending"]["stepId"] == "draft-plan"
    assert view["tip"]["isComplete"] is False
    assert [e["notesMarkdown"] for e in view["recap"]["entries"]] == ["Goal: paginate /orders."]
    assert view["branchCount"] == 0
    assert view["gaps"] == []
    assert view["synthesis"] is None
    json.dumps(view)  # plain JSON


def test_a_forked_run_counts_its_branch_points_and_follows_the_newest_branch(service_catalog):
    start = start_workflow(PLAN)
    ack_with_notes(ack_with_notes(start, "First idea."), "Plan for the first idea.")
    rewound = continue_workflow(stateToken=start["stateToken"])
    ack_with_notes(rewound, "Second idea.")

    view = read_run(start["session"]["runId"])
    assert view["branchCount"] == 1
    assert view["tip"]["pendingStepId"] == "draft-plan"
    assert [e["notesMarkdown"] for e in view["recap"]["entries"]] == ["Second idea."]


def test_a_completed_run_carries_its_synthesis_and_gaps(service_catalog):
    start = start_workflow(PLAN)
    second = ack_with_notes(start, "Goal set.", [changed_files("a.py")])
    gap_node = node_of(second)
    with transaction.atomic():
        journal = Journal(gap_node.run.session, timezone.now())
        journal.record(
            events.GapRecorded(
                run_id=gap_node.run.public_id,
                node_id=gap_node.public_id,
                step_id="draft-plan",
                reason="user_confirmation",
                description="Went on without the user's confirmation.",
            )
        )
        journal.flush()
    done = ack_with_notes(ack_with_notes(second, "Plan done."), "Verdict: ready.", [A_FINDING])
    synthesis = finalize(done)

    view = read_run(start["session"]["runId"])
    assert view["status"] == "complete"
    assert view["tip"]["pendingStepId"] is None
    assert view["tip"]["isComplete"] is True
    assert [(g["stepId"], g["reason"]) for g in view["gaps"]] == [("draft-plan", "user_confirmation")]
    assert view["synthesis"] == synthesis
    assert [s["stepId"] for s in view["synthesis"]["steps"]] == ["clarify-goal", "draft-plan", "self-check-plan"]
    assert [a["kind"] for a in view["synthesis"]["artifacts"]] == [FILES, FINDINGS]


def test_an_unknown_run_is_not_found(service_catalog):
    assert code_of(lambda: read_run("run_0000000000000000")) == ErrorCode.NOT_FOUND


def test_an_unknown_runs_overlong_id_is_not_echoed_whole(service_catalog):
    with pytest.raises(WorkRailError) as raised:
        read_run("run_" + "x" * 5000)
    assert raised.value.code == ErrorCode.NOT_FOUND and len(raised.value.message) < 100


# --- session artifacts -----------------------------------------------------------------------------------


def test_session_artifacts_cover_every_run_and_checkpoint_in_time_order(service_catalog):
    first = start_workflow(PLAN, {"ticketId": "ORD-7"})
    after_first = ack_with_notes(first, "Goal set.", [changed_files("a.py")])
    resumed = record_checkpoint(after_first, "Halfway.", [changed_files("c.py")])
    ack_with_notes(resumed, "Plan done.", [A_FINDING])
    other = start_workflow(PLAN, {"ticketId": "ORD-7"})
    ack_with_notes(other, "Another run's goal.", [changed_files("z.py")])
    start_workflow(PLAN, {"ticketId": "SOMEONE-ELSE"})  # another session: not listed
    assert other["session"]["sessionId"] == first["session"]["sessionId"]

    listing = read_session_artifacts(first["session"]["sessionId"])
    assert listing["sessionId"] == first["session"]["sessionId"]
    assert listing["count"] == 4
    items = listing["artifacts"]
    assert [(i["runId"], i["stepId"], i["source"], i["kind"]) for i in items] == [
        (first["session"]["runId"], "clarify-goal", "step", FILES),
        (first["session"]["runId"], "draft-plan", "checkpoint", FILES),
        (first["session"]["runId"], "draft-plan", "step", FINDINGS),
        (other["session"]["runId"], "clarify-goal", "step", FILES),
    ]
    assert [i["data"].get("changedFiles", [{}])[0].get("path") for i in items] == ["a.py", "c.py", None, "z.py"]
    recorded = [i["recordedAt"] for i in items]
    assert recorded == sorted(recorded)


def test_an_unknown_session_is_not_found(service_catalog):
    assert code_of(lambda: read_session_artifacts("ses_0000000000000000")) == ErrorCode.NOT_FOUND


# --- the MCP registration --------------------------------------------------------------------------------


def server() -> Any:
    from runs.mcp.server import WorkRailServer

    return WorkRailServer()


def test_the_server_lists_the_resource_and_its_templates(service_catalog):
    mcp = server()

    async def listed() -> tuple[list[Any], list[Any]]:
        return await mcp.list_resources(), await mcp.list_resource_templates()

    resources, templates = anyio.run(listed)
    assert [(str(r.uri), r.mime_type) for r in resources] == [("workrail://workflows", "application/json")]
    assert [(t.uri_template, t.mime_type) for t in templates] == [
        ("workrail://workflows/{workflowId}", "application/json"),
        ("workrail://runs/{runId}", "application/json"),
        ("workrail://runs/{runId}/notes{?stateToken,cursor}", "text/markdown"),
        ("workrail://sessions/{sessionId}", "application/json"),
        ("workrail://sessions/{sessionId}/artifacts", "application/json"),
    ]
    assert all(r.description for r in [*resources, *templates])


def test_reading_through_the_server_gives_json_or_a_structured_error(service_catalog):
    mcp = server()

    async def read(uri: str) -> Any:
        return list(await mcp.read_resource(uri))

    [contents] = anyio.run(read, f"workrail://workflows/{PLAN}")
    assert contents.mime_type == "application/json"
    assert json.loads(contents.content) == catalog.inspect_workflow(PLAN, "metadata").dump()

    with pytest.raises(MCPError) as raised:
        anyio.run(read, "workrail://workflows/nope.nothing")
    assert raised.value.code == INVALID_PARAMS
    assert raised.value.data["uri"] == "workrail://workflows/nope.nothing"
    assert raised.value.data["error"]["code"] == "WORKFLOW_NOT_FOUND"


@pytest.mark.django_db(transaction=True)  # the read runs on a worker thread: it must see committed rows
def test_run_and_session_reads_run_on_a_worker_thread(service_catalog):
    start = start_workflow(PLAN)
    ack_with_notes(start, "Goal set.", [changed_files("a.py")])
    mcp = server()

    async def read(uri: str) -> Any:
        return json.loads(next(iter(await mcp.read_resource(uri))).content)

    assert anyio.run(read, f"workrail://runs/{start['session']['runId']}") == read_run(start["session"]["runId"])
    artifacts = anyio.run(read, f"workrail://sessions/{start['session']['sessionId']}/artifacts")
    assert [a["kind"] for a in artifacts["artifacts"]] == [FILES]
    with pytest.raises(MCPError) as raised:
        anyio.run(read, "workrail://runs/run_nope")
    assert raised.value.code == INVALID_PARAMS
    assert raised.value.data["error"]["code"] == "NOT_FOUND"


@pytest.mark.django_db(transaction=True)
def test_the_run_notes_template_reads_a_page_as_markdown_with_or_without_its_query(service_catalog):
    start = start_workflow(PLAN)
    moved = ack_with_notes(start, "Goal set.")
    run_id = start["session"]["runId"]
    mcp = server()

    async def read(uri: str) -> Any:
        [contents] = list(await mcp.read_resource(uri))
        assert contents.mime_type == "text/markdown"
        return contents.content

    page = anyio.run(read, f"workrail://runs/{run_id}/notes")
    assert page.startswith(f"# Notes of run {run_id}: entry 1 of 1\n")
    assert "## [1] " in page and "\nGoal set.\n" in page and page.rstrip().endswith("This is the last page.")
    assert moved["stateToken"] in page
    with pytest.raises(json.JSONDecodeError):
        json.loads(page)  # readable text, not JSON in a string
    exact = anyio.run(read, f"workrail://runs/{run_id}/notes?stateToken={moved['stateToken']}&cursor=1")
    assert exact == page
    assert anyio.run(read, f"workrail://runs/{run_id}/notes?cursor=2").startswith(
        f"# Notes of run {run_id}: no entries from position 2 on (1 in all)"
    )
    with pytest.raises(MCPError) as raised:
        anyio.run(read, f"workrail://runs/{run_id}/notes?stateToken=st1_bad")
    assert raised.value.code == INVALID_PARAMS
    assert raised.value.data["error"]["code"] == "TOKEN_MALFORMED"
