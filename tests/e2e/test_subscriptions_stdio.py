"""End to end: subscriptions to run and session resources over stdio, with the real `mcp` client, hearing
changes made by OTHER processes: a second `manage.py mcp` on the same store, and the dashboard's HTTP API.

Waiting for a notification is bounded (a hang guard, not a timing assertion). "Not notified" is shown
by ordering: a later change to a URI that is still subscribed is heard first, and stdio delivers in order.
"""

from __future__ import annotations

import json
import re
import select
import subprocess
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, ResourceUpdatedNotification

from harness.processes import server_env
from harness.stdio import INITIALIZED, initialize_message, spawn_mcp
from tests.e2e.mcp_clients import server_parameters
from tests.support.client_calls import acknowledged, started
from tests.support.processes import run_manage, running_dashboard

PLAN = "wr.routine-focused_plan"
HEARD_WITHIN = 30.0  # seconds: a hang guard only (the server looks every WORKRAIL_SUBSCRIPTION_POLL_MS)
POLL_MS = "100"


class Heard:
    """The notifications/resources/updated a client received, in order."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self._changed = anyio.Event()

    async def handler(self, message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))
            self._changed.set()

    def count(self, uri: str) -> int:
        return Counter(self.uris)[uri]

    async def until(self, uri: str, times: int = 1) -> None:
        """Returns once `uri` was heard `times` times in all."""
        with anyio.fail_after(HEARD_WITHIN):
            while self.count(uri) < times:
                self._changed = anyio.Event()
                await self._changed.wait()


@pytest.fixture(autouse=True)
def _up_to_date_store(migrated_home: Path) -> Path:
    """Every server here works on `tmp_path / "home"`, whose store is migrated already
    (tests/plugins/store_template.py): these tests are about notifications, not a new store's first start."""
    return migrated_home


def store_env(tmp_path: Path) -> dict[str, str]:
    return server_env(tmp_path / "home", WORKRAIL_SUBSCRIPTION_POLL_MS=POLL_MS)


async def read_json(client: Client, uri: str) -> Any:
    [contents] = (await client.read_resource(uri)).contents
    return json.loads(contents.text)


async def refused(client: Client, uri: str) -> str:
    """The error code of refusing a subscription to `uri` (an invalid-params error with the error body)."""
    with pytest.raises(MCPError) as raised:
        await client.subscribe_resource(uri)
    assert raised.value.code == INVALID_PARAMS
    assert raised.value.data["uri"] == uri
    code: str = raised.value.data["error"]["code"]
    return code


def test_a_run_advanced_by_another_server_is_notified_and_unsubscribing_stops_it(tmp_path):
    env = store_env(tmp_path)
    heard = Heard()

    async def scenario() -> None:
        params = server_parameters(env, tmp_path)
        async with (
            Client(params, mode="legacy", read_timeout_seconds=60, message_handler=heard.handler) as watcher,
            Client(params, mode="legacy", read_timeout_seconds=60) as other,
        ):
            capabilities = watcher.session.initialize_result.capabilities
            assert capabilities.resources is not None and capabilities.resources.subscribe is True

            # Three runs in three sessions, started by the other server; the watcher only subscribes.
            moved = await started(other, PLAN, {"ticketId": "LIVE-1"})
            still = await started(other, PLAN, {"ticketId": "LIVE-2"})
            marker = await started(other, PLAN, {"ticketId": "LIVE-3"})
            moved_uri = f"workrail://runs/{moved['session']['runId']}"
            still_uri = f"workrail://runs/{still['session']['runId']}"
            marker_uri = f"workrail://runs/{marker['session']['runId']}"
            for uri in (moved_uri, still_uri, marker_uri):
                await watcher.subscribe_resource(uri)

            moved = await acknowledged(other, moved, "Goal set, in another process.")
            await heard.until(moved_uri)
            run = await read_json(watcher, moved_uri)
            assert run["tip"]["pendingStepId"] == "draft-plan"
            moved = await acknowledged(other, moved, "Plan drafted.")
            await heard.until(moved_uri, 2)
            assert heard.count(still_uri) == 0  # nothing changed there

            await watcher.unsubscribe_resource(moved_uri)
            await acknowledged(other, moved, "Checked, after the unsubscribe.")
            marker = await acknowledged(other, marker, "Marker moved after it.")
            await heard.until(marker_uri)
            await acknowledged(other, marker, "And again.")
            await heard.until(marker_uri, 2)
            assert heard.count(moved_uri) == 2  # nothing after the unsubscribe
            assert (await read_json(watcher, moved_uri))["status"] == "complete"

    anyio.run(scenario)


def test_a_session_changed_through_the_dashboards_api_is_notified(tmp_path):
    heard = Heard()
    token_output = run_manage(tmp_path, "create_api_token", "--name", "live").stdout
    found = re.search(r"^\s+(\S+)\s*$", token_output, re.MULTILINE)
    assert found is not None, token_output
    token = found.group(1)

    def post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/v1{path}",
            data=json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            result: dict[str, Any] = json.load(answer)
            return result

    async def scenario(port: int) -> None:
        params = server_parameters(store_env(tmp_path), tmp_path)
        async with Client(params, mode="legacy", read_timeout_seconds=60, message_handler=heard.handler) as client:
            answer = await started(client, PLAN, {"ticketId": "LIVE-API"})
            session_id, run_id = answer["session"]["sessionId"], answer["session"]["runId"]
            session_uri, run_uri = f"workrail://sessions/{session_id}", f"workrail://runs/{run_id}"
            await client.subscribe_resource(session_uri)
            await client.subscribe_resource(run_uri)
            assert (await read_json(client, session_uri))["mode"] == "guided"

            await anyio.to_thread.run_sync(post, port, f"/sessions/{session_id}/preferences", {"mode": "autopilot"})
            await heard.until(session_uri)
            await heard.until(run_uri)  # its open tip takes the new preferences
            assert (await read_json(client, session_uri))["mode"] == "autopilot"

            runs_heard, sessions_heard = heard.count(run_uri), heard.count(session_uri)
            await anyio.to_thread.run_sync(post, port, f"/runs/{run_id}/cancel", {})
            await heard.until(run_uri, runs_heard + 1)
            await heard.until(session_uri, sessions_heard + 1)
            assert (await read_json(client, run_uri))["status"] == "canceled"
            [run] = (await read_json(client, session_uri))["runs"]
            assert run["status"] == "canceled"

    with running_dashboard(tmp_path) as (_process, port):
        anyio.run(scenario, port)


def test_a_listen_stream_hears_another_server_in_the_2026_protocol(tmp_path):
    env = store_env(tmp_path)

    async def scenario() -> None:
        params = server_parameters(env, tmp_path)
        async with (
            Client(params, mode="2026-07-28", read_timeout_seconds=60) as watcher,
            Client(params, mode="legacy", read_timeout_seconds=60) as other,
        ):
            answer = await started(other, PLAN, {"ticketId": "LIVE-LISTEN"})
            uri = f"workrail://runs/{answer['session']['runId']}"
            async with watcher.listen(resource_subscriptions=[uri]) as subscription:
                assert subscription.honored.resource_subscriptions == [uri]
                await acknowledged(other, answer, "Moved by another process.")
                with anyio.fail_after(HEARD_WITHIN):
                    event = await subscription.__aiter__().__anext__()
                assert event.uri == uri

            with pytest.raises(MCPError) as raised:
                async with watcher.listen(resource_subscriptions=["workrail://workflows"]):
                    pass
            assert raised.value.data["error"]["code"] == "INVALID_INPUT"

    anyio.run(scenario)


def test_subscribing_to_what_cannot_change_or_does_not_exist_is_refused_with_a_code(tmp_path):
    async def scenario() -> None:
        async with Client(server_parameters(store_env(tmp_path), tmp_path), mode="legacy") as client:
            assert await refused(client, "workrail://workflows") == "INVALID_INPUT"
            assert await refused(client, "workrail://workflows/wr.routine-focused_plan") == "INVALID_INPUT"
            assert await refused(client, "https://example.com/runs/1") == "INVALID_INPUT"
            assert await refused(client, "workrail://runs/") == "INVALID_INPUT"
            assert await refused(client, "workrail://runs/run_0000000000000000") == "NOT_FOUND"
            assert await refused(client, "workrail://sessions/ses_0000000000000000/artifacts") == "NOT_FOUND"
            with pytest.raises(MCPError) as raised:
                await client.unsubscribe_resource("workrail://workflows")
            assert raised.value.data["error"]["code"] == "INVALID_INPUT"
            # Unsubscribing from a run never subscribed is no error: there is nothing to stop.
            await client.unsubscribe_resource("workrail://runs/run_0000000000000000")

    anyio.run(scenario)


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "pipe", "version": "0"},
}
EXIT_WITHIN = 60.0  # seconds: under the 120 s the server would wait for a request that never ends
ANSWERED_WITHIN = 90.0  # seconds, a hang guard: the first call waits for a new store's migrations


class Pipe:
    """A raw newline-delimited JSON-RPC client on one `manage.py mcp` (every line it read is kept)."""

    def __init__(self, tmp_path: Path) -> None:
        self.process = spawn_mcp(store_env(tmp_path), tmp_path, subprocess.DEVNULL)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        self.received: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write((json.dumps(message) + "\n").encode())
        self.stdin.flush()

    def until(self, found: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + ANSWERED_WITHIN
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.stdout], [], [], max(0.0, deadline - time.monotonic()))
            line = self.stdout.readline() if ready else b""
            assert line, "the server ended its output before answering"
            self.received.append(json.loads(line))
            if found(self.received[-1]):
                return self.received[-1]
        raise AssertionError("no such message from the server")

    def close_and_exit_code(self) -> int:
        self.stdin.close()
        code = self.process.wait(timeout=EXIT_WITHIN)
        self.received += [json.loads(line) for line in self.stdout.read().splitlines() if line.strip()]
        return code


@pytest.mark.parametrize("how", ["legacy", "2026-07-28, stream open", "2026-07-28, stdin closed at once"])
def test_stdin_closing_with_a_subscription_open_ends_the_server_and_answers_every_request(tmp_path, how):
    """A subscribed client that closes stdin: the watcher stops with the server, and a listen stream (a
    request that would otherwise stay open), even one read just before the end, is ended gracefully,
    its request answered, before the exit."""
    pipe = Pipe(tmp_path)
    meta = {} if how == "legacy" else {"_meta": MODERN_META}
    if how == "legacy":
        pipe.send(initialize_message())
        pipe.until(lambda message: message.get("id") == 1)
        pipe.send(INITIALIZED)
    start = {"name": "start_workflow", "arguments": {"workflowId": PLAN}, **meta}
    pipe.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": start})
    answer = pipe.until(lambda message: message.get("id") == 2)
    uri = f"workrail://runs/{answer['result']['structuredContent']['session']['runId']}"
    if how == "legacy":
        pipe.send({"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {"uri": uri}})
        assert pipe.until(lambda message: message.get("id") == 3)["result"] == {}
    else:
        listen = {"notifications": {"resourceSubscriptions": [uri]}, **meta}
        pipe.send({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen", "params": listen})
        if how == "2026-07-28, stream open":
            pipe.until(lambda message: message.get("method") == "notifications/subscriptions/acknowledged")
    assert pipe.close_and_exit_code() == 0
    [final] = [message for message in pipe.received if message.get("id") == 3]
    assert "result" in final  # answered (a listen stream: ended gracefully, not dropped)
