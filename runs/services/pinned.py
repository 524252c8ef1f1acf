"""Pinned workflow snapshots, read once per process: a snapshot never changes (its key is its hash),
so caching it is always correct, and continue_workflow does not parse the workflow JSON every call."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from runs.models import PinnedWorkflow


@lru_cache(maxsize=64)
def compiled_workflow(workflow_hash: str) -> dict[str, Any]:
    compiled: dict[str, Any] = PinnedWorkflow.objects.values_list("compiled", flat=True).get(
        workflow_hash=workflow_hash
    )
    return compiled


@lru_cache(maxsize=64)
def steps_by_id(workflow_hash: str) -> dict[str, dict[str, Any]]:
    """Every compiled step of a pinned workflow, loop bodies included, by id."""
    from workflows_app.engine.tree import top_steps, walk

    return {step["id"]: step for step in walk(top_steps(compiled_workflow(workflow_hash)))}
