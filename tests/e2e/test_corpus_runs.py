"""Every workflow of WorkRail's corpus runs to completion over stdio, driven only by the responses.

The corpus test is skipped when the corpus is absent (see tests/helpers.py); the bundled one always runs.
"""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client

from tests.e2e.scripted_agent import run_to_completion

pytestmark = pytest.mark.e2e

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


def test_every_corpus_workflow_runs_to_completion(launch, corpus_dir):
    ids = sorted(json.loads(path.read_text())["id"] for path in corpus_dir.rglob("*.json"))
    params = launch(WORKRAIL_WORKFLOW_PATHS=str(corpus_dir))
    finished: dict[str, list[dict]] = {}

    async def session() -> None:
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            for workflow_id in ids:
                finished[workflow_id] = await run_to_completion(client, workflow_id, CONTEXTS.get(workflow_id))

    anyio.run(session)
    assert sorted(finished) == ids
    for workflow_id, responses in finished.items():
        assert responses[-1]["kind"] == "complete", workflow_id
        assert responses[-1]["workflow"]["id"] == workflow_id
    blocked = [r for responses in finished.values() for r in responses if r["kind"] == "blocked"]
    assert blocked, "validation criteria in the corpus should have blocked the scripted agent at least once"


def test_bundled_workflows_run_with_their_loops_and_branches(launch):
    params = launch()

    async def session() -> dict[str, list[dict]]:
        async with Client(params, mode="2026-07-28", read_timeout_seconds=60) as client:
            review = await run_to_completion(client, "wr.code_review", {"reviewAreas": ["api", "storage"]})
            bugs = await run_to_completion(client, "wr.bug_investigation", {"severity": "critical"})
            return {"review": review, "bugs": bugs}

    runs = anyio.run(session)
    review_steps = [r["pending"]["stepId"] for r in runs["review"] if r["pending"]]
    assert review_steps.count("review-area") >= 2
    areas = [r["pending"]["prompt"] for r in runs["review"] if r["pending"] and r["pending"]["stepId"] == "review-area"]
    assert any("api" in p for p in areas) and any("storage" in p for p in areas)
    bug_steps = [r["pending"]["stepId"] for r in runs["bugs"] if r["pending"]]
    assert "incident-note-and-guard" in bug_steps  # its runCondition holds for severity critical
    confirm = next(r for r in runs["bugs"] if r["pending"] and r["pending"]["stepId"] == "confirm-fix-plan")
    assert confirm["pending"]["requireConfirmation"] is True
