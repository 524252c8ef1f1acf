"""A fresh clone has no WorkRail corpus beside it: the tests that need it skip, with one reason,
instead of failing or erroring (tests/support/corpus.py). Checked by running them without it."""

from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET

import pytest

from harness.processes import run_captured
from tests.support.paths import REPO

CORPUS_TESTS = [
    "tests/workflows_app/test_corpus.py",
    "tests/workflows_app/engine/test_corpus_runs.py",
    "tests/runs/mcp/test_corpus_runs.py::test_every_corpus_workflow_runs_to_completion",
    "tests/e2e/test_mcp_stdio.py::test_an_agent_lists_and_inspects_real_workflows",
]


@pytest.mark.subprocess
def test_corpus_tests_skip_with_one_reason_when_the_corpus_is_absent(tmp_path):
    missing = tmp_path / "no-corpus"
    missing.mkdir()
    report = tmp_path / "report.xml"
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    env["WR_TEST_CORPUS_DIR"] = str(missing)
    options = ["-p", "no:cacheprovider", "-p", "no:xdist", "-q", "-rs", f"--junitxml={report}"]
    result = run_captured([sys.executable, "-m", "pytest", *options, *CORPUS_TESTS], env=env, cwd=REPO, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]

    reason = (
        f"WorkRail corpus not found at {missing / 'workflows'} (shared/ beside the checkout, or WR_TEST_CORPUS_DIR); "
        "corpus conformance tests skipped"
    )
    outcomes: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}.{case.get('name')}"
        problems = [child.tag for child in case if child.tag in ("failure", "error")]
        assert problems == [], name
        skipped = case.find("skipped")
        outcomes[name] = "passed" if skipped is None else skipped.get("message", "")
    skipped_reasons = {message for message in outcomes.values() if message != "passed"}
    assert skipped_reasons == {reason}
    # Everything that needs the corpus skipped, each parametrized test as one item; only the bundled
    # workflows' runs, which do not need it, ran.
    assert [name for name, outcome in outcomes.items() if outcome == "passed"] == [
        name for name in outcomes if "bundled" in name and "no-corpus" not in name
    ]
    loads_every_workflow = "test_it_loads_every_corpus_workflow_with_id_kind_and_step_count[no-corpus]"
    assert f"tests.workflows_app.test_corpus.{loads_every_workflow}" in outcomes
    assert any(name.endswith("runs_to_completion[no-corpus]") for name in outcomes)
    assert sum(outcome != "passed" for outcome in outcomes.values()) >= 14
    summary = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert summary and all(line.endswith(reason) for line in summary)
