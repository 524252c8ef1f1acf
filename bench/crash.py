"""SIGKILL `manage.py mcp` many times during advances, checkpoints and rewinds, then check the store.

The long form of tests/e2e/test_crash_durability.py (the harness is harness/crash.py): a
raw JSON-RPC client drives a long while-loop workflow, a killer SIGKILLs the server at random moments
(mostly mid-request, 0-15 ms after the request is written), a new server goes on from the last answer
received. Then: integrity check, every answer received rehydrates and replays byte-identical, the
event log is gap-free, projections rebuild equal, the run goes on. A benchmark: it asserts nothing,
it prints figures and PASS/FAIL per check (the exit status is 1 when a check fails).

    .venv/bin/python bench/crash.py [--kills 200] [--seed 1] [--calls 0-6] [--keep]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import summary
from harness.crash import CrashCampaign


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--calls", default="0-6", help="calls made between two kills, a range (default 0-6)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for one answer")
    parser.add_argument("--keep", action="store_true", help="keep the store and the server logs")
    args = parser.parse_args()
    low, _, high = args.calls.partition("-")
    calls = (int(low), int(high or low))

    workdir = Path(tempfile.mkdtemp(prefix="workrail-crash-"))
    started = time.perf_counter()
    campaign = CrashCampaign(workdir, args.seed, calls, args.timeout)
    try:
        campaign.run_kills(args.kills)
        figures = campaign.check_store()
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    total = time.perf_counter() - started

    print(f"seed {args.seed}, {calls[0]}-{calls[1]} calls between kills")
    per_kill = figures.kill_phase_seconds / max(figures.kills, 1)
    print(f"kills: {figures.kills} in {figures.kill_phase_seconds:.1f} s ({per_kill:.2f} s per kill)")
    for moment, count in sorted(figures.kills_by_moment.items()):
        print(f"  {moment}: {count}")
    print("killed requests:")
    for outcome, count in sorted(figures.in_flight.items()):
        print(f"  {outcome}: {count}")
    print(
        f"requests sent again after a kill: {figures.resent_replayed} had committed (replayed, wrote nothing), "
        f"{figures.resent_advanced} done now"
    )
    salvaged = sum(count for outcome, count in figures.in_flight.items() if outcome.endswith("before the kill"))
    print(
        f"answers received: {len(campaign.answers)} ({figures.requests} calls answered, {salvaged} answers to a "
        f"killed request read from the pipe; {figures.runs_started} runs started)"
    )
    purposes: dict[str, int] = {}
    for answer in campaign.answers:
        purposes[answer.purpose] = purposes.get(answer.purpose, 0) + 1
    print("  " + ", ".join(f"{purpose} {count}" for purpose, count in sorted(purposes.items())))
    print(f"rehydrates checked: {figures.rehydrates_checked}, replays checked: {figures.replays_checked}")
    if figures.startup_seconds:
        print(summary("restart to first tool answer (spawned during the kill before)", figures.startup_seconds))
    if figures.call_seconds:
        print(summary("tool call (not the first of a server)", figures.call_seconds))
    print("checks:")
    for name, (ok, detail) in figures.checks.items():
        print(f"  {'PASS' if ok else 'FAIL'} {name} ({figures.check_seconds[name]:.2f} s): {detail}")
    print(f"total {total:.1f} s" + (f"; store kept in {workdir}" if args.keep else ""))
    return 0 if figures.ok else 1


if __name__ == "__main__":
    sys.exit(main())
