"""The quick loop stays quick and the property tests stay fresh (issue 31).

`make test-fast` leaves out the tests marked `subprocess`; a test that starts WorkRail as a process without
the marker would slip into it. Outside tests/e2e and tests/browser (marked by folder), every test that
reaches one of the helpers that start WorkRail, directly or through its module's helpers and fixtures,
carries the marker, on itself or on its module. And Hypothesis draws from the run's seed, which the
suite chose when none was given."""

from __future__ import annotations

import ast
from pathlib import Path

import hypothesis.core
import pytest

from tests.support.paths import REPO

TESTS = REPO / "tests"
MARKED_BY_FOLDER = {"e2e", "browser"}
# What starts WorkRail (manage.py, the dashboard) as a process of its own; git and a bare interpreter do not count.
STARTERS = {"run_manage", "running_dashboard", "spawn_mcp", "manage_command", "run_captured"}


def used_names(node: ast.AST) -> set[str]:
    names = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            names.add(child.id)
        elif isinstance(child, ast.Attribute):
            names.add(child.attr)
    return names


def marks_subprocess(decorators: list[ast.expr]) -> bool:
    return any("subprocess" in used_names(decorator) and "mark" in used_names(decorator) for decorator in decorators)


def unmarked_starters(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    module_marks = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets)
    ]
    if marks_subprocess(module_marks):
        return []
    starting = {name for name, node in functions.items() if used_names(node) & STARTERS}
    grown = True
    while grown:  # a helper or fixture that reaches a starter starts WorkRail too
        grown = False
        for name, node in functions.items():
            reached = used_names(node) | {argument.arg for argument in node.args.args}
            if name not in starting and reached & starting:
                starting.add(name)
                grown = True
    return [
        f"{path.relative_to(REPO)}::{name}"
        for name, node in functions.items()
        if name.startswith("test_") and name in starting and not marks_subprocess(node.decorator_list)
    ]


def test_every_test_that_starts_workrail_as_a_process_is_marked_subprocess():
    offenders = [
        offender
        for path in sorted(TESTS.rglob("test_*.py"))
        if "node_modules" not in path.parts and path.relative_to(TESTS).parts[0] not in MARKED_BY_FOLDER
        for offender in unmarked_starters(path)
    ]
    assert offenders == []


def test_hypothesis_draws_from_the_seed_this_run_chose(request: pytest.FixtureRequest):
    seed = request.config.getoption("hypothesis_seed")
    assert seed is not None  # chosen by tests/plugins/hypothesis_seed.py when --hypothesis-seed is not given
    assert hypothesis.core.global_force_seed == int(seed)
