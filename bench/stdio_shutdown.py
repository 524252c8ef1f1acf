"""How `manage.py mcp` ends: from stdin closing to the exit, and the cost of reading stdin lines.

Run: .venv/bin/python bench/stdio_shutdown.py [--runs 10] [--pings 2000]
On a store that is already migrated:
- idle: initialize, wait for its answer and for a list_workflows answer (start-up done), close stdin,
  time to the exit;
- pipelined: initialize, tools/list and one start_workflow written at once and stdin closed at once,
  time from the close to the exit (every answer included);
- throughput: `--pings` pings written at once after initialize, time until the last answer.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for bench._common
from bench._common import clean_env, summary
from harness.stdio import INITIALIZED, initialize_message, spawn_mcp

INITIALIZE = initialize_message(client="bench")


def call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def lines(*messages: dict[str, Any]) -> bytes:
    return "".join(json.dumps(message) + "\n" for message in messages).encode()


def spawn(env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    return spawn_mcp(env, cwd, subprocess.DEVNULL)


def idle_exit(env: dict[str, str], cwd: Path) -> float:
    process = spawn(env, cwd)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(lines(INITIALIZE, INITIALIZED, call(2, "list_workflows", {})))
    process.stdin.flush()
    process.stdout.readline()
    process.stdout.readline()
    started = time.perf_counter()
    process.stdin.close()
    process.wait(timeout=120)
    return time.perf_counter() - started


def pipelined_exit(env: dict[str, str], cwd: Path) -> tuple[float, int]:
    process = spawn(env, cwd)
    assert process.stdin is not None and process.stdout is not None
    start = call(3, "start_workflow", {"workflowId": "wr.evidence_first_bug_fix"})
    process.stdin.write(lines(INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, start))
    started = time.perf_counter()
    process.stdin.close()
    answers = process.stdout.read().count(b"\n")
    process.wait(timeout=120)
    return time.perf_counter() - started, answers


def ping_throughput(env: dict[str, str], cwd: Path, pings: int) -> float:
    process = spawn(env, cwd)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(lines(INITIALIZE, INITIALIZED))
    process.stdin.flush()
    process.stdout.readline()
    started = time.perf_counter()
    process.stdin.write(lines(*({"jsonrpc": "2.0", "id": 10 + n, "method": "ping"} for n in range(pings))))
    process.stdin.flush()
    for _ in range(pings):
        process.stdout.readline()
    elapsed = time.perf_counter() - started
    process.stdin.close()
    process.wait(timeout=120)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--pings", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = clean_env(work / "home")
        idle_exit(env, work)  # migrates the store once
        idle = [idle_exit(env, work) for _ in range(args.runs)]
        piped = [pipelined_exit(env, work) for _ in range(args.runs)]
        pings = [ping_throughput(env, work, args.pings) for _ in range(max(1, args.runs // 2))]
    print(summary("stdin closed, nothing in flight -> exit", idle))
    print(summary("initialize+tools/list+start piped, stdin closed -> exit", [seconds for seconds, _ in piped]))
    print(f"  answers received per pipelined run (of 3 requests): {sorted({n for _, n in piped})}")
    print(summary(f"{args.pings} pipelined pings -> last answer", pings))
    print(f"  per ping: {min(pings) / args.pings * 1e6:.1f} us (best run)")


if __name__ == "__main__":
    main()
