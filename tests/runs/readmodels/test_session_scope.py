"""The session page's scope words from the run count (runs/readmodels/session_scope.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from runs.readmodels import session_scope

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def run(run_id: str, minutes: int, name: str = "Plan") -> Any:
    return SimpleNamespace(run_id=run_id, created_at=START + timedelta(minutes=minutes), workflow_name=name)


def detail(*runs: Any) -> Any:
    return SimpleNamespace(runs=list(runs))


def shown(summary: Any) -> Any:
    return SimpleNamespace(run=summary)


def test_one_run_has_no_divider_and_no_start_of_its_own():
    only = run("run_a", 0)
    assert session_scope.of_page(detail(only), shown(only)) == session_scope.Scope("", None)
    assert session_scope.of_page(detail(), None) == session_scope.Scope("", None)


def test_several_runs_have_the_divider_and_a_later_run_its_start():
    first, later = run("run_a", 0, "Review"), run("run_b", 5)
    assert session_scope.of_page(detail(first, later), shown(first)) == session_scope.Scope(
        "Whole session", None, "Run 1 of 2: Review"
    )
    assert session_scope.of_page(detail(first, later), shown(later)) == session_scope.Scope(
        "Whole session", START + timedelta(minutes=5), "Run 2 of 2: Plan"
    )
