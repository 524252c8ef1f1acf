"""WorkRail's virtual steps: a step's `audit` and `verification`, and a parallel step's `synthesis`,
compile into steps of their own right after it, which an agent is given like any other step and
inspect_workflow's outline shows. Workflows without these fields compile as before."""

from __future__ import annotations

import json

import pytest

from runs.execution import catalog as catalog_service
from tests.support.mcp_calls import call
from tests.support.paths import FIXTURE_WORKFLOWS
from tests.support.texts import workflow_details_text
from tests.support.workflow_files import workflow_doc, write_json
from tests.workflows_app.engine.builders import run
from workflows_app.compiler import COGNITIVE_CHECK, RoutineDocument, compile_workflow
from workflows_app.engine.delegations import delegations
from workflows_app.schema import schema_diagnostics
from workflows_app.structure import unresolved_references


def compile_doc(document, routines=None):
    return compile_workflow(document, kind="workflow", resolve_routine=(routines or {}).get)


def checked_doc():
    return workflow_doc(
        "team.checked",
        steps=[
            {
                "id": "fix-bug",
                "title": "Fix the bug",
                "prompt": "Fix it.",
                "runCondition": {"var": "buggy", "equals": True},
                "audit": {
                    "prompt": "Check the fix is minimal.",
                    "rubric": ["No unrelated edits.", "A test covers it."],
                },
                "verification": {"command": "make test", "prompt": "All tests pass."},
            },
            {
                "id": "fan-out",
                "type": "parallel",
                "title": "Review in parallel",
                "parallelDelegations": [{"workflowId": "team.a"}, {"workflowId": "team.b"}],
                "synthesis": {
                    "prompt": "One verdict.",
                    "outputContract": {"contractRef": "wr.contracts.loop_control", "required": False},
                },
            },
        ],
    )


def test_audit_verification_and_synthesis_become_steps_right_after_their_step():
    steps = compile_doc(checked_doc())["steps"]
    assert [s["id"] for s in steps] == ["fix-bug", "fix-bug.audit", "fix-bug.verify", "fan-out", "fan-out.synthesis"]
    fix, audit, verify, fan_out, synthesis = steps
    assert not {"audit", "verification"} & fix.keys() and "synthesis" not in fan_out
    assert (audit["kind"], audit["title"], audit["virtualOf"]) == (
        "step",
        "Audit: Fix the bug",
        {"stepId": "fix-bug", "kind": "audit"},
    )
    assert "step 'Fix the bug' delivered" in audit["prompt"]
    assert "Check the fix is minimal." in audit["prompt"]
    assert "- No unrelated edits.\n- A test covers it." in audit["prompt"]
    assert verify["title"] == "Verify: Fix the bug" and "\n\n    make test\n\n" in verify["prompt"]
    assert verify["prompt"].endswith("All tests pass.")
    # Skipped together with their step.
    assert audit["runCondition"] == verify["runCondition"] == {"var": "buggy", "equals": True}
    assert synthesis["title"] == "Synthesize: Review in parallel"
    assert "2 delegation(s) of step 'Review in parallel'" in synthesis["prompt"]
    assert synthesis["prompt"].endswith("One verdict.")
    assert synthesis["outputContract"]["contractRef"] == "wr.contracts.loop_control"
    assert synthesis["outputContract"]["required"] is False
    assert "Synthesis:" not in fan_out["prompt"]


def test_the_agent_is_given_the_virtual_steps_and_they_are_skipped_with_their_step():
    compiled = compile_doc(checked_doc())
    visited, _ = run(compiled, context={"buggy": True})
    assert [p["stepId"] for p in visited] == [
        "fix-bug",
        "fix-bug.audit",
        "fix-bug.verify",
        "fan-out",
        "fan-out.synthesis",
    ]
    skipped, _ = run(compiled, context={"buggy": False})
    assert [p["stepId"] for p in skipped] == ["fan-out", "fan-out.synthesis"]


def test_virtual_steps_of_a_routine_step_follow_its_prefixed_id():
    routine = workflow_doc(
        "team.routine-checks",
        steps=[{"id": "check", "title": "Check", "prompt": "Check.", "verification": {"command": "make lint"}}],
    )
    caller = workflow_doc(
        "team.caller",
        steps=[{"id": "call", "title": "Call", "templateCall": {"templateId": "wr.templates.routine.checks"}}],
    )
    steps = compile_doc(caller, {"routine-checks": RoutineDocument("team.routine-checks", routine)})["steps"]
    assert [(s["id"], s.get("virtualOf")) for s in steps] == [
        ("call.check", None),
        ("call.check.verify", {"stepId": "call.check", "kind": "verify"}),
    ]


def test_workflows_without_these_fields_compile_as_before():
    plain = workflow_doc("team.plain")
    compiled = compile_doc(plain)
    assert [s["id"] for s in compiled["steps"]] == ["first-step", "second-step"]
    assert all("virtualOf" not in s for s in compiled["steps"])


def test_an_unknown_synthesis_contract_is_left_out_like_a_step_contract():
    document = checked_doc()
    document["steps"][1]["synthesis"]["outputContract"] = {"contractRef": "team.contracts.verdict"}
    assert unresolved_references(document) == [
        {
            "kind": "contract",
            "name": "team.contracts.verdict",
            "pointer": "/steps/1/synthesis/outputContract/contractRef",
        }
    ]


@pytest.mark.django_db
def test_inspect_workflow_outlines_the_virtual_steps(service_catalog):
    write_json(service_catalog["extra"] / "checked.json", checked_doc())
    details = call("inspect_workflow", {"workflowId": "team.checked", "mode": "preview"})
    outline = [(s["id"], s["title"]) for s in details["steps"]]
    assert ("fix-bug.audit", "Audit: Fix the bug") in outline
    assert ("fan-out.synthesis", "Synthesize: Review in parallel") in outline
    assert details["workflow"]["stepCount"] == 5
    text = workflow_details_text(details)
    assert "3. Verify: Fix the bug [fix-bug.verify] (only if" in text


# --- WorkRail's newer fields: audit.delegate, verification.cognitive (fixture.delegated_checks) ---------


def delegated_checks():
    return json.loads((FIXTURE_WORKFLOWS / "delegated_checks.json").read_text(encoding="utf-8"))


def test_the_schema_accepts_a_delegated_audit_and_a_cognitive_verification():
    assert schema_diagnostics(delegated_checks()) == []


def test_a_delegated_audit_becomes_a_parallel_step_that_hands_its_legwork_to_the_routine():
    document = delegated_checks()
    steps = {s["id"]: s for s in compile_doc(document)["steps"]}
    audit = steps["locate-cause.audit"]
    assert audit["kind"] == "parallel" and audit["virtualOf"] == {"stepId": "locate-cause", "kind": "audit"}
    assert audit["parallelDelegations"] == [document["steps"][0]["audit"]["delegate"]]
    assert "a run of fixture.routine-cause_review (model tier: mid), listed with this step." in audit["prompt"]
    assert "Its goal: An independent trace of the failure" in audit["prompt"]
    assert "evidence, not as the verdict" in audit["prompt"]
    assert audit["prompt"].endswith("- The independent trace passes through the suspected change.")
    # The run hands it out like any parallel step's delegation: mapped context, then args.
    [handed_out] = delegations(audit, {"failingJob": "nightly-integration"})
    assert (handed_out["workflowId"], handed_out["runs"]) == ("fixture.routine-cause_review", True)
    assert handed_out["context"] == {"failingCheck": "nightly-integration", "findingsFile": "notes/cause-review.md"}
    # An audit without a delegate stays an ordinary step (checked_doc above).
    assert {s["id"]: s["kind"] for s in compile_doc(checked_doc())["steps"]}["fix-bug.audit"] == "step"


def test_a_cognitive_verification_asks_for_a_reasoning_check_after_the_command():
    steps = {s["id"]: s for s in compile_doc(delegated_checks())["steps"]}
    with_command = steps["revert-suspect.verify"]["prompt"]
    assert with_command.index("make nightly-smoke") < with_command.index(COGNITIVE_CHECK)
    assert (
        steps["report-cause.verify"]["prompt"] == f"Verify what step 'Report the cause' delivered.\n\n{COGNITIVE_CHECK}"
    )
    # Without the flag, no reasoning check is asked for.
    assert COGNITIVE_CHECK not in {s["id"]: s for s in compile_doc(checked_doc())["steps"]}["fix-bug.verify"]["prompt"]


@pytest.mark.django_db
def test_a_delegated_audit_to_a_missing_workflow_is_warned_about(service_catalog):
    document = delegated_checks()
    path = write_json(service_catalog["extra"] / "delegated.json", document)  # its routine is not there
    told = call("inspect_workflow", {"workflowId": "fixture.delegated_checks"})["workflow"]
    assert told["warningCount"] == 1 and "validate_workflow" in told["validateCommand"]  # an agent: a count
    details = catalog_service.inspect_workflow("fixture.delegated_checks", for_people=True).dump()
    [problem] = details["workflow"]["warnings"]
    assert (problem["code"], problem["pointer"], problem["file"]) == (
        "UNKNOWN_DELEGATION",
        "/steps/0/audit/delegate/workflowId",
        str(path),
    )
    assert problem["message"].startswith("The audit of step 'locate-cause' delegates to 'fixture.routine-cause_review'")
