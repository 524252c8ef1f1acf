"""Workflows as MCP prompts: one per workflow, arguments from the context its first decisions read."""

import pytest

from runs.contract.errors import WorkRailError
from runs.mcp import prompts
from tests.support.workflow_files import workflow_doc, write_json

pytestmark = pytest.mark.django_db


def test_every_workflow_is_a_prompt_and_routines_are_not(service_catalog):
    names = [prompt["name"] for prompt in prompts.list_prompts()]
    assert "wr.evidence_first_bug_fix" in names and "wr.code_review" in names
    assert not [name for name in names if "routine-" in name]


def test_a_prompt_starts_its_workflow_with_the_arguments_as_typed_context(service_catalog):
    steps = [
        {"id": "check", "title": "Check", "prompt": "Check whether it is urgent."},
        {"id": "page", "title": "Page", "prompt": "Page someone.", "runCondition": {"var": "urgent", "equals": True}},
    ]
    write_json(service_catalog["extra"] / "triage.json", workflow_doc("team.triage", steps=steps))
    [described] = [p for p in prompts.list_prompts() if p["name"] == "team.triage"]
    assert [a["name"] for a in described["arguments"]] == ["task", "urgent"]
    rendered = prompts.render("team.triage", {"task": "disk full", "urgent": "true"})
    text = rendered["messages"][0]["content"]["text"]
    assert '{"workflowId": "team.triage", "context": {"task": "disk full", "urgent": true}}' in text
    plain = prompts.render("team.triage", {})["messages"][0]["content"]["text"]
    assert '{"workflowId": "team.triage"}' in plain


def test_unknown_workflows_routines_and_arguments_are_refused(service_catalog):
    for name, arguments, code in [
        ("team.nothing", {}, "WORKFLOW_NOT_FOUND"),
        ("wr.routine-focused_plan", {}, "WORKFLOW_NOT_FOUND"),
        ("wr.evidence_first_bug_fix", {"colour": "red"}, "INVALID_INPUT"),
    ]:
        with pytest.raises(WorkRailError) as raised:
            prompts.render(name, arguments)
        assert raised.value.code.value == code
