"""Shared helpers for the benchmarks (not tests: they print figures, they assert nothing).

The scripts run as files (`.venv/bin/python bench/NAME.py`): the repository root goes on sys.path
here, so the project's packages and harness/ (what the end-to-end tests drive WorkRail with too)
import. Nothing here or in the scripts imports tests/."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "corpus" / "workrail" / "workflows"

from harness.processes import server_env as clean_env  # noqa: E402  (after the root is on sys.path)

__all__ = ["CORPUS", "REPO", "clean_env", "python", "summary", "throughput", "timed"]


def nearest(ordered: list[float], fraction: float) -> float:
    """The value at `fraction` of the way through `ordered` (sorted), to the nearest rank."""
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def summary(label: str, seconds: list[float]) -> str:
    ordered = sorted(seconds)
    median, p95 = statistics.median(ordered), nearest(ordered, 0.95)
    return f"{label}: median {ms(median)}, p95 {ms(p95)}, min {ms(ordered[0])}, n={len(ordered)}"


def throughput(label: str, seconds: list[float]) -> str:
    """Calls per second back to back (the client waits for each answer), with p50 and p99."""
    ordered = sorted(seconds)
    rate, median, p99 = len(seconds) / sum(seconds), statistics.median(ordered), nearest(ordered, 0.99)
    return f"{label}: {rate:.0f}/s, p50 {ms(median)}, p99 {ms(p99)}, n={len(seconds)}"


def timed(
    work: Callable[[], Any], repeat: int, *, warm: bool = False, clock: Callable[[], float] = time.perf_counter
) -> tuple[list[float], Any]:
    """`work` run `repeat` times: the seconds each took by `clock` (wall time unless told), and the last
    result. `warm` runs it once first, unmeasured (template compilation, caches, fonts)."""
    result = work() if warm else None
    seconds = []
    for _ in range(repeat):
        started = clock()
        result = work()
        seconds.append(clock() - started)
    return seconds, result


def python() -> str:
    return sys.executable
