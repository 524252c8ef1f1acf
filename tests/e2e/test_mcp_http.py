"""End to end: `manage.py mcp --http` as a subprocess, driven by the real `mcp` client over streamable HTTP.

One server (one worker, sessions kept) serves the module, with three tokens: alice's, bob's (made with
--owner, under another name) and a revoked one. A second server runs two workers (stateless) with a team's
host name and origin configured. The store is the suite's (harness/stores.py: PostgreSQL under
`make test-postgres`).
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from harness.http_server import HttpServer, create_token, revoke_token
from harness.processes import manage_command, run_captured, server_env
from harness.stores import SharedStore, shared_store
from tests.e2e.mcp_clients import http_client, server_parameters
from tests.support.client_calls import DEFAULT_TOOLS
from tests.support.workflow_files import workflow_doc, write_json

MODES = ["legacy", "2026-07-28"]
SAMPLE = "project.sample"
TEAM_HOST = "workrail.team.test"
TEAM_ORIGIN = "https://workrail.team.test"


@dataclass
class Team:
    workdir: Path
    env: dict[str, str]
    store: SharedStore
    server: HttpServer
    tokens: dict[str, str]  # token name -> token

    def events_of(self, session_id: str) -> list[tuple[str, str, str]]:
        """(kind, actor, door) of every event of the session `session_id`, in order."""
        rows = self.store.rows(
            "SELECT e.kind, e.actor, e.door FROM runs_event e JOIN runs_session s ON s.id = e.session_id "
            f"WHERE s.public_id = '{session_id}' ORDER BY e.seq"
        )
        return [(str(kind), str(actor), str(door)) for kind, actor, door in rows]


def prepared(workdir: Path, store: SharedStore, **extra: str) -> dict[str, str]:
    project = workdir / "project"
    write_json(project / ".workrail" / "workflows" / f"{SAMPLE}.json", workflow_doc(SAMPLE))
    return server_env(store.home, WORKRAIL_PROJECT_DIR=str(project), **store.env, **extra)


@pytest.fixture(scope="module")
def team(tmp_path_factory) -> Iterator[Team]:
    workdir = tmp_path_factory.mktemp("mcp-http")
    with shared_store(workdir / "home") as store:
        env = prepared(workdir, store)
        tokens = {
            "alice": create_token(env, workdir, "alice"),
            "bob-laptop": create_token(env, workdir, "bob-laptop", owner="bob"),
            "gone": create_token(env, workdir, "gone"),
        }
        revoke_token(env, workdir, "gone")
        server = HttpServer(env, workdir, workdir / "server.log")
        try:
            yield Team(workdir, env, store, server, tokens)
        finally:
            server.close()


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory) -> Iterator[Team]:
    workdir = tmp_path_factory.mktemp("mcp-http-workers")
    with shared_store(workdir / "home") as store:
        env = prepared(workdir, store, WORKRAIL_MCP_ALLOWED_HOSTS=TEAM_HOST, WORKRAIL_MCP_ALLOWED_ORIGINS=TEAM_ORIGIN)
        tokens = {"carol": create_token(env, workdir, "carol")}
        server = HttpServer(env, workdir, workdir / "server.log", workers=2)
        try:
            yield Team(workdir, env, store, server, tokens)
        finally:
            server.close()


async def structured(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    answer: dict[str, Any] = result.structured_content
    return answer


async def whole_run(client: Client, notes: str) -> dict[str, Any]:
    """The sample workflow from start to completion; its last answer."""
    answer = await structured(client, "start_workflow", {"workflowId": SAMPLE})
    while not answer["isComplete"]:
        arguments = {"stateToken": answer["stateToken"], "ackToken": answer["ackToken"]}
        answer = await structured(client, "continue_workflow", {**arguments, "output": {"notesMarkdown": notes}})
    return answer


def post(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], Any]:
    """A POST of an `initialize` request with `headers`: (status, headers, JSON body)."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    request = urllib.request.Request(
        url,
        data=json.dumps(initialize).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


# A whole workflow, and who did it


@pytest.mark.parametrize("mode", MODES)
def test_an_agent_runs_a_whole_workflow_over_http_and_every_event_says_who(team, mode):
    async def session() -> dict[str, Any]:
        async with http_client(team.server.url, team.tokens["alice"], mode) as client:
            assert {tool.name for tool in (await client.list_tools()).tools} == DEFAULT_TOOLS
            listed = await structured(client, "list_workflows", {"kind": "workflow"})
            assert SAMPLE in {workflow["id"] for workflow in listed["workflows"]}
            return await whole_run(client, "Done as the step asked.")

    last = anyio.run(session)
    assert last["isComplete"] is True
    events = team.events_of(last["session"]["sessionId"])
    assert events and {(actor, door) for _, actor, door in events} == {("alice", "http")}


def test_two_owners_work_at_once_and_each_event_records_its_owner(team):
    finished: dict[str, dict[str, Any]] = {}

    async def agent(token_name: str) -> None:
        async with http_client(team.server.url, team.tokens[token_name]) as client:
            finished[token_name] = await whole_run(client, f"Work of {token_name}.")

    async def both() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(2):
                group.start_soon(agent, "alice")
                group.start_soon(agent, "bob-laptop")

    anyio.run(both)
    by_owner = {"alice": "alice", "bob-laptop": "bob"}  # bob's token has another name than its owner
    for token_name, last in finished.items():
        events = team.events_of(last["session"]["sessionId"])
        assert {(actor, door) for _, actor, door in events} == {(by_owner[token_name], "http")}


# The same answers as over stdio


TOKEN = re.compile(r"\b(?:st1|ak1|ck1|sk1)_[A-Za-z0-9_-]+")
IDS = re.compile(r"\b(?:ses|run)_[0-9a-f]{16}\b")
TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z| UTC)?")


def normalized(value: Any) -> Any:
    """`value` with what differs between two runs of the same calls (tokens, ids, times) blanked."""
    if isinstance(value, dict):
        return {key: normalized(item) for key, item in value.items()}
    if isinstance(value, list):
        return [normalized(item) for item in value]
    if isinstance(value, str):
        return TIME.sub("<time>", IDS.sub("<id>", TOKEN.sub("<token>", value)))
    return value


async def the_same_calls(client: Client) -> list[Any]:
    """Tools (answers and refusals), resources and prompts: every answer as JSON."""
    tools = [tool.model_dump(mode="json") for tool in (await client.list_tools()).tools]
    seen: list[Any] = [sorted(tools, key=lambda tool: str(tool["name"]))]

    async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(tool, arguments)
        seen.append(normalized(result.model_dump(mode="json", exclude_none=True)))
        answer: dict[str, Any] = result.structured_content
        return answer

    await call("list_workflows", {})
    await call("inspect_workflow", {"workflowId": SAMPLE, "mode": "preview"})
    start = await call("start_workflow", {"workflowId": SAMPLE, "context": {"ticketId": "T-1"}})
    await call("continue_workflow", {"stateToken": start["stateToken"], "ackToken": start["ackToken"]})
    await call("continue_workflow", {"stateToken": start["stateToken"]})
    await call("start_workflow", {"workflowId": "nope.nothing"})
    await call("continue_workflow", {"stateToken": "not-a-token"})
    await call("inspect_workflow", {"workflowId": SAMPLE, "mode": 3})
    for uri in ("workrail://workflows", f"workrail://runs/{start['session']['runId']}"):
        [contents] = (await client.read_resource(uri)).contents
        seen.append(normalized({"uri": str(contents.uri), "json": json.loads(contents.text)}))
    try:
        await client.read_resource("workrail://runs/run_0000000000000000")
    except MCPError as exc:
        seen.append({"code": exc.error.code, "message": exc.error.message, "data": exc.error.data})
    seen.append((await client.list_prompts()).model_dump(mode="json"))
    seen.append((await client.get_prompt(SAMPLE, {"task": "Ship it"})).model_dump(mode="json"))
    return seen


@pytest.mark.parametrize("mode", MODES)
def test_http_gives_the_same_answers_as_stdio(team, mode):
    async def over_http() -> list[Any]:
        async with http_client(team.server.url, team.tokens["alice"], mode) as client:
            return await the_same_calls(client)

    async def over_stdio() -> list[Any]:
        async with Client(server_parameters(team.env, team.workdir), mode=mode, read_timeout_seconds=30) as client:
            return await the_same_calls(client)

    http, stdio = anyio.run(over_http), anyio.run(over_stdio)
    assert len(http) == len(stdio)
    for index, (by_http, by_stdio) in enumerate(zip(http, stdio, strict=True)):
        assert by_http == by_stdio, f"answer {index} differs"


def test_a_stdio_server_records_its_events_as_the_local_owner(team):
    async def session() -> dict[str, Any]:
        async with Client(server_parameters(team.env, team.workdir), read_timeout_seconds=30) as client:
            return await whole_run(client, "Done locally.")

    last = anyio.run(session)
    assert {(actor, door) for _, actor, door in team.events_of(last["session"]["sessionId"])} == {("", "stdio")}


# Refused requests


@pytest.mark.parametrize(
    ("authorization", "message"),
    [
        (None, "The WorkRail MCP server over HTTP needs an API token with every request."),
        ("Bearer not-a-token-of-ours", "The API token is not valid: it was revoked, mistyped, or belongs to another"),
        ("Basic YWxpY2U6c2VjcmV0", "The Authorization header is not a Bearer token."),
        ("revoked", "The API token is not valid: it was revoked."),
    ],
)
def test_a_request_without_a_live_token_is_refused_with_401_and_the_error_body(team, authorization, message):
    if authorization == "revoked":
        authorization = f"Bearer {team.tokens['gone']}"
    status, headers, body = post(team.server.url, {"Authorization": authorization} if authorization else {})
    assert status == 401
    assert headers["www-authenticate"].startswith("Bearer")
    error = body["error"]
    assert error["code"] == "UNAUTHENTICATED"
    assert error["message"].startswith(message)
    assert "manage.py create_api_token" in error["suggestion"] and "docs/http.md" in error["suggestion"]
    assert error["retryable"] is False


def test_the_python_client_cannot_connect_with_a_revoked_token(team):
    async def session() -> None:
        async with http_client(team.server.url, team.tokens["gone"]) as client:
            await client.list_tools()

    # The client reports the 401 as an MCPError of its own, raised out of its task groups.
    with pytest.RaisesGroup(MCPError, flatten_subgroups=True):
        anyio.run(session)


def test_a_request_from_a_foreign_origin_is_refused(team):
    status, _, body = post(
        team.server.url, {"Authorization": f"Bearer {team.tokens['alice']}", "Origin": "https://evil.test"}
    )
    assert status == 403
    assert body["error"]["code"] == "ORIGIN_REFUSED"
    assert "https://evil.test" in body["error"]["message"]
    assert "WORKRAIL_MCP_ALLOWED_ORIGINS" in body["error"]["suggestion"]


def test_a_request_to_a_foreign_host_name_is_refused(team):
    status, _, body = post(team.server.url, {"Authorization": f"Bearer {team.tokens['alice']}", "Host": "evil.test"})
    assert status == 421
    assert body["error"]["code"] == "ORIGIN_REFUSED"
    assert "WORKRAIL_MCP_ALLOWED_HOSTS" in body["error"]["suggestion"]


def test_a_loopback_origin_is_accepted(team):
    port = team.server.port
    status, _, _ = post(
        team.server.url, {"Authorization": f"Bearer {team.tokens['alice']}", "Origin": f"http://localhost:{port}"}
    )
    assert status == 200


# Several workers, a team's host name


@pytest.mark.parametrize("mode", MODES)
def test_two_workers_serve_whole_workflows_statelessly(two_workers, mode):
    async def session() -> tuple[Any, list[dict[str, Any]]]:
        async with http_client(two_workers.server.url, two_workers.tokens["carol"], mode) as client:
            runs = [await whole_run(client, f"Run {n}.") for n in range(3)]  # requests spread over both workers
            return client.server_capabilities, runs

    capabilities, runs = anyio.run(session)
    assert all(run["isComplete"] for run in runs)
    if capabilities is not None and capabilities.resources is not None:
        assert capabilities.resources.subscribe is False  # each request stands alone: nothing to subscribe with
    for run in runs:
        assert {(a, d) for _, a, d in two_workers.events_of(run["session"]["sessionId"])} == {("carol", "http")}


def test_the_configured_host_name_and_origin_are_accepted(two_workers):
    token = {"Authorization": f"Bearer {two_workers.tokens['carol']}"}
    assert post(two_workers.server.url, {**token, "Host": TEAM_HOST, "Origin": TEAM_ORIGIN})[0] == 200
    assert post(two_workers.server.url, {**token, "Host": "evil.test"})[0] == 421
    assert post(two_workers.server.url, {**token, "Origin": "https://evil.test"})[0] == 403


# Refusing to serve


def test_a_non_loopback_host_without_allowed_hosts_is_refused(tmp_path):
    done = run_captured(
        manage_command("mcp", "--http", "--host", "0.0.0.0", "--port", "8799"),
        env=server_env(tmp_path / "home"),
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2
    assert "Refusing to serve on --host 0.0.0.0" in done.stderr
    assert "WORKRAIL_MCP_ALLOWED_HOSTS" in done.stderr
    assert not (tmp_path / "home" / "workrail.sqlite3").exists()  # refused before touching the store


def test_http_options_without_http_are_a_usage_error(tmp_path):
    env = server_env(tmp_path / "home")
    done = run_captured(manage_command("mcp", "--port", "8799"), env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert "--host, --port and --workers go with --http" in done.stderr
