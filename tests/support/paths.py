"""Where things are, from the repository root (never from a test file's own folder, which moves)."""

from __future__ import annotations

from harness.processes import REPO

TESTS = REPO / "tests"
FIXTURE_WORKFLOWS = TESTS / "fixtures" / "workflows"
SNAPSHOTS = TESTS / "snapshots"

__all__ = ["FIXTURE_WORKFLOWS", "REPO", "SNAPSHOTS", "TESTS"]
