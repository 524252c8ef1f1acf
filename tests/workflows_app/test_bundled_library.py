"""The bundled library (workflows_app/bundled): every workflow loads with no diagnostic at all, shows an
agent exactly what we mean it to see, and takes its loops and branches when a run's context calls for them.

Snapshots: what `inspect_workflow` shows of each bundled workflow in both its modes (the text an agent
reads before it starts one: metadata's description and workflowHash, the preview's every step's prompt,
and the guidance its first step gives) is pinned in
tests/snapshots/inspect/<id>.txt and compared exactly. A change to a prompt, a step, or a built-in
snippet, feature or contract a workflow uses therefore shows up as a snapshot diff in review. After an
intended change, rewrite the snapshots instead of comparing them with

    UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/workflows_app/test_bundled_library.py

and review the diff of tests/snapshots/ before committing. A new bundled workflow gets its snapshot
the same way.

The runs below drive the pure interpreter with an agent that does what each prompt asks: it writes
notes, sends the context a step tells it to set, the contract's example artifact, and loop-control
decisions that end a loop after a chosen number of rounds. The scripted runs of every bundled workflow
(tests/workflows_app/engine/test_corpus_runs.py, tests/e2e/test_corpus_runs.py) cover completion; these pin the paths.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest

from runs.mcp import tools
from tests.support.paths import REPO
from tests.workflows_app.engine.scripted_run import load_catalog
from workflows_app.engine import advance, start
from workflows_app.sources import BUNDLED_DIR, SourceKind

SNAPSHOTS = REPO / "tests" / "snapshots" / "inspect"
BUNDLED_IDS = sorted(path.stem for path in BUNDLED_DIR.glob("*.json"))  # file names are the ids
MAX_STEPS = 100


def updating_snapshots() -> bool:
    return os.environ.get("UPDATE_SNAPSHOTS") == "1"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()  # the bundled workflows, with an empty user home and project


def compiled_of(catalog, workflow_id: str) -> dict[str, Any]:
    entry = catalog.get(workflow_id)
    problems = [d.message for d in catalog.diagnostics if d.workflow_id == workflow_id]
    assert entry is not None, f"{workflow_id} did not load: {problems}"
    return entry.compiled


# --- Loading ----------------------------------------------------------------------------------------------


def test_the_bundled_sources_load_without_any_diagnostic(catalog):
    assert [d.as_dict() for d in catalog.diagnostics] == []


@pytest.mark.parametrize("workflow_id", BUNDLED_IDS)
def test_each_bundled_workflow_loads_cleanly_from_the_bundled_source(catalog, workflow_id):
    problems = [d.as_dict() for d in catalog.diagnostics if Path(d.file or "").stem == workflow_id]
    assert problems == []
    entry = catalog.get(workflow_id)
    assert entry is not None
    assert entry.source.kind is SourceKind.BUNDLED
    assert entry.warnings == ()


# --- Snapshots of what an agent is shown ------------------------------------------------------------------


MODES = ("metadata", "preview")  # preview leaves out what metadata says: both, to show it all


@pytest.mark.django_db
@pytest.mark.parametrize("workflow_id", BUNDLED_IDS)
def test_inspect_preview_matches_its_snapshot(workflow_id, service_catalog):
    shown = [tools.call("inspect_workflow", {"workflowId": workflow_id, "mode": mode}) for mode in MODES]
    assert not any(outcome.is_error for outcome in shown), [outcome.text for outcome in shown]
    parts = [outcome.text for outcome in shown]
    rules = shown[0].structured["workflow"].get("metaGuidance") or []  # named by inspect, given with step one
    parts += ["Guidance, as the first step gives it:\n" + "\n".join(f"- {rule}" for rule in rules)] if rules else []
    text = "\n\n".join(parts) + "\n"
    path = SNAPSHOTS / f"{workflow_id}.txt"
    if updating_snapshots():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), (
        f"No snapshot for {workflow_id}; create it with UPDATE_SNAPSHOTS=1 (see the module docstring)."
    )
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{path} differs; if the change is intended, rerun with UPDATE_SNAPSHOTS=1."


def test_every_snapshot_belongs_to_a_bundled_workflow():
    if updating_snapshots():
        pytest.skip("snapshots are being rewritten")
    assert sorted(path.stem for path in SNAPSHOTS.glob("*.txt")) == BUNDLED_IDS


# --- Paths through the new workflows ----------------------------------------------------------------------


def drive(
    compiled: dict[str, Any],
    context: dict[str, Any] | None = None,
    *,
    updates: dict[str, dict[str, Any]] | None = None,
    rounds: dict[str, int] | None = None,
) -> list[dict[str, Any]]:
    """Runs `compiled` to completion from `context`; returns every pending view, in order.

    The agent sends notes; with each step the context `updates[stepId]` (what the prompt told it to
    set); at a contract step the contract's example, except for wr.loop_control, where it decides
    `continue` until the loop has run `rounds[loopId]` iterations. Nothing may block or warn."""
    updates, rounds = updates or {}, rounds or {}
    transition = start(compiled, context)
    assert transition.warnings == []
    visited: list[dict[str, Any]] = []
    while transition.kind != "complete":
        pending = transition.pending
        assert pending is not None and len(visited) < MAX_STEPS
        visited.append(pending)
        output: dict[str, Any] = {"notesMarkdown": f"Did {pending['title']}."}
        contract = pending["outputContract"]
        if contract is not None and contract["artifactKind"] == "wr.loop_control":
            loop = pending["loop"]
            decision = "continue" if loop["iteration"] < rounds[loop["loopId"]] else "stop"
            output["artifacts"] = [{"kind": "wr.loop_control", "decision": decision}]
        elif contract is not None:
            output["artifacts"] = [copy.deepcopy(contract["example"])]
        transition = advance(compiled, transition.state, output=output, context=updates.get(pending["stepId"]))
        assert transition.kind != "blocked", transition.issues
        assert transition.warnings == [], transition.warnings
    return visited


def instances(visited: list[dict[str, Any]]) -> list[str]:
    return [pending["stepInstance"] for pending in visited]


def by_instance(visited: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {pending["stepInstance"]: pending for pending in visited}


SLICES = ["Add the CSV writer", "Add the export button"]


def test_coding_task_confirms_a_risky_plan_and_implements_then_verifies_each_slice(catalog):
    visited = drive(
        compiled_of(catalog, "wr.change_in_slices"),
        updates={
            "understand-task": {"riskLevel": "high", "changeSize": "medium", "verifyCommand": "make test"},
            "plan-slices": {"slices": SLICES},
            "final-verification": {"allChecksPass": False},
        },
    )
    assert instances(visited) == [
        "understand-task", "plan-slices", "confirm-plan",
        "slice-loop#1/implement-slice", "slice-loop#1/verify-slice",
        "slice-loop#2/implement-slice", "slice-loop#2/verify-slice",
        "final-verification", "resolve-failures", "hand-off",
    ]  # fmt: skip
    steps = by_instance(visited)
    assert steps["confirm-plan"]["requireConfirmation"] is True
    assert "high risk and medium in size" in steps["confirm-plan"]["prompt"]
    assert steps["resolve-failures"]["requireConfirmation"] is True
    second = steps["slice-loop#2/implement-slice"]
    assert second["title"] == "Implement Slice 2: Add the export button"  # each slice is named
    assert 'Implement slice 2 of 2 from the plan, "Add the export button"' in second["prompt"]
    verify = steps["slice-loop#2/verify-slice"]
    assert "`make test`" in verify["prompt"]
    assert "also run the full suite (`make test`) for this slice" in verify["prompt"]  # the high-risk fragment
    assert verify["outputContract"] is None  # the loop runs over the planned slices: nothing to decide
    handoff = steps["hand-off"]
    assert "roll it back" in handoff["prompt"]
    assert (handoff["outputContract"]["contractRef"], handoff["outputContract"]["artifactKind"]) == (
        "wr.contracts.coding_handoff",
        "wr.coding_handoff",
    )


def test_coding_task_goes_straight_to_work_when_the_change_is_small_and_safe(catalog):
    visited = drive(
        compiled_of(catalog, "wr.change_in_slices"),
        updates={
            "understand-task": {"riskLevel": "low", "changeSize": "small"},
            "plan-slices": {"slices": SLICES[:1]},
            "final-verification": {"allChecksPass": True},
        },
    )
    assert instances(visited) == [
        "understand-task", "plan-slices", "slice-loop#1/implement-slice", "slice-loop#1/verify-slice",
        "final-verification", "hand-off",
    ]  # fmt: skip
    assert not any(pending["requireConfirmation"] for pending in visited)
    verify = by_instance(visited)["slice-loop#1/verify-slice"]["prompt"]
    assert "full suite" not in verify
    # No contradiction: without the high-risk fragment the narrow run is the rule, and nothing says otherwise.
    assert "narrowest form" in verify


def test_mr_review_goes_deep_on_a_complex_change_and_posts_only_when_asked(catalog):
    areas = ["session storage migration", "token refresh"]
    visited = drive(
        compiled_of(catalog, "wr.risk_scaled_mr_review"),
        {"changeRef": "!731"},
        updates={
            "triage-change": {"complexity": "complex"},
            "list-changed-files": {"reviewAreas": areas},
            "confirm-comments": {"postComments": True},
        },
    )
    assert instances(visited) == [
        "triage-change", "list-changed-files", "trace-impact",
        "area-loop#1/review-area", "area-loop#2/review-area",
        "record-findings", "confirm-comments", "post-comments", "review-summary",
    ]  # fmt: skip
    steps = by_instance(visited)
    assert "(!731)" in steps["triage-change"]["prompt"]
    assert steps["list-changed-files"]["outputContract"]["contractRef"] == "mr_review.changed_files"
    for number, area in enumerate(areas, 1):
        review = steps[f"area-loop#{number}/review-area"]
        assert review["title"] == f"Review {area}"
        assert f"Review focus area {number} of 2: {area}." in review["prompt"]
        assert "exact input or sequence of events" in review["prompt"]  # the complex-change fragment
    findings = steps["record-findings"]["outputContract"]
    assert findings["contractRef"] == "mr_review.findings"
    assert "mrComments" in findings["schema"]["properties"]
    assert steps["confirm-comments"]["requireConfirmation"] is True


def test_mr_review_keeps_a_simple_change_light_and_hands_comments_back(catalog):
    visited = drive(
        compiled_of(catalog, "wr.risk_scaled_mr_review"),
        {"changeRef": "feature/copy-fixes"},
        updates={
            "triage-change": {"complexity": "simple"},
            "list-changed-files": {"reviewAreas": ["copy in templates/"]},
            "confirm-comments": {"postComments": False},
        },
    )
    assert instances(visited) == [
        "triage-change", "list-changed-files", "area-loop#1/review-area", "record-findings", "confirm-comments",
        "review-summary",
    ]  # fmt: skip
    assert "focused pass on correctness and tests" in by_instance(visited)["area-loop#1/review-area"]["prompt"]


def test_mr_review_asks_for_the_change_as_information_only_the_user_has(catalog):
    triage = compiled_of(catalog, "wr.risk_scaled_mr_review")["steps"][0]
    assert triage["userDependencies"] == [
        {
            "reason": "information",
            "description": "Which change to review: the merge or pull request link, or the source and target branches.",
            "contextKey": "changeRef",
        }
    ]


@pytest.mark.parametrize(("starting_point", "study"), [("existing", True), ("scratch", False)])
def test_workflow_authoring_validates_each_revision_until_the_user_accepts_it(catalog, starting_point, study):
    visited = drive(
        compiled_of(catalog, "wr.workflow_authoring"),
        {"workflowGoal": "Turn our release checklist into a workflow for the on-call agent."},
        updates={"clarify-purpose": {"workflowId": "team.release_checklist", "startingPoint": starting_point}},
        rounds={"validate-loop": 2},
    )
    assert instances(visited) == [
        "clarify-purpose", *(["study-existing"] if study else []), "outline-steps", "choose-features", "draft-json",
        "validate-loop#1/submit-draft", "validate-loop#1/review-draft",
        "validate-loop#2/submit-draft", "validate-loop#2/review-draft",
        "save-workflow", "explain-usage",
    ]  # fmt: skip
    steps = by_instance(visited)
    draft = steps["validate-loop#2/submit-draft"]["outputContract"]
    assert (draft["contractRef"], draft["artifactKind"]) == ("wr.contracts.workflow_draft", "wr.workflow_draft")
    assert steps["validate-loop#2/review-draft"]["requireConfirmation"] is True
    assert steps["validate-loop#2/review-draft"]["outputContract"]["contractRef"] == "wr.contracts.loop_control"
    assert "`.workrail/workflows/team.release_checklist.json`" in steps["save-workflow"]["prompt"]
    assert '{"workflowId": "team.release_checklist"}' in steps["explain-usage"]["prompt"]


def test_mr_review_findings_contract_requires_what_its_words_require(catalog):
    """The prompt and the guidance ask every finding for a location, what goes wrong and the change to make:
    the contract requires them too, so its template never offers them as fields to remove."""
    compiled = compiled_of(catalog, "wr.risk_scaled_mr_review")
    guidance = " ".join(compiled["metaGuidance"])
    assert "Every finding needs a location, a concrete failure scenario or cost, and a suggested change." in guidance
    [step] = [step for step in compiled["steps"] if step["id"] == "record-findings"]
    schema = step["outputContract"]["schema"]
    finding = schema["properties"]["findings"]["items"]
    assert {"severity", "title", "location", "rationale", "suggestion"} <= set(finding["required"])
    comment = schema["properties"]["mrComments"]["items"]
    assert {"location", "title", "body"} <= set(comment["required"])
    assert "`mrComments`, if any finding is worth posting" in step["prompt"]  # optional, and said so
