"""Execution latency over stdio with the real `mcp` client, and growth with history.

Run: .venv/bin/python bench/execution.py [--depth 2000]
- start_workflow, advance (continue_workflow with an ack) and rehydrate (without): median and p95;
- advance at depth ~10 against depth ~2000 on one run: the ratio of medians (no work may grow with
  history on the hot path);
- rehydrate with ~2000 ancestors: time and response size (the recap has a byte budget).
The service is also timed in-process (no protocol), which isolates the store from the transport.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import anyio
from _common import REPO, clean_env, python, summary
from mcp import Client
from mcp.client.stdio import StdioServerParameters

warnings.filterwarnings("ignore", message="ping is removed")
WINDOW = 50
# The benchmark advances one run thousands of times a minute: far past the per-run write limit.
NO_RATE_LIMIT = {"WORKRAIL_RATE_LIMIT_BURST": "100000", "WORKRAIL_RATE_LIMIT_PER_MINUTE": "1000000"}


def long_workflow() -> dict[str, Any]:
    body = [
        {"id": "work", "title": "Work", "prompt": "Do iteration {{currentIteration}}.", "notesOptional": True},
        {"id": "check", "title": "Check", "prompt": "Check iteration {{currentIteration}}.", "notesOptional": True},
    ]
    loop = {"type": "while", "condition": {"var": "keepGoing", "not_equals": False}, "maxIterations": 1000}
    return {
        "id": "bench.long_run",
        "name": "Long run",
        "description": "A loop long enough to reach depth 2,000.",
        "version": "1.0.0",
        "steps": [
            {"id": "begin", "title": "Begin", "prompt": "Begin.", "notesOptional": True},
            {"id": "main-loop", "type": "loop", "title": "Loop", "loop": loop, "body": body},
            {"id": "end", "title": "End", "prompt": "End.", "notesOptional": True},
        ],
    }


async def drive(params: StdioServerParameters, depth: int) -> dict[str, Any]:
    async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
        starts = []
        for _ in range(20):
            started = time.perf_counter()
            result = await client.call_tool("start_workflow", {"workflowId": "bench.long_run"})
            starts.append(time.perf_counter() - started)
        data = result.structured_content
        assert data is not None
        advances: list[float] = []
        rehydrates_shallow: list[float] = []
        for step in range(depth):
            if step == 10:
                for _ in range(WINDOW):
                    started = time.perf_counter()
                    await client.call_tool("continue_workflow", {"stateToken": data["stateToken"]})
                    rehydrates_shallow.append(time.perf_counter() - started)
            arguments = {
                "stateToken": data["stateToken"],
                "ackToken": data["ackToken"],
                "output": {"notesMarkdown": f"Step {step} done: checked the numbers, all fine."},
            }
            started = time.perf_counter()
            result = await client.call_tool("continue_workflow", arguments)
            advances.append(time.perf_counter() - started)
            data = result.structured_content
            assert data is not None and not result.is_error, result.content
        deep = []
        size = 0
        for _ in range(WINDOW):
            started = time.perf_counter()
            result = await client.call_tool("continue_workflow", {"stateToken": data["stateToken"]})
            deep.append(time.perf_counter() - started)
            size = len(json.dumps(result.structured_content))
        recap = result.structured_content["recap"]  # type: ignore[index]
        pings = []
        for _ in range(WINDOW):
            started = time.perf_counter()
            await client.send_ping()
            pings.append(time.perf_counter() - started)
    return {
        "starts": starts,
        "advances": advances,
        "rehydrate_shallow": rehydrates_shallow,
        "rehydrate_deep": deep,
        "deep_size": size,
        "recap": recap,
        "pings": pings,
    }


NOOP_SERVER = """
from mcp.server import MCPServer
server = MCPServer(name="noop")

@server.tool()
def noop() -> dict:
    return {"ok": True}

server.run()
"""


async def noop_calls(calls: int) -> list[float]:
    """A no-op tool on a bare SDK server: what any tool call costs here before WorkRail does anything."""
    params = StdioServerParameters(command=python(), args=["-c", NOOP_SERVER])
    async with Client(params, mode="legacy") as client:
        timings = []
        for _ in range(calls):
            started = time.perf_counter()
            await client.call_tool("noop", {})
            timings.append(time.perf_counter() - started)
        return timings


def in_process(depth: int) -> list[float]:
    """The advance service alone (no protocol, no thread hop), in this process on a fresh store."""
    import os
    import sys

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "workflows").mkdir()
        (work / "workflows" / "long.json").write_text(json.dumps(long_workflow()))
        os.environ.update(clean_env(work / "home", WORKRAIL_WORKFLOW_PATHS=str(work / "workflows"), **NO_RATE_LIMIT))
        os.environ["DJANGO_SETTINGS_MODULE"] = "workrail_site.settings"
        sys.path.insert(0, str(REPO))
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", verbosity=0)
        from runs.services.execution import continue_workflow, start_workflow

        data = start_workflow("bench.long_run")
        timings = []
        for step in range(depth):
            started = time.perf_counter()
            data = continue_workflow(
                stateToken=data["stateToken"], ackToken=data["ackToken"], output={"notesMarkdown": f"Step {step} done."}
            )
            timings.append(time.perf_counter() - started)
        return timings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "workflows").mkdir()
        (work / "workflows" / "long.json").write_text(json.dumps(long_workflow()))
        params = StdioServerParameters(
            command=python(),
            args=[str(REPO / "manage.py"), "mcp"],
            cwd=str(work),
            env=clean_env(work / "home", WORKRAIL_WORKFLOW_PATHS=str(work / "workflows"), **NO_RATE_LIMIT),
        )
        figures = anyio.run(drive, params, args.depth)
    advances = figures["advances"]
    shallow, deep = advances[10 : 10 + WINDOW], advances[-WINDOW:]
    print(summary("start_workflow", figures["starts"]))
    print(summary("advance (all depths)", advances))
    print(summary("rehydrate at depth 10", figures["rehydrate_shallow"]))
    print(summary(f"advance at depth 10-{10 + WINDOW}", shallow))
    print(summary(f"advance at depth {len(advances) - WINDOW}-{len(advances)}", deep))
    ratio = statistics.median(deep) / statistics.median(shallow)
    print(f"growth: advance median at depth ~{len(advances)} / depth ~10 = {ratio:.2f}")
    recap = figures["recap"]
    print(summary(f"rehydrate with {len(advances)} ancestors", figures["rehydrate_deep"]))
    print(
        f"  response {figures['deep_size']} bytes; recap kept {len(recap['entries'])} entries, "
        f"omitted {recap['omittedEntries']} ({recap['policy']})"
    )
    print(summary("ping (protocol floor, for reference)", figures["pings"]))
    print(summary("no-op tool on a bare SDK server (tool-call floor)", anyio.run(noop_calls, 200)))
    print(summary("advance in-process (service only, 300 steps)", in_process(300)))


if __name__ == "__main__":
    main()
