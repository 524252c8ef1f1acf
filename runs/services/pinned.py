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
