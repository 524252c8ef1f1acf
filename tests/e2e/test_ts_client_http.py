"""End to end with the official TypeScript MCP client over streamable HTTP (`StreamableHTTPClientTransport`
with a bearer token) on a `manage.py mcp --http` subprocess: the SDK validates every tool definition and
every structuredContent against the tool's outputSchema, as over stdio (tests/e2e/test_ts_client.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.http_server import HttpServer, create_token, revoke_token
from harness.processes import server_env
from harness.stores import SharedStore, shared_store
from tests.e2e.ts_client import TsClient, TsClientError, ts_http_client
from tests.support.client_calls import DEFAULT_TOOLS

BUG = "wr.evidence_first_bug_fix"
INVALID_PARAMS = -32602


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[Path, HttpServer, dict[str, str], SharedStore]]:
    workdir = tmp_path_factory.mktemp("ts-http")
    with shared_store(workdir / "home") as store:
        env = server_env(store.home, **store.env)
        tokens = {
            "dana": create_token(env, workdir, "dana-laptop", owner="dana"),
            "gone": create_token(env, workdir, "gone"),
        }
        revoke_token(env, workdir, "gone")
        server = HttpServer(env, workdir, workdir / "server.log")
        try:
            yield workdir, server, tokens, store
        finally:
            server.close()


@pytest.fixture(scope="module")
def client(served) -> Iterator[TsClient]:
    workdir, server, tokens, _ = served
    with ts_http_client(workdir, server.url, tokens["dana"]) as connected:
        yield connected


def accepted(client: TsClient, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = client.call_tool(name, arguments)
    assert result.get("isError") is not True, result["content"][0]["text"]
    data: dict[str, Any] = result["structuredContent"]
    return data


def test_it_accepts_the_tool_list(client):
    assert {tool["name"] for tool in client.tools} == DEFAULT_TOOLS
    assert client.server_version["name"] == "workrail"
    assert client.capabilities["resources"]["subscribe"] is True  # one worker keeps sessions


def test_it_runs_steps_of_a_workflow_as_its_owner(client, served):
    *_, store = served
    start = accepted(client, "start_workflow", {"workflowId": BUG})
    arguments = {
        "stateToken": start["stateToken"],
        "ackToken": start["ackToken"],
        "output": {"notesMarkdown": "Triaged: checkout returns 502 since v2.3."},
    }
    moved = accepted(client, "continue_workflow", arguments)
    assert moved["kind"] == "step" and moved["progress"]["completedSteps"] == 1
    blocked = accepted(client, "continue_workflow", {"stateToken": moved["stateToken"], "ackToken": moved["ackToken"]})
    assert blocked["kind"] == "blocked"  # notes are required: the answer the agent reads, validated by the SDK
    session_id = start["session"]["sessionId"]
    rows = store.rows(
        "SELECT DISTINCT e.actor, e.door FROM runs_event e JOIN runs_session s ON s.id = e.session_id "
        f"WHERE s.public_id = '{session_id}'"
    )
    assert rows == [("dana", "http")]


def test_it_accepts_error_answers(client):
    result = client.call_tool("start_workflow", {"workflowId": "nope.nothing"})
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "WORKFLOW_NOT_FOUND"


def test_it_reads_resources_and_prompts(client):
    result = client.call("readResource", {"uri": f"workrail://workflows/{BUG}"})
    assert result["contents"][0]["mimeType"] == "application/json"
    prompts = {prompt["name"] for prompt in client.call("listPrompts")["prompts"]}
    assert BUG in prompts
    with pytest.raises(TsClientError) as raised:
        client.call("readResource", {"uri": "workrail://runs/run_0000000000000000"})
    assert raised.value.code == INVALID_PARAMS
    assert raised.value.data["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("gone", "The API token is not valid: it was revoked."),
        ("garbage", "The API token is not valid: it was revoked, mistyped, or belongs to another WorkRail store."),
    ],
)
def test_it_cannot_connect_without_a_live_token_and_shows_why(served, token, message):
    """The SDK refuses to connect and passes the 401's body on: the agent's user reads what to do."""
    workdir, server, tokens, _ = served
    with pytest.raises(TsClientError) as raised, ts_http_client(workdir, server.url, tokens.get(token, "garbage")):
        pass
    assert '"code":"UNAUTHENTICATED"' in raised.value.message
    assert message in raised.value.message
