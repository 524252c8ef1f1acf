"""`wr.workflow_draft` artifacts are checked exactly as `manage.py validate_workflow` checks a file."""

import pytest

from tests.support.checks import error_code
from tests.support.mcp_calls import checkpoint_workflow, continue_workflow, start_workflow
from tests.support.workflow_files import step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db
DRAFT = {"contractRef": "wr.contracts.workflow_draft"}


@pytest.fixture
def drafting(service_catalog):
    steps = [
        step_doc("draft", "Draft the workflow", "Write the workflow and send it as a draft.", outputContract=DRAFT),
        step_doc("save", "Save it", "Save the file."),
    ]
    write_json(service_catalog["extra"] / "drafting.json", workflow_doc("team.drafting", steps=steps))
    return start_workflow("team.drafting")


def draft(document):
    return {"kind": "wr.workflow_draft", "workflow": document}


def test_a_draft_that_would_not_load_keeps_the_step_pending_with_pointers_into_it(drafting):
    broken = workflow_doc(
        "team.release",
        steps=[
            {"id": "a-step", "title": "A", "prompt": "p", "runCondition": {"var": "x", "gt": "many"}},
        ],
    )
    blocked = continue_workflow(
        stateToken=drafting["stateToken"], ackToken=drafting["ackToken"], output={"artifacts": [draft(broken)]}
    )
    assert blocked["kind"] == "blocked"
    pointers = {issue["pointer"] for issue in blocked["blocked"]["issues"]}
    assert "/output/artifacts/0/workflow/steps/0/runCondition/gt" in pointers
    assert all(issue["code"] == "ARTIFACT_INVALID" for issue in blocked["blocked"]["issues"])
    fixed = continue_workflow(
        stateToken=blocked["stateToken"],
        ackToken=blocked["ackToken"],
        output={"artifacts": [draft(workflow_doc("team.release"))]},
    )
    assert fixed["kind"] == "step" and fixed["pending"]["stepId"] == "save"


def test_a_draft_in_the_reserved_namespace_is_refused_as_the_loader_refuses_the_file(drafting):
    blocked = continue_workflow(
        stateToken=drafting["stateToken"],
        ackToken=drafting["ackToken"],
        output={"artifacts": [draft(workflow_doc("wr.mine"))]},
    )
    assert [i["pointer"] for i in blocked["blocked"]["issues"]] == ["/output/artifacts/0/workflow/id"]
    assert "RESERVED_NAMESPACE" in blocked["blocked"]["issues"][0]["message"]


def test_a_checkpoint_refuses_a_broken_draft(drafting):
    code = error_code(
        lambda: checkpoint_workflow(
            stateToken=drafting["stateToken"], output={"artifacts": [draft({"id": "team.x", "steps": []})]}
        )
    )
    assert code == "ARTIFACT_INVALID"
