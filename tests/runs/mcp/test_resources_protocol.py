"""The read-only resources through the SDK's client and the server in this process, in both protocol modes."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

MODES = ["legacy", "2026-07-28"]
PLAN = "wr.routine-focused_plan"
STEPS = ["clarify-goal", "draft-plan", "self-check-plan"]
FILES = "mr_review.changed_files"


def changed_files(path: str) -> dict[str, Any]:
    return {"kind": FILES, "changedFiles": [{"path": path, "summary": "s", "risk": "L"}]}


async def read_json(client: Client, uri: str) -> Any:
    result = await client.read_resource(uri)
    [contents] = result.contents
    assert contents.mime_type == "application/json"
    assert str(contents.uri) == uri
    return json.loads(contents.text)


@pytest.mark.parametrize("mode", MODES)
def test_an_agent_lists_and_reads_every_resource(mcp_server, mode):

    async def session() -> None:
        async with mcp_server.client(mode=mode) as client:
            resources = (await client.list_resources()).resources
            assert [(str(r.uri), r.mime_type) for r in resources] == [("workrail://workflows", "application/json")]
            templates = (await client.list_resource_templates()).resource_templates
            assert {t.uri_template: t.mime_type for t in templates} == {
                "workrail://workflows/{workflowId}": "application/json",
                "workrail://runs/{runId}": "application/json",
                "workrail://runs/{runId}/notes{?stateToken,cursor}": "text/markdown",
                "workrail://sessions/{sessionId}": "application/json",
                "workrail://sessions/{sessionId}/artifacts": "application/json",
            }

            catalog = await read_json(client, "workrail://workflows")
            listing = await client.call_tool("list_workflows", {})
            assert catalog == listing.structured_content
            details = await read_json(client, f"workrail://workflows/{PLAN}")
            inspected = await client.call_tool("inspect_workflow", {"workflowId": PLAN})
            assert details == inspected.structured_content
            assert [s["id"] for s in details["steps"]] == STEPS

            # A run, finished with notes and artifacts on its first and last steps.
            response = (await client.call_tool("start_workflow", {"workflowId": PLAN})).structured_content
            run_id, session_id = response["session"]["runId"], response["session"]["sessionId"]
            outputs = [
                {"notesMarkdown": "Goal set.", "artifacts": [changed_files("a.py")]},
                {"notesMarkdown": "Plan drafted."},
                {"notesMarkdown": "Verdict: ready.", "artifacts": [changed_files("b.py")]},
            ]
            for number, output in enumerate(outputs):
                if number == 1:  # halfway: the run as it stands
                    halfway = await read_json(client, f"workrail://runs/{run_id}")
                    assert halfway["status"] == "in_progress"
                    assert halfway["tip"]["pendingStepId"] == "draft-plan"
                    assert [e["notesMarkdown"] for e in halfway["recap"]["entries"]] == ["Goal set."]
                    assert halfway["synthesis"] is None
                arguments = {"stateToken": response["stateToken"], "ackToken": response["ackToken"], "output": output}
                response = (await client.call_tool("continue_workflow", arguments)).structured_content
            assert response["isComplete"] is True

            run = await read_json(client, f"workrail://runs/{run_id}")
            assert run["runId"] == run_id
            assert run["sessionId"] == session_id
            assert run["status"] == "complete"
            assert run["workflowId"] == PLAN
            assert run["workflowHash"] == details["workflow"]["workflowHash"]
            assert run["tip"]["isComplete"] is True
            assert run["tip"]["pendingStepId"] is None
            assert [e["stepId"] for e in run["recap"]["entries"]] == STEPS
            assert run["branchCount"] == 0
            assert run["gaps"] == []
            synthesis = run["synthesis"]  # recorded when the run completed
            assert synthesis["runId"] == run_id
            assert [s["stepId"] for s in synthesis["steps"]] == STEPS
            assert [(a["stepId"], a["final"]) for a in synthesis["artifacts"]] == [
                ("clarify-goal", False),
                ("self-check-plan", True),
            ]
            assert synthesis["notesMarkdown"].index("Goal set.") < synthesis["notesMarkdown"].index("Verdict: ready.")

            notes = (await client.read_resource(f"workrail://runs/{run_id}/notes")).contents[0].text
            assert notes.startswith(f"# Notes of run {run_id}: entries 1 to {len(STEPS)} of {len(STEPS)}\n")
            assert all(f"## [{n}] " in notes and f"(`{step}`)" in notes for n, step in enumerate(STEPS, 1))
            assert response["stateToken"] in notes and notes.rstrip().endswith("This is the last page.")
            uri = f"workrail://runs/{run_id}/notes?stateToken={response['stateToken']}&cursor=2"
            second = (await client.read_resource(uri)).contents[0].text
            assert second.splitlines()[0].endswith(f": entries 2 to {len(STEPS)} of {len(STEPS)}")

            artifacts = await read_json(client, f"workrail://sessions/{session_id}/artifacts")
            assert artifacts["count"] == 2
            assert [(a["runId"], a["stepId"], a["kind"]) for a in artifacts["artifacts"]] == [
                (run_id, "clarify-goal", FILES),
                (run_id, "self-check-plan", FILES),
            ]
            assert [a["data"]["changedFiles"][0]["path"] for a in artifacts["artifacts"]] == ["a.py", "b.py"]

            for uri, code in [
                ("workrail://workflows/nope.nothing", "WORKFLOW_NOT_FOUND"),
                ("workrail://runs/run_0000000000000000", "NOT_FOUND"),
                ("workrail://sessions/ses_0000000000000000/artifacts", "NOT_FOUND"),
            ]:
                with pytest.raises(MCPError) as raised:
                    await client.read_resource(uri)
                assert raised.value.code == INVALID_PARAMS
                assert raised.value.data["error"]["code"] == code
                assert raised.value.data["uri"] == uri

    anyio.run(session)
