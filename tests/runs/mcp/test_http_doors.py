"""`manage.py mcp --http`'s doors checked for owners, in process: the app of runs/mcp/http_app.py served by
uvicorn (with the options `serve` gives it) on a thread, driven by plain HTTP requests with alice's and bob's
tokens. MCP sessions are bound to the token that opened them and bounded per owner, a revoked token's open
streams end, resources and subscriptions ask the owner check, slow headers are cut off, and every refusal is
recorded with the address the connection came from. (tests/e2e/test_mcp_http.py drives the real server.)"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn

from runs.mcp import http, http_guards, timings
from runs.mcp.http_app import build_app
from runs.mcp.http_options import HttpOptions
from runs.mcp.server import WorkRailServer
from runs.store import api_tokens
from runs.store.actors import Actor, Door, acting_as
from tests.support.mcp_calls import start_workflow

pytestmark = pytest.mark.django_db(transaction=True)
PLAN = "wr.routine-focused_plan"
PROTOCOL = "2025-06-18"


@dataclass
class Served:
    url: str
    tokens: dict[str, str]  # owner -> token
    server: uvicorn.Server
    mcp: WorkRailServer

    def post(self, who: str, message: dict[str, Any], session: str | None = None, **headers: str) -> httpx.Response:
        sent = {"Authorization": f"Bearer {self.tokens[who]}", "Accept": "application/json, text/event-stream"}
        if session is not None:
            sent["Mcp-Session-Id"] = session
        sent["Mcp-Protocol-Version"] = PROTOCOL
        return httpx.post(self.url, json=message, headers={**sent, **headers}, timeout=30)

    def open_session(self, who: str, client: str = "t") -> str:
        opened = self.post(
            who,
            request(
                "initialize",
                {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": client, "version": "1"}},
            ),
        )
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        assert self.post(who, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session).status_code == 202
        return session

    def call(self, who: str, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The JSON-RPC answer to one request on `session`."""
        answered = self.post(who, request(method, params), session)
        assert answered.status_code == 200, answered.text
        return answer_of(answered)


def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def answer_of(response: httpx.Response) -> dict[str, Any]:
    if response.headers["content-type"].startswith("application/json"):
        found: dict[str, Any] = response.json()
        return found
    for line in response.text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            message = json.loads(line[5:])
            if "id" in message:
                return message
    raise AssertionError(response.text)


@pytest.fixture
def served(service_catalog: object) -> Iterator[Served]:
    tokens = {owner: api_tokens.create(f"{owner}-laptop", owner=owner)[1] for owner in ("alice", "bob")}
    mcp = WorkRailServer()
    app = build_app(mcp, HttpOptions())
    config = uvicorn.Config(app, host="127.0.0.1", port=0, lifespan="on", **http.server_options("WARNING"))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Served(f"http://127.0.0.1:{port}/mcp", tokens, server, mcp)
    finally:
        server.should_exit = True
        thread.join(30)
        # build_app started the timings writer in this process: it must end with the test, or it writes to the
        # database during a later test that has none (pytest-django refuses, from a thread nobody waits for).
        timings.disable()


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "workrail.refusals"]


def test_an_mcp_session_is_used_only_with_the_token_that_opened_it(served):
    alice = served.open_session("alice")
    refused = [
        served.post("bob", request("tools/list", {}), alice),
        httpx.delete(served.url, headers={"Authorization": f"Bearer {served.tokens['bob']}", "Mcp-Session-Id": alice}),
    ]
    assert [response.status_code for response in refused] == [404, 404]  # as if there were no such session
    with httpx.stream(
        "GET",
        served.url,
        headers={
            "Authorization": f"Bearer {served.tokens['bob']}",
            "Mcp-Session-Id": alice,
            "Accept": "text/event-stream",
        },
        timeout=10,
    ) as stream:
        assert stream.status_code == 404
    assert "tools" in served.call("alice", alice, "tools/list", {})["result"]  # still alice's, still open


def test_another_owners_resources_cannot_be_read_or_subscribed_and_each_refusal_is_recorded(served, caplog):
    with acting_as(Actor("alice", Door.HTTP)):
        mine = start_workflow(PLAN)
    run, session_id = mine["session"]["runId"], mine["session"]["sessionId"]
    uris = [
        f"workrail://runs/{run}",
        f"workrail://runs/{run}/notes",
        f"workrail://sessions/{session_id}",
        f"workrail://sessions/{session_id}/artifacts",
    ]
    bob = served.open_session("bob")
    for uri in uris:
        for method in ("resources/read", "resources/subscribe"):
            answered = served.call("bob", bob, method, {"uri": uri})
            assert answered["error"]["data"]["error"]["code"] == "NOT_YOUR_SESSION", (method, uri)
            assert "Goal" not in json.dumps(answered)
    alice = served.open_session("alice")
    assert (
        json.loads(served.call("alice", alice, "resources/read", {"uri": uris[0]})["result"]["contents"][0]["text"])[
            "runId"
        ]
        == run
    )
    lines = refusals(caplog)
    assert len(lines) == 8
    assert all(
        line.startswith("refused NOT_YOUR_SESSION: bob (token bob-laptop) through http from 127.0.0.1")
        for line in lines
    )
    assert f"[read {uris[0]}]" in lines[0]


def test_one_owner_opens_a_bounded_number_of_sessions_and_others_still_get_in(served, monkeypatch, caplog):
    monkeypatch.setattr(http_guards, "MAX_SESSIONS_PER_OWNER", 3)
    for _ in range(3):
        served.open_session("alice")
    flooding = served.post(
        "alice",
        request(
            "initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        ),
    )
    assert flooding.status_code == 429
    assert flooding.json()["error"]["code"] == "RATE_LIMITED"
    served.open_session("bob")  # another owner is not locked out
    assert refusals(caplog) == [
        "refused RATE_LIMITED: alice (token alice-laptop) through http from 127.0.0.1: an MCP session past 3"
    ]


def test_revoking_a_token_ends_its_open_streams(served, monkeypatch, caplog):
    monkeypatch.setattr(http_guards, "REVOCATION_CHECK_S", 0.05)
    alice = served.open_session("alice")
    bob = served.open_session("bob")
    headers = {
        "Authorization": f"Bearer {served.tokens['alice']}",
        "Mcp-Session-Id": alice,
        "Accept": "text/event-stream",
    }
    with httpx.stream("GET", served.url, headers=headers, timeout=httpx.Timeout(30)) as stream:
        assert stream.status_code == 200
        api_tokens.revoke_matching("alice-laptop")
        received = b"".join(stream.iter_raw())  # returns once the server ends the stream
    assert b"resources/updated" not in received
    assert served.post("alice", request("tools/list", {}), alice).status_code == 401
    assert "tools" in served.call("bob", bob, "tools/list", {})["result"]  # bob's session goes on
    assert any("ended: its token was revoked" in line and "alice-laptop" in line for line in refusals(caplog))


def test_a_client_that_never_finishes_its_headers_is_cut_off_and_recorded(served, monkeypatch, caplog):
    monkeypatch.setattr(http, "HEADER_TIMEOUT_S", 0.3)
    host, port = httpx.URL(served.url).host, httpx.URL(served.url).port
    with socket.create_connection((host, port), timeout=10) as slow:
        slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 203.0.113.9\r\n")
        assert slow.recv(1024) == b""  # closed by the server, long before the socket's own timeout
    assert any(
        line.startswith("refused HEADERS_TOO_SLOW: a local process (token -) through http from 127.0.0.1")
        for line in refusals(caplog)
    )


def test_a_loopback_client_cannot_choose_the_address_its_refusal_is_recorded_from(served, caplog):
    caplog.set_level(logging.WARNING, "workrail.refusals")
    response = httpx.post(
        served.url,
        json=request("tools/list", {}),
        headers={"Authorization": "Bearer not-a-token", "X-Forwarded-For": "203.0.113.9"},
    )
    assert response.status_code == 401
    assert refusals(caplog) == [
        "refused UNAUTHENTICATED: a local process (token -) through http from 127.0.0.1: "
        "a request without a valid token"
    ]


def test_a_sessions_subscriptions_end_with_it(served):
    with acting_as(Actor("alice", Door.HTTP)):
        run = start_workflow(PLAN)["session"]["runId"]
    alice = served.open_session("alice")
    for uri in (f"workrail://runs/{run}", f"workrail://runs/{run}/notes?cursor=2"):
        assert served.call("alice", alice, "resources/subscribe", {"uri": uri})["result"] == {}
    assert len(served.mcp.watcher.watched()) == 2 and served.mcp.watcher.held("alice") == 2
    ended = httpx.delete(
        served.url, headers={"Authorization": f"Bearer {served.tokens['alice']}", "Mcp-Session-Id": alice}
    )
    assert ended.status_code == 200
    deadline = time.monotonic() + 10
    while served.mcp.watcher.watched():
        assert time.monotonic() < deadline, "the subscriptions outlived their session"
        time.sleep(0.02)
    assert served.mcp.watcher.held("alice") == 0


def test_the_events_a_call_makes_carry_the_clients_declared_name_as_plain_bounded_text(served):
    """The dashboard names the chat a message goes to by the client that started the run (friction26b 6):
    each event an MCP call makes is stamped with initialize's clientInfo.name, cut to one printable line."""
    from runs.models import Event

    declared = "claude-code\n<b>" + "x" * 80
    session = served.open_session("alice", client=declared)
    answer = served.call("alice", session, "tools/call", {"name": "start_workflow", "arguments": {"workflowId": PLAN}})
    assert not answer["result"].get("isError"), answer
    recorded = set(Event.objects.values_list("client_name", "door"))
    assert recorded == {(("claude-code <b>" + "x" * 80)[:64], "http")}
