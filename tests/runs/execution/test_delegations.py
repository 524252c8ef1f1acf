"""Parallel steps: each delegation runs as a nested run linked to its parent; the parent goes on once
every delegation that runs is complete and the agent reports the results."""

import json

import pytest

from harness.projections import snapshot
from runs.contract.execution import ExecutionResult
from runs.models import Run, RunStatus
from runs.store.rebuild import rebuild_projections
from tests.support.mcp_calls import ack, continue_workflow, start_workflow
from tests.support.texts import execution_text
from tests.support.workflow_files import parallel_doc, step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db


def finish(state_token):
    response = continue_workflow(stateToken=state_token)
    while not response["isComplete"]:
        response = ack(response)
    return response


def test_delegations_run_as_linked_runs_and_the_parent_waits_for_them(fanout):
    start = start_workflow(fanout, {"moduleName": "billing"})
    parallel = ack(start)
    assert parallel["pending"]["stepId"] == "fan-out"
    first, skipped, unavailable = parallel["pending"]["delegations"]
    assert first["context"] == {"module": "billing", "ref": "upgrade-branch"}
    assert first["runs"] and first["available"] and first["status"] == "in_progress" and first["stateToken"]
    assert not skipped["runs"] and "runId" not in skipped
    assert unavailable["runs"] and not unavailable["available"] and "runId" not in unavailable
    assert parallel["nextCall"]["instructions"].startswith("First carry out each delegation")

    child = Run.objects.get(public_id=first["runId"])
    parent = Run.objects.get(public_id=start["session"]["runId"])
    assert (child.parent_run, child.delegation_index, child.session_id) == (parent, 0, parent.session_id)
    delegated = continue_workflow(stateToken=first["stateToken"])
    assert delegated["pending"]["prompt"] == "Run the tests of billing at upgrade-branch."

    held = ack(parallel)
    assert held["kind"] == "blocked"
    assert [i["code"] for i in held["blocked"]["issues"]] == ["DELEGATIONS_PENDING"]
    assert first["runId"] in held["blocked"]["issues"][0]["message"]

    finish(first["stateToken"])
    assert Run.objects.get(public_id=first["runId"]).status == RunStatus.COMPLETE
    refreshed = continue_workflow(stateToken=held["stateToken"])
    assert refreshed["pending"]["delegations"][0]["status"] == "complete"
    synthesis = ack(held)  # the parallel step's synthesis runs as a step of its own
    assert synthesis["kind"] == "step" and synthesis["pending"]["stepId"] == "fan-out.synthesis"
    assert synthesis["pending"]["title"] == "Synthesize: Check in parallel"
    moved = ack(synthesis)
    assert moved["kind"] == "step" and moved["pending"]["stepId"] == "decide"
    assert Run.objects.filter(parent_run=parent).count() == 1  # a replay or a retry hands out nothing more

    before = snapshot()
    rebuild_projections()
    assert snapshot() == before


def test_a_rewind_that_reaches_the_parallel_step_again_hands_out_fresh_delegations(fanout):
    start = start_workflow(fanout, {"moduleName": "billing"})
    first_branch = ack(start)
    rewound = continue_workflow(stateToken=start["stateToken"])
    second_branch = ack(rewound)
    assert second_branch["pending"]["stepId"] == "fan-out"
    assert second_branch["pending"]["delegations"][0]["runId"] != first_branch["pending"]["delegations"][0]["runId"]
    assert Run.objects.filter(parent_run__public_id=start["session"]["runId"]).count() == 2


def test_two_delegations_both_finish_into_the_parent(fanout):
    start = start_workflow(fanout, {"moduleName": "billing", "nightly": True})
    parallel = ack(start)
    running = [d for d in parallel["pending"]["delegations"] if d.get("runId")]
    assert [d["index"] for d in running] == [0, 1]
    finish(running[0]["stateToken"])
    still = ack(parallel)
    assert [i["pointer"] for i in still["blocked"]["issues"]] == ["/pending/delegations/1"]
    finish(running[1]["stateToken"])
    moved = ack(ack(still))  # then the synthesis step
    assert moved["pending"]["stepId"] == "decide"
    done = finish(moved["stateToken"])
    assert done["isComplete"] and Run.objects.filter(status=RunStatus.COMPLETE).count() == 3


@pytest.fixture
def reviewers(service_catalog):
    """Three reviewer families that share one large fact packet, and a delegation to a missing workflow."""
    family = workflow_doc(
        "team.routine-reviewer-family",
        name="Reviewer family",
        steps=[{"id": "audit", "title": "Audit", "prompt": "Review {{familyName}} against {{reviewFactPacket}}."}],
    )
    delegated = [
        {
            "workflowId": "team.routine-reviewer-family",
            "goal": f"Look for {name} problems.",
            "contextMapping": {"factPacket": "reviewFactPacket"},
            "args": {"familyName": name},
        }
        for name in ("correctness", "security", "tests")
    ]
    parent = workflow_doc(
        "team.review",
        steps=[
            step_doc("facts", "Facts", "Freeze the facts."),
            parallel_doc(
                "families", "Reviewer families", [*delegated, {"workflowId": "team.linter", "goal": "Lint the diff."}]
            ),
        ],
    )
    write_json(service_catalog["extra"] / "family.json", family)
    write_json(service_catalog["extra"] / "review.json", parent)
    return "team.review"


def test_the_structured_answer_gives_shared_context_once_and_names_each_workflow(reviewers):
    packet = "diff summary, changed files, acceptance criteria " * 200
    parallel = ack(start_workflow(reviewers, {"factPacket": packet}))
    pending = parallel["pending"]
    assert pending["sharedContext"] == {"reviewFactPacket": packet}
    *families, linter = pending["delegations"]
    assert [d["context"] for d in families] == [{"familyName": n} for n in ("correctness", "security", "tests")]
    assert all(d["receivesSharedContext"] and d["workflowName"] == "Reviewer family" for d in families)
    assert len(json.dumps(parallel)) < len(packet) * 1.5  # the packet is sent once, not once per delegation
    assert not linter["available"] and "receivesSharedContext" not in linter
    assert "team.linter" in linter["fix"] and "WORKRAIL_WORKFLOW_PATHS" in linter["fix"]
    ExecutionResult.model_validate(parallel)

    delegated = continue_workflow(stateToken=families[1]["stateToken"])  # the run did get the whole context
    assert delegated["pending"]["prompt"] == f"Review security against {packet}."


def test_the_text_says_what_each_delegation_runs_why_with_what_and_how_to_work_on_it(reviewers):
    parallel = ack(start_workflow(reviewers, {"factPacket": "the facts"}))
    text = execution_text(parallel)
    first, second, third, linter = parallel["pending"]["delegations"]
    assert 'Shared context, which every delegated run receives: reviewFactPacket = "the facts"' in text
    assert f"1. team.routine-reviewer-family (Reviewer family): runs as {first['runId']} (in progress)." in text
    assert "   Why: Look for security problems." in text
    assert '   Context (besides the shared context): familyName = "tests"' in text
    for delegation in (first, second, third):
        assert f'continue_workflow {{"stateToken": "{delegation["stateToken"]}"}}' in text
    assert "4. team.linter: CANNOT RUN HERE" in text
    assert f"   Fix: {linter['fix']}" in text
    assert text.index("Delegations (4)") > text.index(parallel["pending"]["prompt"])
    assert "cannot run here yourself" in parallel["nextCall"]["instructions"]
