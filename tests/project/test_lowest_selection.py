"""`make test-lowest` runs a named part of the suite: every path and test it names must exist, or pytest
collects nothing and the lowest versions go untested (a moved test file did that once)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def lowest_tests() -> list[str]:
    makefile = (REPO / "Makefile").read_text()
    block = makefile.split("\nLOWEST_TESTS :=", 1)[1]
    lines = []
    for line in block.splitlines():
        lines.append(line.rstrip("\\").strip())
        if not line.rstrip().endswith("\\"):
            break
    return shlex.split(" ".join(lines))


def test_every_path_the_lowest_pass_names_exists():
    named = lowest_tests()
    assert len(named) > 10
    missing = [item for item in named if not (REPO / item.split("::", 1)[0]).exists()]
    assert missing == []


def test_every_test_the_lowest_pass_names_is_collected():
    ids = [item for item in lowest_tests() if "::" in item]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly", *ids],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert collected.returncode == 0, collected.stdout[-2000:] + collected.stderr[-2000:]
    count = int(collected.stdout.rsplit(" tests collected", 1)[0].rsplit("\n", 1)[-1])
    assert count >= len(ids)  # a parametrized test named whole counts each of its cases
