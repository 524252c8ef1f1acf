"""Spawn-to-initialize latency of `manage.py mcp`, against a bare MCP SDK server as the baseline.

Run: .venv/bin/python bench/startup.py [--runs 20] [--compare OTHER_CHECKOUT] [--installed VENV_BIN]
Each run starts a fresh process, sends `initialize` at once, and stops the clock when the answer
arrives on stdout. The baseline is the smallest MCPServer the SDK allows, so the difference is
what WorkRail itself adds (settings, our modules, server set-up). `--compare` times another
checkout's `manage.py mcp` (an older commit, say) in the same interleaved rounds. `--installed` times
the console script of an installed wheel (`VENV_BIN/workrail-py mcp`), e.g. in a venv made with
requirements/runtime.txt and the wheel, as tests/e2e/test_installed_wheel.py makes one.

It also counts the starts in which the server's start-up thread (Django, migrations, the catalog:
runs/mcp/readiness.py) began before the answer to `initialize` reached the client: those shared the
CPU (and the GIL) with the handshake. A probe with an audit hook notes the monotonic time of that
thread's first import; the clock is the system's, so the client's reading time compares with it.

The TypeScript original cannot be installed here, so its figure is the one quoted in issue 21
(790 ms, measured side by side on this machine); the ratio printed is ours over that figure.
The machine is shared: runs are interleaved (each round starts every command once), so load hits
all alike, and medians are reported.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for bench._common
from bench._common import REPO, clean_env, python, summary
from harness.processes import manage_command
from harness.stdio import initialize_message

INITIALIZE = json.dumps(initialize_message(client="bench")) + "\n"

BARE_SERVER = "from mcp.server import MCPServer\nMCPServer(name='bare').run()\n"

SETUP_PROBE = """
import sys, threading, time
sys.path.insert(0, {checkout!r})
noted = []
def note(event, args):
    if event == "import" and not noted and threading.current_thread().name == "workrail-setup":
        noted.append(time.monotonic())
        with open({log!r}, "w") as log:
            log.write(repr(noted[0]))
sys.addaudithook(note)
import manage
sys.argv = ["manage.py", "mcp"]
manage.main()
"""

ORIGINAL_COLD_START_S = 0.790
"""The TypeScript original's spawn-to-initialize, as quoted in issue 21 (it is not installable here)."""


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


def setup_before_answer(checkout: Path, env: dict[str, str], cwd: Path) -> bool:
    """Whether the start-up thread of `checkout`'s `manage.py mcp` began before its answer to
    `initialize` was read."""
    log = cwd / "setup-began"
    log.unlink(missing_ok=True)
    probe = SETUP_PROBE.format(checkout=str(checkout.resolve()), log=str(log))
    process = subprocess.Popen(
        [python(), "-c", probe],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(INITIALIZE.encode())
    process.stdin.flush()
    process.stdout.readline()
    answered = time.monotonic()
    process.stdin.close()
    process.wait(timeout=60)  # the set-up finishes before the process exits: the log is written
    return log.exists() and float(log.read_text()) < answered


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--compare", type=Path, help="another checkout whose manage.py mcp is timed alongside")
    parser.add_argument("--installed", type=Path, help="the bin/ directory of a venv with the wheel installed")
    args = parser.parse_args()
    commands = {
        "manage.py mcp": manage_command("mcp"),
        "bare MCPServer": [python(), "-c", BARE_SERVER],
    }
    if args.compare:
        commands[f"{args.compare} mcp"] = [sys.executable, str(args.compare.resolve() / "manage.py"), "mcp"]
    if args.installed:
        commands["installed workrail-py mcp"] = [str(args.installed.resolve() / "workrail-py"), "mcp"]
    times: dict[str, list[float]] = {label: [] for label in commands}
    checkouts = {"manage.py mcp": REPO} | ({f"{args.compare} mcp": args.compare} if args.compare else {})
    overlapped: dict[str, list[bool]] = {label: [] for label in checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = clean_env(work / "home")
        # One warm-up of each, so .pyc compilation and the first migration are not counted.
        for command in commands.values():
            time_to_initialize(command, env, work)
        for _ in range(args.runs):  # interleaved, so machine noise hits all alike
            for label, command in commands.items():
                times[label].append(time_to_initialize(command, env, work))
            for label, checkout in checkouts.items():
                overlapped[label].append(setup_before_answer(checkout, env, work))
    width = max(len(label) for label in commands)
    for label, seconds in times.items():
        print(summary(f"{label:<{width}}  spawn -> initialize answered", seconds))
    for label, began in overlapped.items():
        print(f"{label}: start-up thread began before the answer arrived in {sum(began)} of {len(began)} starts")
    median = {label: statistics.median(seconds) for label, seconds in times.items()}
    ours, bare = median["manage.py mcp"], median["bare MCPServer"]
    print(f"WorkRail overhead over the bare SDK: {(ours - bare) * 1000:+.1f} ms (median)")
    for label, value in median.items():
        if label != "bare MCPServer":
            ratio = value / ORIGINAL_COLD_START_S
            print(f"{label} over the original's quoted {ORIGINAL_COLD_START_S * 1000:.0f} ms: {ratio:.2f}x")


if __name__ == "__main__":
    main()
