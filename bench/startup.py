"""Spawn-to-initialize latency of `manage.py mcp`, against a bare MCP SDK server as the baseline.

Run: .venv/bin/python bench/startup.py [--runs 10]
Each run starts a fresh process, sends `initialize` at once, and stops the clock when the answer
arrives on stdout. The baseline is the smallest MCPServer the SDK allows, so the difference is
what WorkRail itself adds (settings, our modules, server set-up).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from _common import clean_env, python, summary

from harness.processes import manage_command
from harness.stdio import initialize_message

INITIALIZE = json.dumps(initialize_message(client="bench")) + "\n"

BARE_SERVER = "from mcp.server import MCPServer\nMCPServer(name='bare').run()\n"


def time_to_initialize(command: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(INITIALIZE.encode())
    process.stdin.flush()
    answer = process.stdout.readline()
    elapsed = time.perf_counter() - started
    process.stdin.close()
    process.wait(timeout=60)
    if b'"result"' not in answer:
        raise SystemExit(f"unexpected answer: {answer!r}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = clean_env(work / "home")
        # One warm-up of each, so .pyc compilation and the first migration are not counted.
        time_to_initialize(manage_command("mcp"), env, work)
        time_to_initialize([python(), "-c", BARE_SERVER], env, work)
        ours, bare = [], []
        for _ in range(args.runs):  # interleaved, so machine noise hits both alike
            ours.append(time_to_initialize(manage_command("mcp"), env, work))
            bare.append(time_to_initialize([python(), "-c", BARE_SERVER], env, work))
    print(summary("manage.py mcp   spawn -> initialize answered", ours))
    print(summary("bare MCPServer  spawn -> initialize answered", bare))
    median_ours, median_bare = sorted(ours)[len(ours) // 2], sorted(bare)[len(bare) // 2]
    print(f"WorkRail overhead over the bare SDK: {(median_ours - median_bare) * 1000:+.1f} ms (median)")


if __name__ == "__main__":
    main()
