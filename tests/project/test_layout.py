"""The tests mirror the code's layout, and the benchmarks stand on their own (issue 19).

A test file sits in the folder of what it tests (tests/runs/store/ for runs/store/, tests/runs/admin/
for runs/admin.py, ...) or in one of the cross-cutting kinds; bench/ and harness/ (what both the
end-to-end tests and the benchmarks drive WorkRail with) never import tests/; and no test module
imports another."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import REPO

TESTS = REPO / "tests"
CROSS_CUTTING = {"e2e", "browser", "fuzz", "surface", "project"}  # kinds of test, not parts of the code
SUPPORT = {"support", "plugins", "fixtures", "snapshots"}  # what the tests share: no test files


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def code_exists(path: Path) -> bool:
    """A package (runs/store/) or a module (runs/admin.py) of the code."""
    return path.is_dir() or path.with_suffix(".py").is_file()


def test_every_test_file_sits_in_the_folder_of_what_it_tests():
    misplaced = []
    for path in sorted(TESTS.rglob("test_*.py")):
        parts = path.relative_to(TESTS).parent.parts
        if "node_modules" in parts:
            continue
        if not parts or parts[0] in SUPPORT:
            misplaced.append(str(path.relative_to(REPO)))
        elif parts[0] not in CROSS_CUTTING and not code_exists(REPO.joinpath(*parts)):
            misplaced.append(f"{path.relative_to(REPO)} (no {'/'.join(parts)} in the code)")
    assert misplaced == []


def test_bench_and_the_harness_do_not_import_the_tests():
    offenders = {
        str(path.relative_to(REPO)): sorted(m for m in imported_modules(path) if m == "tests" or m.startswith("tests."))
        for folder in ("bench", "harness")
        for path in sorted((REPO / folder).rglob("*.py"))
    }
    assert {path: modules for path, modules in offenders.items() if modules} == {}


def test_no_test_module_imports_another():
    """What tests share is a fixture (tests/plugins/, a conftest.py) or a helper (tests/support/, a folder's
    support module), never another test file: importing one runs its tests' set-up and hides the sharing."""
    offenders = {
        str(path.relative_to(REPO)): sorted(
            m for m in imported_modules(path) if m.rsplit(".", 1)[-1].startswith("test_")
        )
        for path in sorted(TESTS.rglob("*.py"))
        if "node_modules" not in path.parts
    }
    assert {path: modules for path, modules in offenders.items() if modules} == {}
