"""Every workflow of WorkRail's corpus runs to completion through the SDK's client and the MCP
server in this process, driven only by the responses.

The corpus test is skipped when the corpus is absent (see tests/support/corpus.py); the bundled one always runs.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from tests.support.scripted_agent import run_to_completion
from workflows_app.sources import BUNDLED_DIR

# What a user would tell the agent up front for some workflows, so that their conditional branches,
# validated steps and item loops run too (without it they are skipped, which is also covered).
CONTEXTS = {
    "workrail.personal-learning-materials": {"thoroughnessLevel": "Comprehensive"},
    "workrail.adaptive-ticket-creation": {"pathComplexity": "Epic"},
    "workrail.cross-platform-code-conversion": {
        "conversionComplexity": "Large",
        "adaptationProfile": "high",
        "bucketBCBatches": ["batch-1", "batch-2"],
    },
    "workrail.relocation-us": {"screeningBatches": [["Austin"], ["Denver"]], "shortlist": ["Austin"]},
    "simple-batch-example": {"items": ["a", "b", "c"]},
}
# The same for every bundled workflow: item loops get two items; the scripted agent answers the rest
# (each expected context value with the first value the workflow compares it with, so conditional
# steps run, and what only the user can give once it is blocked for it).
BUNDLED_CONTEXTS: dict[str, dict[str, Any]] = {
    "wr.evidence_first_bug_fix": {"severity": "critical"},
    "wr.code_review": {"reviewAreas": ["api", "storage"]},
    "wr.change_in_slices": {"slices": ["Add the CSV writer", "Add the export button"]},
    "wr.risk_scaled_mr_review": {"reviewAreas": ["api", "storage"]},
    "wr.routine-focused_plan": {},
    "wr.workflow_authoring": {},
}


def test_every_corpus_workflow_runs_to_completion(mcp_server, corpus_dir):
    ids = sorted(json.loads(path.read_text())["id"] for path in corpus_dir.rglob("*.json"))
    server = mcp_server.configure(WORKRAIL_WORKFLOW_PATHS=[corpus_dir])
    finished: dict[str, list[dict]] = {}

    async def session() -> None:
        async with mcp_server.client(server, mode="legacy") as client:
            for workflow_id in ids:
                finished[workflow_id] = await run_to_completion(client, workflow_id, CONTEXTS.get(workflow_id))

    anyio.run(session)
    assert sorted(finished) == ids
    for workflow_id, responses in finished.items():
        assert responses[-1]["kind"] == "complete", workflow_id
        assert responses[-1]["workflow"]["id"] == workflow_id
    blocked = [r for responses in finished.values() for r in responses if r["kind"] == "blocked"]
    assert blocked, "validation criteria in the corpus should have blocked the scripted agent at least once"


def test_bundled_workflows_run_with_their_loops_and_branches(mcp_server):
    assert sorted(BUNDLED_CONTEXTS) == sorted(path.stem for path in BUNDLED_DIR.glob("*.json"))

    async def session() -> dict[str, list[dict]]:
        async with mcp_server.client(mode="2026-07-28") as client:
            return {
                workflow_id: await run_to_completion(client, workflow_id, context or None)
                for workflow_id, context in BUNDLED_CONTEXTS.items()
            }

    runs = anyio.run(session)
    for workflow_id, responses in runs.items():
        assert responses[-1]["kind"] == "complete", workflow_id
        assert responses[-1]["workflow"]["id"] == workflow_id

    def steps_of(workflow_id: str) -> list[str]:
        return [r["pending"]["stepId"] for r in runs[workflow_id] if r["pending"]]

    def pending_of(workflow_id: str, step_id: str) -> dict:
        return next(r["pending"] for r in runs[workflow_id] if r["pending"] and r["pending"]["stepId"] == step_id)

    review_steps = steps_of("wr.code_review")
    assert review_steps.count("review-area") >= 2
    areas = [
        r["pending"]["prompt"]
        for r in runs["wr.code_review"]
        if r["pending"] and r["pending"]["stepId"] == "review-area"
    ]
    assert any("api" in p for p in areas) and any("storage" in p for p in areas)
    bug_steps = steps_of("wr.evidence_first_bug_fix")
    assert "incident-note-and-guard" in bug_steps  # its runCondition holds for severity critical
    assert pending_of("wr.evidence_first_bug_fix", "confirm-fix-plan")["requireConfirmation"] is True

    # Coding task: the agent answered riskLevel "high" and allChecksPass false, so both gates ran; the
    # loop ran once per planned slice.
    coding_steps = steps_of("wr.change_in_slices")
    assert {"confirm-plan", "implement-slice", "verify-slice", "resolve-failures", "hand-off"} <= set(coding_steps)
    assert coding_steps.count("implement-slice") == 2
    assert pending_of("wr.change_in_slices", "confirm-plan")["requireConfirmation"] is True
    # MR review: the user named the change; complexity "complex" traced the impact and
    # deepened each area's pass; postComments true posted the confirmed comments.
    mr = runs["wr.risk_scaled_mr_review"]
    # What only the user can give is asked for up front, at the step that needs it (not only after a block).
    assert mr[0]["nextCall"]["arguments"]["context"]["changeRef"].startswith("<fill in from the user")
    mr_steps = steps_of("wr.risk_scaled_mr_review")
    assert mr_steps.count("review-area") >= 2 and {"trace-impact", "post-comments"} <= set(mr_steps)
    assert pending_of("wr.risk_scaled_mr_review", "confirm-comments")["requireConfirmation"] is True
    # Workflow authoring: the goal came from the user; the draft went through the server's checks.
    authoring_steps = steps_of("wr.workflow_authoring")
    assert {"study-existing", "submit-draft", "review-draft", "save-workflow"} <= set(authoring_steps)
