"""Output contracts: named from the registry or declared in the step; artifacts are of closed kinds."""

import pytest

from tests.support.mcp_calls import continue_workflow, start_workflow
from tests.support.workflow_files import workflow_doc, write_json
from workflows_app.diagnostics import Code
from workflows_app.structure import structure_diagnostics

pytestmark = pytest.mark.django_db

RELEASE_NOTES = {
    "contractRef": "team.release_notes",
    "artifactKind": "team.release_notes",
    "schema": {
        "type": "object",
        "required": ["kind", "version", "highlights"],
        "properties": {
            "kind": {"const": "team.release_notes"},
            "version": {"type": "string"},
            "highlights": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        },
    },
    "example": {"version": "1.2.0", "highlights": ["Faster start-up"]},
}


def release_workflow():
    return workflow_doc(
        "team.release",
        steps=[
            {"id": "notes", "title": "Write release notes", "prompt": "Write them.", "outputContract": RELEASE_NOTES},
            {"id": "ship", "title": "Ship", "prompt": "Ship it."},
        ],
    )


def test_an_inline_contract_is_compiled_into_the_step_and_enforced(service_catalog):
    write_json(service_catalog["extra"] / "release.json", release_workflow())
    start = start_workflow("team.release")
    contract = start["pending"]["outputContract"]
    assert contract["artifactKind"] == "team.release_notes"
    assert contract["example"] == {"kind": "team.release_notes", "version": "1.2.0", "highlights": ["Faster start-up"]}
    arguments = {"stateToken": start["stateToken"], "ackToken": start["ackToken"]}
    missing = continue_workflow(**arguments, output={"notesMarkdown": "done"})
    assert missing["blocked"]["issues"][0]["code"] == "ARTIFACT_MISSING"
    bad = {"kind": "team.release_notes", "version": "1.2.0", "highlights": []}
    refused = continue_workflow(
        stateToken=start["stateToken"], ackToken=missing["ackToken"], output={"artifacts": [bad]}
    )
    assert refused["kind"] == "blocked"  # held in place with a retry ack, as any output the step cannot take
    assert [(i["code"], i["pointer"]) for i in refused["blocked"]["issues"]] == [
        ("ARTIFACT_INVALID", "/output/artifacts/0/highlights")
    ]
    good = continue_workflow(
        stateToken=start["stateToken"], ackToken=refused["ackToken"], output={"artifacts": [contract["example"]]}
    )
    assert good["pending"]["stepId"] == "ship"


def test_a_registry_artifact_of_another_run_kind_is_accepted_and_unknown_kinds_are_not(service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    finding = {"severity": "Minor", "title": "Typo", "location": {"file": "a.py"}, "rationale": "r", "suggestion": "s"}
    ok = {"kind": "mr_review.findings", "findings": [finding]}
    moved = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output={"notesMarkdown": "x", "artifacts": [ok]}
    )
    assert moved["kind"] == "step"
    refused = continue_workflow(
        stateToken=moved["stateToken"],
        ackToken=moved["ackToken"],
        output={"notesMarkdown": "x", "artifacts": [{"kind": "team.release_notes"}]},
    )
    issue = refused["blocked"]["issues"][0]
    assert (issue["code"], issue["pointer"]) == ("ARTIFACT_INVALID", "/output/artifacts/0/kind")
    assert "mr_review.changed_files, mr_review.findings, wr.assessment" in issue["message"]
    assert "wr.loop_control" in issue["message"]


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"example": {"version": 3, "highlights": ["x"]}}, "/steps/0/outputContract/example"),
        ({"schema": {"type": "nonsense"}}, "/steps/0/outputContract/schema"),
        ({"artifactKind": "wr.loop_control"}, "/steps/0/outputContract/artifactKind"),
    ],
)
def test_broken_inline_contracts_are_reported_at_load(change, pointer):
    document = release_workflow()
    document["steps"][0]["outputContract"] = {**RELEASE_NOTES, **change}
    assert [(d.code, d.pointer) for d in structure_diagnostics(document)] == [(Code.INVALID_CONTRACT, pointer)]
