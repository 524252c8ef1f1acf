"""Resident memory of `manage.py mcp` after 50 tool calls: VmRSS and VmHWM from /proc, per server.

Run: .venv/bin/python bench/memory.py [--servers 5] [--compare OTHER_CHECKOUT]
Each server is a fresh `manage.py mcp` on a fresh store, driven over stdio by a raw JSON-RPC client
(harness/stdio.py, no SDK client in the way), the way an agent works: tools/list, list_workflows,
inspect_workflow on every bundled workflow, then runs started, advanced step after step with notes,
rehydrated and checkpointed, 50 tool calls in all. After the 50th answer, VmRSS (what it holds now)
and VmHWM (its peak) are read from /proc/PID/status. `--compare` measures another checkout's
`manage.py mcp` (an older commit, say) in the same interleaved rounds. Each server's store is
migrated before it starts, as every start but an agent's first finds it; `--new-store` measures that
first start, which applies every migration in the server's own process.

The TypeScript original cannot be installed here, so its figure is the one quoted in issue 21
(117 MB after 50 calls); the ratio printed is ours over that figure. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for bench._common
from bench._common import clean_env
from harness.processes import manage_command, run_captured
from harness.stdio import StdioServer

CALLS = 50
ORIGINAL_RSS_MB = 117.0
"""The TypeScript original's RSS after 50 calls, as quoted in issue 21 (it is not installable here)."""
BUNDLED = [
    "wr.evidence_first_bug_fix",
    "wr.code_review",
    "wr.change_in_slices",
    "wr.risk_scaled_mr_review",
    "wr.routine-focused_plan",
    "wr.workflow_authoring",
]
NO_RATE_LIMIT = {"WORKRAIL_RATE_LIMIT_BURST": "100000", "WORKRAIL_RATE_LIMIT_PER_MINUTE": "1000000"}


def loop_workflow() -> dict[str, Any]:
    """A run that can be advanced as long as the bench likes (a while loop of two steps)."""
    body = [
        {"id": "work", "title": "Work", "prompt": "Do iteration {{currentIteration}}.", "notesOptional": True},
        {"id": "check", "title": "Check", "prompt": "Check iteration {{currentIteration}}.", "notesOptional": True},
    ]
    loop = {"type": "while", "condition": {"var": "keepGoing", "not_equals": False}, "maxIterations": 1000}
    return {
        "id": "bench.memory",
        "name": "Memory",
        "description": "A loop to advance for as long as the benchmark needs.",
        "version": "1.0.0",
        "steps": [
            {"id": "begin", "title": "Begin", "prompt": "Begin.", "notesOptional": True},
            {"id": "main-loop", "type": "loop", "title": "Loop", "loop": loop, "body": body},
        ],
    }


def agent_calls(server: StdioServer) -> Iterator[str]:
    """Tool calls an agent would make, endlessly; yields each tool's name once it is answered."""
    server.request("tools/list", {})
    server.call("list_workflows", {})
    yield "list_workflows"
    for workflow in BUNDLED:
        server.call("inspect_workflow", {"workflowId": workflow, "mode": "preview"})
        yield "inspect_workflow"
    for run in itertools.count():
        answer = server.call("start_workflow", {"workflowId": "bench.memory"})["structuredContent"]
        yield "start_workflow"
        for step in range(10):
            output = {"notesMarkdown": f"Run {run}, step {step}: checked the numbers, **all fine**.\n\n- one\n- two"}
            arguments = {"stateToken": answer["stateToken"], "ackToken": answer["ackToken"], "output": output}
            answer = server.call("continue_workflow", arguments)["structuredContent"]
            yield "continue_workflow"
        server.call("continue_workflow", {"stateToken": answer["stateToken"]})  # rehydrate
        yield "continue_workflow"
        output = {"notesMarkdown": f"Run {run}: halfway, nothing found yet."}
        server.call("checkpoint_workflow", {"stateToken": answer["stateToken"], "output": output})
        yield "checkpoint_workflow"
        server.call("list_workflows", {})
        yield "list_workflows"


def status_mb(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of `pid`, in MB (10^6 bytes, as the original's figure is quoted)."""
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in {"VmRSS", "VmHWM"}:
            figures[key] = int(value.split()[0]) * 1024 / 1e6
    return figures


def measure(command: list[str], work: Path, *, new_store: bool) -> dict[str, float]:
    workflows = work / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "memory.json").write_text(json.dumps(loop_workflow()))
    env = clean_env(work / "home", WORKRAIL_WORKFLOW_PATHS=str(workflows), **NO_RATE_LIMIT)
    if not new_store:  # an agent's usual start: its store exists (the first server of all migrated it)
        manage = [*command[:-1], "migrate", "--noinput"]
        done = run_captured(manage, env=env, cwd=work, timeout=300)
        if done.returncode != 0:
            raise SystemExit(f"migrate failed: {done.stderr}")
    server = StdioServer(env, work, work / "server.log", timeout=60, command=command)
    try:
        server.initialize()
        calls = agent_calls(server)
        for _ in range(CALLS):
            next(calls)
        time.sleep(1.5)  # the timings writer flushes once a second: measure the process at rest
        return status_mb(server.process.pid)
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", type=int, default=5, help="fresh servers measured per command")
    parser.add_argument("--compare", type=Path, help="another checkout whose manage.py mcp is measured alongside")
    parser.add_argument(
        "--new-store", action="store_true", help="each server starts on a new store (and applies every migration)"
    )
    args = parser.parse_args()
    commands = {"manage.py mcp": manage_command("mcp")}
    if args.compare:
        commands[f"{args.compare} mcp"] = [sys.executable, str(args.compare.resolve() / "manage.py"), "mcp"]
    figures: dict[str, list[dict[str, float]]] = {label: [] for label in commands}
    with tempfile.TemporaryDirectory() as tmp:
        for round_number in range(args.servers):  # interleaved, so machine noise hits all alike
            for index, (label, command) in enumerate(commands.items()):
                work = Path(tmp) / f"{round_number}-{index}"
                figures[label].append(measure(command, work, new_store=args.new_store))
    width = max(len(label) for label in commands)
    print(
        "each server on a new store (its first start applies every migration)"
        if args.new_store
        else "each server on an existing store (migrated before it starts, as after an agent's first start)"
    )
    for label, runs in figures.items():
        rss = statistics.median(run["VmRSS"] for run in runs)
        hwm = statistics.median(run["VmHWM"] for run in runs)
        spread = f"{min(run['VmRSS'] for run in runs):.1f}-{max(run['VmRSS'] for run in runs):.1f}"
        print(
            f"{label:<{width}}  after {CALLS} calls: VmRSS median {rss:.1f} MB ({spread}), VmHWM median {hwm:.1f} MB, "
            f"n={len(runs)}; over the original's quoted {ORIGINAL_RSS_MB:.0f} MB: {rss / ORIGINAL_RSS_MB:.2f}x"
        )


if __name__ == "__main__":
    main()
