"""Which of a session's checkpoints the session page lists on their own: those its run card does not
already show among the steps of the branch shown (a checkpoint there reads "Checkpoint during step 2"),
so that no checkpoint appears twice on one page."""

from __future__ import annotations

from runs.contract.dashboard import CheckpointEntry, StepEntry


def not_among(checkpoints: list[CheckpointEntry], steps: list[StepEntry]) -> list[CheckpointEntry]:
    """`checkpoints` without those listed in `steps` (the same node, recorded at the same moment)."""
    listed = {(step.node_id, step.recorded_at) for step in steps if step.kind == "checkpoint"}
    return [c for c in checkpoints if (c.node_id, c.created_at) not in listed]
