"""A workflow's `references` are resolved and shown when it starts (never read, never fatal), and
list_workflows warns about delegations to workflows the catalog does not have."""

from __future__ import annotations

import pytest

from runs.contract.execution import ExecutionResult
from runs.execution import catalog as catalog_service
from tests.support.mcp_calls import call, continue_workflow, start_workflow
from tests.support.texts import execution_text
from tests.support.workflow_files import parallel_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db

REFERENCES = [
    {
        "id": "policy",
        "title": "Changelog policy",
        "source": "docs/POLICY.md",
        "purpose": "Which changes users hear about.",
        "authoritative": True,
    },
    {
        "id": "style",
        "title": "Style sheet",
        "source": "styles/notes.md",
        "purpose": "Tone of the notes.",
        "authoritative": False,
        "resolveFrom": "package",
    },
    {
        "id": "gone",
        "title": "Old runbook",
        "source": "docs/RUNBOOK.md",
        "purpose": "How releases used to go.",
        "authoritative": False,
    },
]


@pytest.fixture
def referencing(service_catalog):
    project, extra = service_catalog["project"], service_catalog["extra"]
    (project / "docs").mkdir()
    (project / "docs" / "POLICY.md").write_text("policy", encoding="utf-8")
    (extra / "notes" / "styles").mkdir(parents=True)
    (extra / "notes" / "styles" / "notes.md").write_text("style", encoding="utf-8")
    write_json(extra / "notes" / "release.json", workflow_doc("team.release_notes", references=REFERENCES))
    return service_catalog


def test_start_shows_each_reference_resolved_and_says_which_cannot_be_found(referencing):
    started = start_workflow("team.release_notes")
    ExecutionResult.model_validate(started)
    policy, style, gone = started["references"]
    assert (policy["path"], policy["found"]) == (str(referencing["project"] / "docs" / "POLICY.md"), True)
    # A package reference ships with the workflow: it resolves beside the workflow file.
    assert (style["path"], style["found"]) == (str(referencing["extra"] / "notes" / "styles" / "notes.md"), True)
    assert (gone["found"], gone["resolveFrom"]) == (False, "workspace")
    assert started["kind"] == "step" and started["pending"]["stepId"] == "first-step"  # the start goes on

    text = execution_text(started)
    assert text.startswith("References (")
    assert (
        "- Changelog policy (docs/POLICY.md, authoritative: follow it strictly): Which changes users hear about. "
        f"[{policy['path']}]"
    ) in text
    assert f"- Old runbook (docs/RUNBOOK.md): How releases used to go. [NOT FOUND at {gone['path']}" in text
    assert text.index("References") < text.index("Step: First")

    later = continue_workflow(stateToken=started["stateToken"])
    assert "references" not in later  # shown at start only


def test_a_workflow_without_references_starts_without_the_section(service_catalog):
    write_json(service_catalog["extra"] / "plain.json", workflow_doc("team.plain"))
    started = start_workflow("team.plain")
    assert "references" not in started and "References" not in execution_text(started)


def test_list_workflows_warns_about_a_delegation_to_a_missing_workflow(service_catalog):
    fan_out = workflow_doc(
        "team.fan_out",
        steps=[parallel_doc("spread", "Spread", [{"workflowId": "team.nowhere", "goal": "Do the rest."}])],
    )
    path = write_json(service_catalog["extra"] / "fan_out.json", fan_out)
    listing = catalog_service.list_workflows(for_people=True).dump()  # what the dashboard and the API show
    [problem] = [w for w in listing["warnings"] if w["code"] == "UNKNOWN_DELEGATION"]
    assert (problem["file"], problem["pointer"], problem["workflowId"]) == (
        str(path),
        "/steps/0/parallelDelegations/0/workflowId",
        "team.fan_out",
    )
    assert "'team.nowhere'" in problem["message"] and problem["fix"]
    details = call("inspect_workflow", {"workflowId": "team.fan_out"})
    assert details["workflow"]["warningCount"] == 1 and "warnings" not in details["workflow"]
    assert (
        details["workflow"]["validateCommand"]
        == "python manage.py validate_workflow --configured --workflow team.fan_out"
    )
