"""The idle cost of resource subscriptions: what a `manage.py mcp` server spends watching the store for
changes by other processes while nothing changes (runs/mcp/subscriptions.py).

A SQLite file store (WAL, as `make run` uses) in a temporary WORKRAIL_HOME with --sessions sessions, one
run each. The server's watcher runs on an event loop for --seconds with nothing subscribed, then with 1,
then with every run subscribed (one URI per session), at WORKRAIL_SUBSCRIPTION_POLL_MS (--interval-ms).
Figures per phase: SQL statements per second (counted on the polling connection), the time of one look
at the store, and the CPU time the process used per second of wall time. A benchmark: it asserts nothing.

With --memory, the cost of subscriptions held over HTTP instead: `manage.py mcp --http` (one worker) as a
subprocess, --owners owners each opening one MCP session and subscribing up to the per-owner bound with
distinct notes URIs of the longest length accepted (--subscriptions in all), the server's resident memory
before, after subscribing and after every session ended (DELETE); then the attack the bounds answer: URIs of
3.9 MB and subscriptions past the bound, refused.

    .venv/bin/python bench/subscriptions.py [--sessions 100] [--seconds 5] [--interval-ms 500]
    .venv/bin/python bench/subscriptions.py --memory [--owners 5] [--subscriptions 1000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Collection
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import clean_env, summary


class Connection:
    """Stands for the SDK's connection of one MCP session (its teardown stack)."""

    def __init__(self) -> None:
        from contextlib import AsyncExitStack

        self.exit_stack = AsyncExitStack()


class Listener:
    def __init__(self) -> None:
        self._connection = Connection()

    async def send_resource_updated(self, uri: str) -> None:
        print(f"  unexpected notification for {uri}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--interval-ms", type=int, default=500)
    parser.add_argument("--memory", action="store_true", help="the memory of subscriptions held over HTTP")
    parser.add_argument("--owners", type=int, default=5)
    parser.add_argument("--subscriptions", type=int, default=1000)
    args = parser.parse_args()
    if args.memory:
        memory(args.owners, args.subscriptions)
        return

    home = Path(tempfile.mkdtemp(prefix="workrail-bench-subscriptions-"))
    os.environ.update(clean_env(home / "home", WORKRAIL_SUBSCRIPTION_POLL_MS=str(args.interval_ms)))
    os.environ["DJANGO_SETTINGS_MODULE"] = "workrail_site.settings"
    import anyio
    import django
    from django.core.management import call_command
    from django.db import connection

    django.setup()
    call_command("migrate", verbosity=0)
    from mcp.server.subscriptions import InMemorySubscriptionBus
    from mcp_types import SubscribeRequestParams

    from runs.mcp import services, tools
    from runs.mcp.subscriptions import ResourceWatcher

    runs = [
        tools.invoke("start_workflow", {"workflowId": "wr.routine-focused_plan"})["session"]["runId"]
        for _ in range(args.sessions)
    ]
    statements: list[int] = []
    looks: list[float] = []
    real = services.session_versions

    def counted(session_pks: Collection[int]) -> dict[int, int]:
        def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            statements.append(1)
            return execute(sql, params, many, context)

        started = time.perf_counter()
        with connection.execute_wrapper(count):
            found = real(session_pks)
        looks.append(time.perf_counter() - started)
        return found

    services.session_versions = counted  # looked up by name on each poll (runs/mcp/deferred.py)
    every = f"poll every {args.interval_ms} ms, {args.seconds:.0f} s per phase"
    print(f"{args.sessions} sessions in a SQLite file store; {every}")

    async def phase(watcher: ResourceWatcher, label: str) -> None:
        statements.clear()
        looks.clear()
        cpu, wall = time.process_time(), time.perf_counter()
        await anyio.sleep(args.seconds)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        rate = len(statements) / wall
        print(f"{label}: {rate:.2f} statements/s, CPU {cpu / wall * 100:.2f}% of one core")
        if looks:
            print("  " + summary("one look at the store", looks))

    async def scenario() -> None:
        watcher = ResourceWatcher(InMemorySubscriptionBus())
        request = SimpleNamespace(session=Listener())
        async with anyio.create_task_group() as background:
            background.start_soon(watcher.run)
            await phase(watcher, "nothing subscribed")
            await watcher.subscribe(request, SubscribeRequestParams(uri=f"workrail://runs/{runs[0]}"))  # type: ignore[arg-type]
            await phase(watcher, "1 run subscribed")
            for run_id in runs[1:]:
                await watcher.subscribe(request, SubscribeRequestParams(uri=f"workrail://runs/{run_id}"))  # type: ignore[arg-type]
            await phase(watcher, f"{len(runs)} runs subscribed (one per session)")
            background.cancel_scope.cancel()

    anyio.run(scenario)
    shutil.rmtree(home, ignore_errors=True)


PROTOCOL = "2025-06-18"


def rss_mb(pid: int) -> float:
    """The resident memory of process `pid`, in MB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def memory(owners: int, subscriptions: int) -> None:
    import json

    import httpx2

    from harness.http_server import HttpServer, create_token

    workdir = Path(tempfile.mkdtemp(prefix="workrail-bench-subscriptions-http-"))
    env = clean_env(workdir / "home", WORKRAIL_PROJECT_DIR=str(workdir))
    tokens = [create_token(env, workdir, f"owner-{n}") for n in range(owners)]
    server = HttpServer(env, workdir, workdir / "server.log")
    pid = server.process.pid
    client = httpx2.Client(timeout=60)

    def post(token: str, message: dict[str, Any], session: str | None = None) -> Any:
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Mcp-Protocol-Version": PROTOCOL,
        }
        if session:
            headers["Mcp-Session-Id"] = session
        return client.post(server.url, json=message, headers=headers)

    def call(token: str, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        response = post(token, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, session)
        for line in response.text.splitlines():
            if line.startswith("data:") and '"id"' in line:
                answer: dict[str, Any] = json.loads(line[5:])
                return answer
        return {"error": {"message": f"HTTP {response.status_code}: {response.text[:200]}"}}

    try:
        sessions: list[tuple[str, str]] = []
        for token in tokens:
            hello = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
            opened = post(token, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
            session = opened.headers["mcp-session-id"]
            post(token, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
            sessions.append((token, session))
        print(f"`manage.py mcp --http`, one worker; {owners} owners, one MCP session each")
        print(f"  at rest: {rss_mb(pid):.1f} MB resident")
        per_owner = -(-subscriptions // owners)
        held = 0
        bases: list[str] = []
        for token, session in sessions:
            started = call(
                token,
                session,
                "tools/call",
                {"name": "start_workflow", "arguments": {"workflowId": "wr.routine-focused_plan"}},
            )
            run_id = started["result"]["structuredContent"]["session"]["runId"]
            base = f"workrail://runs/{run_id}/notes?cursor="
            bases.append(base)
            for n in range(min(per_owner, subscriptions - held)):
                head = f"{base}{n}&pad="
                answer = call(token, session, "resources/subscribe", {"uri": head + "x" * (1024 - len(head))})
                if "error" in answer:
                    print(f"  refused: {answer['error']['message'][:160]}")
                    break
                held += 1
        print(f"  after {held} subscriptions (URIs of 1,024 characters, each distinct): {rss_mb(pid):.1f} MB resident")
        token, session = sessions[0]
        huge = call(token, session, "resources/subscribe", {"uri": f"workrail://runs/x/notes?{'a' * 3_900_000}"})
        print(f"  a 3.9 MB URI: {huge.get('error', {}).get('message', 'accepted')[:120]}")
        past = call(token, session, "resources/subscribe", {"uri": "workrail://runs/x/notes?one-more"})
        print(f"  one past the bound: {past.get('error', {}).get('message', 'accepted')[:120]}")
        for token, session in sessions:
            client.delete(server.url, headers={"Authorization": f"Bearer {token}", "Mcp-Session-Id": session})
        time.sleep(2)
        print(f"  after every session ended: {rss_mb(pid):.1f} MB resident")
        # The subscriptions went with their sessions: the same owners subscribe to the bound again.
        token = tokens[0]
        hello = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
        session = post(token, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}).headers[
            "mcp-session-id"
        ]
        post(token, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        again = call(token, session, "resources/subscribe", {"uri": f"{bases[0]}again"})
        print(f"  a new session of the first owner subscribes again: {'refused' if 'error' in again else 'accepted'}")
    finally:
        client.close()
        server.close()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
