"""Shared helpers for the benchmarks (not tests: they print figures, they assert nothing)."""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "workrail" / "workflows"


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("WORKRAIL_") and k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update({"WORKRAIL_HOME": str(home), **extra})
    return env


def summary(label: str, seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{label}: median {statistics.median(ordered) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms, "
        f"min {ordered[0] * 1000:.2f} ms, n={len(ordered)}"
    )


def python() -> str:
    return sys.executable
