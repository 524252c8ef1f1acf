"""The synthesis of a completed run: the notes and artifacts on the path to its end, in order."""

from __future__ import annotations

import json
from typing import Any

import pytest

from runs.contract.errors import ErrorCode, WorkRailError
from runs.readmodels.synthesis import synthesize
from tests.runs.readmodels.support import (
    A_FINDING,
    FILES,
    FINDINGS,
    PLAN,
    STEPS,
    changed_files,
    node_of,
    record_checkpoint,
)
from tests.support.mcp_calls import ack_with_notes, continue_workflow, start_workflow

pytestmark = pytest.mark.django_db


def complete_plan(context: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """A finished run of the routine: notes on each step, artifacts on the first and the last."""
    start = start_workflow(PLAN, context)
    second = ack_with_notes(start, "Goal: paginate /orders.", [changed_files("a.py"), A_FINDING])
    third = ack_with_notes(second, "Plan: three steps.")
    done = ack_with_notes(third, "Verdict: ready.", [changed_files("b.py")])
    assert done["isComplete"] is True
    return start, done


def test_a_completed_run_is_synthesized_in_path_order(service_catalog):
    _, done = complete_plan()
    node = node_of(done)
    assert node.is_complete
    synthesis = synthesize(node)

    assert synthesis["runId"] == done["session"]["runId"]
    assert synthesis["workflowId"] == PLAN
    assert synthesis["workflowHash"] == done["workflow"]["workflowHash"]
    assert synthesis["completedAt"] == node.created_at.isoformat()
    assert [s["stepId"] for s in synthesis["steps"]] == STEPS
    assert [s["kind"] for s in synthesis["steps"]] == ["step", "step", "step"]
    assert [s["title"] for s in synthesis["steps"]] == [
        "Clarify Goal and Constraints",
        "Draft Plan with Risks",
        "Self-Check the Plan",
    ]
    assert [s["notesMarkdown"] for s in synthesis["steps"]] == [
        "Goal: paginate /orders.",
        "Plan: three steps.",
        "Verdict: ready.",
    ]
    assert [len(s["artifacts"]) for s in synthesis["steps"]] == [2, 0, 1]


def test_the_last_artifact_of_each_kind_is_final(service_catalog):
    _, done = complete_plan()
    artifacts = synthesize(node_of(done))["artifacts"]
    assert [(a["kind"], a["stepId"], a["final"]) for a in artifacts] == [
        (FILES, "clarify-goal", False),
        (FINDINGS, "clarify-goal", True),
        (FILES, "self-check-plan", True),
    ]
    assert artifacts[0]["data"] == changed_files("a.py")
    assert artifacts[2]["data"]["changedFiles"][0]["path"] == "b.py"


def test_the_notes_document_has_a_heading_per_step_in_order(service_catalog):
    _, done = complete_plan()
    document = synthesize(node_of(done))["notesMarkdown"]
    assert document.startswith("# Focused Plan Routine\n")
    headings = [line for line in document.splitlines() if line.startswith("## ")]
    assert headings == [
        "## 1. Clarify Goal and Constraints (`clarify-goal`)",
        "## 2. Draft Plan with Risks (`draft-plan`)",
        "## 3. Self-Check the Plan (`self-check-plan`)",
    ]
    positions = [document.index(text) for text in ("Goal: paginate", "Plan: three", "Verdict: ready")]
    assert positions == sorted(positions)
    assert f"Artifacts: `{FILES}`, `{FINDINGS}`" in document


def test_the_same_node_gives_byte_identical_json(service_catalog):
    _, done = complete_plan()
    first = json.dumps(synthesize(node_of(done)), ensure_ascii=False)
    again = json.dumps(synthesize(node_of(done)), ensure_ascii=False)
    assert first == again
    # artifact keys are sorted, whatever order the agent sent them in
    data = json.loads(first)["artifacts"][0]["data"]
    assert list(data) == sorted(data)


def test_only_the_completed_branch_is_synthesized(service_catalog):
    start = start_workflow(PLAN)
    abandoned = ack_with_notes(start, "First idea.", [changed_files("old.py")])
    ack_with_notes(abandoned, "Plan for the first idea.")
    rewound = continue_workflow(stateToken=start["stateToken"])
    second = ack_with_notes(rewound, "Second idea.", [changed_files("new.py")])
    done = ack_with_notes(ack_with_notes(second, "Plan for the second idea."), "Verdict: ready.")

    synthesis = synthesize(node_of(done))
    assert [s["notesMarkdown"] for s in synthesis["steps"]] == [
        "Second idea.",
        "Plan for the second idea.",
        "Verdict: ready.",
    ]
    assert [a["data"]["changedFiles"][0]["path"] for a in synthesis["artifacts"]] == ["new.py"]
    assert synthesis["artifacts"][0]["final"] is True


def test_checkpoints_on_the_path_are_included_where_they_happened(service_catalog):
    start = start_workflow(PLAN)
    second = ack_with_notes(start, "Goal set.", [changed_files("a.py")])
    resumed = record_checkpoint(second, "Halfway through the plan.", [changed_files("c.py")])
    third = ack_with_notes(resumed, "Plan done.")
    done = ack_with_notes(third, "Verdict: ready.")

    synthesis = synthesize(node_of(done))
    assert [(s["kind"], s["stepId"]) for s in synthesis["steps"]] == [
        ("step", "clarify-goal"),
        ("checkpoint", "draft-plan"),
        ("step", "draft-plan"),
        ("step", "self-check-plan"),
    ]
    assert synthesis["steps"][1]["title"] == "Draft Plan with Risks"
    assert synthesis["steps"][1]["notesMarkdown"] == "Halfway through the plan."
    assert [(a["stepId"], a["final"]) for a in synthesis["artifacts"]] == [
        ("clarify-goal", False),
        ("draft-plan", True),
    ]
    assert "## 2. Checkpoint: Draft Plan with Risks (`draft-plan`)" in synthesis["notesMarkdown"]


def test_only_a_completed_node_has_a_synthesis(service_catalog):
    start = start_workflow(PLAN)
    second = ack_with_notes(start, "Goal set.")
    node = node_of(second)
    assert not node.is_complete
    with pytest.raises(WorkRailError) as raised:
        synthesize(node)
    assert raised.value.code == ErrorCode.INVALID_INPUT
