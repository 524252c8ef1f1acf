"""Step titles and prompts on pages and in reports: `{{placeholders}}` filled in as the agent saw them,
or named in a readable form where no value is at hand; never raw braces (issue 20)."""

from __future__ import annotations

import re

import pytest

from runs.models import Node, Run
from runs.readmodels import run_view, step_text
from tests.support.mcp_calls import checkpoint_workflow, start_workflow
from tests.support.sample_session import advance
from workflows_app.engine.templating import without_context

pytestmark = pytest.mark.django_db


def test_a_placeholder_without_a_value_is_named_in_brackets():
    assert without_context("Verify Slice {{currentIteration}}: {{ currentSlice }}") == (
        "Verify Slice [currentIteration]: [currentSlice]"
    )
    assert (
        without_context("Area {{areaIndex+1}} of {{reviewAreas.length}}")
        == "Area [areaIndex + 1] of [reviewAreas.length]"
    )
    assert step_text.as_written({"id": "s", "title": "Review {{area}}", "prompt": "{{x}}"}, "s") == (
        "Review [area]",
        "[x]",
    )


def checkpointed_in_a_loop():
    """A wr.risk_scaled_mr_review run stopped in its per-area loop ("Review {{area}}"), checkpointed there."""
    answer = start_workflow("wr.risk_scaled_mr_review", context={"sessionKey": "K-1", "changeRef": "MR !7"})
    while (answer.get("pending") or {}).get("stepId") != "review-area":
        answer = advance(answer, "Looked.")
    area = answer["pending"]["title"].removeprefix("Review ")
    checkpoint_workflow(stateToken=answer["stateToken"], output={"notesMarkdown": "Halfway through the area."})
    return Run.objects.get(public_id=answer["session"]["runId"]), area


def test_pages_show_step_titles_and_prompts_as_the_agent_saw_them(client, service_catalog):
    run, area = checkpointed_in_a_loop()
    detail = run_view.run_detail(run.public_id)
    checkpoint = next(step for step in detail.steps if step.kind == "checkpoint")
    assert checkpoint.title == f"Checkpoint during Review {area}"
    assert f"Review {area}" in {node.title for node in detail.graph.nodes}
    triage = next(step for step in detail.steps if step.step_id == "triage-change")
    assert "([changeRef])" in triage.prompt  # as written, the placeholder named (the node page fills it in)
    urls = [f"/sessions/{run.session.public_id}/", f"/runs/{run.public_id}/", "/"]
    urls += [f"/nodes/{pk}/" for pk in Node.objects.filter(run=run).values_list("public_id", flat=True)]
    for url in urls:
        html = client.get(url).content.decode()
        assert re.findall(r".{0,60}\{\{.{0,40}", html) == [], url
    assert f"Checkpoint during Review {area}" in client.get(f"/runs/{run.public_id}/").content.decode()
