"""End to end with the official TypeScript MCP client (@modelcontextprotocol/sdk), which checks more than
the Python one: it validates every tool definition, and the structuredContent of every tool result
(errors included) against the tool's outputSchema, refusing a mismatch with McpError -32602."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.ts_client import TsClient, TsClientError, ts_client
from tests.support.client_calls import DEFAULT_TOOLS

BUG = "wr.evidence_first_bug_fix"
SESSIONS_ON = {"WORKRAIL_ENABLE_START_SESSION": "1", "WORKRAIL_ENABLE_RESUME_SESSION": "1"}
NOTES = "Triaged: checkout returns 502 on every retry since v2.3; severity high (payments blocked)."
INVALID_PARAMS = -32602


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Iterator[TsClient]:
    """One server with the default flags (start_session off, resume_session on) for the whole module."""
    with ts_client(tmp_path_factory.mktemp("ts-default")) as connected:
        yield connected


@pytest.fixture(scope="module")
def sessions_client(tmp_path_factory) -> Iterator[TsClient]:
    """One server with start_session and resume_session on."""
    with ts_client(tmp_path_factory.mktemp("ts-sessions"), **SESSIONS_ON) as connected:
        yield connected


def accepted(client: TsClient, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A successful tool answer, after the TS client validated it against the tool's outputSchema."""
    result = client.call_tool(name, arguments)
    assert result.get("isError") is not True, result["content"][0]["text"]
    data: dict[str, Any] = result["structuredContent"]
    return data


def refused(client: TsClient, name: str, arguments: dict[str, Any], code: str) -> dict[str, Any]:
    """An error answer the TS client accepts (no exception) and an agent can read: code in data and text."""
    result = client.call_tool(name, arguments)
    assert result["isError"] is True
    error: dict[str, Any] = result["structuredContent"]["error"]
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and error["message"]
    assert isinstance(error["retryable"], bool)
    assert isinstance(error["suggestion"], str) and error["suggestion"]
    assert code in result["content"][0]["text"]
    return error


def started(client: TsClient, **context: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {"workflowId": BUG}
    if context:
        arguments["context"] = context
    return accepted(client, "start_workflow", arguments)


def read_json(client: TsClient, uri: str) -> Any:
    result = client.call("readResource", {"uri": uri})
    [contents] = result["contents"]
    assert contents["uri"] == uri
    assert contents["mimeType"] == "application/json"
    return json.loads(contents["text"])


# tools/list


def test_it_accepts_the_tool_list_and_names_the_default_tools(client):
    tools = {tool["name"]: tool for tool in client.call("listTools")["tools"]}
    assert set(tools) == DEFAULT_TOOLS
    assert {tool["name"] for tool in client.tools} == DEFAULT_TOOLS  # the list the proxy cached on connect
    for tool in tools.values():
        assert tool["inputSchema"]["type"] == "object"
        assert tool["outputSchema"]["type"] == "object"
    assert client.server_version["name"] == "workrail"


def test_it_accepts_the_tool_list_with_the_session_tools_on(sessions_client):
    tools = {tool["name"]: tool for tool in sessions_client.call("listTools")["tools"]}
    assert set(tools) == DEFAULT_TOOLS | {"start_session"}
    assert all(tool["outputSchema"]["type"] == "object" for tool in tools.values())


# Success answers


def test_it_accepts_list_workflows(client):
    data = accepted(client, "list_workflows", {"namespace": "wr"})
    assert BUG in {workflow["id"] for workflow in data["workflows"]}
    assert data["count"] == len(data["workflows"])


@pytest.mark.parametrize("mode", ["metadata", "preview"])
def test_it_accepts_inspect_workflow(client, mode):
    data = accepted(client, "inspect_workflow", {"workflowId": BUG, "mode": mode})
    assert data["mode"] == mode
    assert data["workflow"]["id"] == BUG
    assert data["steps"][0]["id"] == "triage-report"
    assert ("prompt" in data["steps"][0]) is (mode == "preview")


def test_it_accepts_start_workflow(client):
    data = started(client)
    assert data["kind"] == "step"
    assert data["pending"]["stepId"] == "triage-report"
    assert data["nextCall"]["tool"] == "continue_workflow"
    assert data["nextCall"]["arguments"]["ackToken"] == data["ackToken"]


def test_it_accepts_continue_workflow_with_the_pair_from_next_call(client):
    start = started(client)
    arguments = copy.deepcopy(start["nextCall"]["arguments"])
    arguments["output"]["notesMarkdown"] = NOTES  # an agent writes real notes over the placeholder
    arguments.pop("context", None)  # and leaves out the context values it does not know yet
    data = accepted(client, "continue_workflow", arguments)
    assert data["kind"] == "step"
    assert data["pending"]["stepId"] != "triage-report"
    assert data["progress"]["completedSteps"] == 1
    assert data["stateToken"] != start["stateToken"]


def test_it_accepts_a_rehydration(client):
    start = started(client)
    data = accepted(client, "continue_workflow", {"stateToken": start["stateToken"]})
    assert data["rehydrated"] is True
    assert data["pending"]["stepId"] == "triage-report"
    assert data["ackToken"]


def test_it_accepts_checkpoint_workflow(client):
    start = started(client)
    data = accepted(
        client,
        "checkpoint_workflow",
        {"stateToken": start["stateToken"], "output": {"notesMarkdown": "Bisected to the retry middleware."}},
    )
    assert data["kind"] == "checkpoint"
    assert data["stateToken"]


def test_it_accepts_start_session_and_resume_session(sessions_client):
    session = accepted(sessions_client, "start_session", {"title": "Checkout 502", "sessionKey": "checkout-502"})
    assert session["kind"] == "session"
    assert session["sessionToken"]
    kept = accepted(
        sessions_client,
        "checkpoint_workflow",
        {"sessionToken": session["sessionToken"], "output": {"notesMarkdown": "The proxy drops Idempotency-Key."}},
    )
    assert kept["kind"] == "session"

    start = started(sessions_client, ticketId="PAY-881")
    found = accepted(sessions_client, "resume_session", {"query": "PAY-881"})
    assert found["candidates"]
    assert found["candidates"][0]["sessionId"] == start["session"]["sessionId"]


# Error answers: data the agent reads, never an exception in the client


def test_it_accepts_inspect_workflow_of_an_unknown_workflow(client):
    refused(client, "inspect_workflow", {"workflowId": "nope.nothing"}, "WORKFLOW_NOT_FOUND")


def test_it_accepts_start_workflow_of_an_unknown_workflow(client):
    refused(client, "start_workflow", {"workflowId": "nope.nothing"}, "WORKFLOW_NOT_FOUND")


def test_it_accepts_continue_workflow_with_a_malformed_token(client):
    refused(client, "continue_workflow", {"stateToken": "not-a-token"}, "TOKEN_MALFORMED")


def test_it_accepts_checkpoint_workflow_with_a_bad_token(client):
    refused(
        client,
        "checkpoint_workflow",
        {"stateToken": "not-a-token", "output": {"notesMarkdown": "Lost."}},
        "TOKEN_MALFORMED",
    )


def test_it_accepts_a_disabled_tool_refusal(client):
    refused(client, "start_session", {}, "FEATURE_DISABLED")


def test_it_accepts_an_unknown_tool_refusal(client):
    error = refused(client, "no_such_tool", {}, "INVALID_INPUT")
    assert "no_such_tool" in error["message"]


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("inspect_workflow", {"workflowId": BUG, "mode": 3}),
        ("start_workflow", {"workflowId": 42}),
        ("continue_workflow", {"stateToken": ["st1_x"]}),
        ("list_workflows", {"namespace": 7}),
    ],
)
def test_it_accepts_wrong_argument_types(client, name, arguments):
    refused(client, name, arguments, "INVALID_INPUT")


# A blocked answer


def test_it_accepts_a_blocked_answer(client):
    start = started(client)
    assert start["pending"]["notesRequired"] is True
    data = accepted(client, "continue_workflow", {"stateToken": start["stateToken"], "ackToken": start["ackToken"]})
    assert data["kind"] == "blocked"
    assert data["blocked"]["issues"]
    assert data["ackToken"] and data["ackToken"] != start["ackToken"]
    assert data["pending"]["stepId"] == "triage-report"


# Resources


def test_it_accepts_the_resource_lists(client):
    resources = client.call("listResources")["resources"]
    assert [(r["uri"], r["mimeType"]) for r in resources] == [("workrail://workflows", "application/json")]
    templates = client.call("listResourceTemplates")["resourceTemplates"]
    assert {t["uriTemplate"] for t in templates} == {
        "workrail://workflows/{workflowId}",
        "workrail://runs/{runId}",
        "workrail://runs/{runId}/notes{?stateToken,cursor}",
        "workrail://sessions/{sessionId}",
        "workrail://sessions/{sessionId}/artifacts",
    }


def test_it_reads_the_workflow_resources(client):
    catalog = read_json(client, "workrail://workflows")  # the overview, as list_workflows without filters
    assert "investigation" in {tag["id"] for tag in catalog["overview"]["tags"]}
    details = read_json(client, f"workrail://workflows/{BUG}")
    assert details["workflow"]["id"] == BUG


def test_it_reads_a_run_resource(client):
    run_id = started(client)["session"]["runId"]
    run = read_json(client, f"workrail://runs/{run_id}")
    assert run["runId"] == run_id
    assert run["status"] == "in_progress"
    assert run["tip"]["pendingStepId"] == "triage-report"
    [notes] = client.call("readResource", {"uri": f"workrail://runs/{run_id}/notes?cursor=1"})["contents"]
    assert notes["mimeType"] == "text/markdown"
    assert notes["text"].startswith(f"# Notes of run {run_id}: nothing recorded yet")


def heard_updates(client: TsClient, uri: str) -> list[str]:
    """The notifications/resources/updated the TS client received, once one for `uri` is among them
    (asked every 0.1 s; a hang guard of 30 s, not a timing assertion)."""
    heard: list[str] = []
    deadline = time.monotonic() + 30
    while uri not in heard and time.monotonic() < deadline:
        time.sleep(0.1)
        heard += client.call("resourceUpdates")
    return heard


def test_it_subscribes_to_a_run_and_hears_it_change(client):
    assert client.capabilities["resources"]["subscribe"] is True
    answer = started(client)
    uri = f"workrail://runs/{answer['session']['runId']}"
    assert client.call("subscribeResource", {"uri": uri}) == {}
    output = {"notesMarkdown": "Seen."}
    arguments = {"stateToken": answer["stateToken"], "ackToken": answer["ackToken"], "output": output}
    accepted(client, "continue_workflow", arguments)
    assert uri in heard_updates(client, uri)
    assert client.call("unsubscribeResource", {"uri": uri}) == {}

    with pytest.raises(TsClientError) as raised:
        client.call("subscribeResource", {"uri": "workrail://workflows"})
    assert raised.value.code == INVALID_PARAMS
    assert raised.value.data["error"]["code"] == "INVALID_INPUT"


def test_it_answers_an_unknown_run_with_an_mcp_error(client):
    uri = "workrail://runs/run_0000000000000000"
    with pytest.raises(TsClientError) as raised:
        client.call("readResource", {"uri": uri})
    assert raised.value.code == INVALID_PARAMS
    assert raised.value.data["uri"] == uri
    assert raised.value.data["error"]["code"] == "NOT_FOUND"
    assert "run_0000000000000000" in raised.value.message


def test_it_offers_each_workflow_as_a_prompt_that_starts_it(client):
    prompts = {prompt["name"]: prompt for prompt in client.call("listPrompts")["prompts"]}
    assert BUG in prompts and "wr.routine-focused_plan" not in prompts  # routines run inside workflows
    assert "task" in {argument["name"] for argument in prompts[BUG]["arguments"]}
    got = client.call("getPrompt", {"name": BUG, "arguments": {"task": "Login fails after the upgrade"}})
    text = got["messages"][0]["content"]["text"]
    assert '"workflowId": "wr.evidence_first_bug_fix"' in text and "Login fails after the upgrade" in text
    with pytest.raises(TsClientError) as raised:
        client.call("getPrompt", {"name": "team.nothing"})
    assert raised.value.code == INVALID_PARAMS
    assert raised.value.data["error"]["code"] == "WORKFLOW_NOT_FOUND"
