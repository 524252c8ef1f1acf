"""The idle cost of resource subscriptions: what a `manage.py mcp` server spends watching the store for
changes by other processes while nothing changes (runs/mcp/subscriptions.py).

A SQLite file store (WAL, as `make run` uses) in a temporary WORKRAIL_HOME with --sessions sessions, one
run each. The server's watcher runs on an event loop for --seconds with nothing subscribed, then with 1,
then with every run subscribed (one URI per session), at WORKRAIL_SUBSCRIPTION_POLL_MS (--interval-ms).
Figures per phase: SQL statements per second (counted on the polling connection), the time of one look
at the store, and the CPU time the process used per second of wall time. A benchmark: it asserts nothing.

    .venv/bin/python bench/subscriptions.py [--sessions 100] [--seconds 5] [--interval-ms 500]
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


class Listener:
    async def send_resource_updated(self, uri: str) -> None:
        print(f"  unexpected notification for {uri}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--interval-ms", type=int, default=500)
    args = parser.parse_args()

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


if __name__ == "__main__":
    main()
