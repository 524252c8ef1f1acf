"""Which of a session's checkpoints the session page lists on their own: those its run card does not
already show among the steps of the branch shown (a checkpoint there reads "Checkpoint during step 2"),
so that no checkpoint appears twice on one page; and none of another run, which its own run page shows (in
the shown run's column it read as this run's)."""

from __future__ import annotations

from runs.contract.dashboard import CheckpointEntry, StepEntry


def not_among(checkpoints: list[CheckpointEntry], steps: list[StepEntry]) -> list[CheckpointEntry]:
    """`checkpoints` without those listed in `steps` (the same node, recorded at the same moment)."""
    listed = {(step.node_id, step.recorded_at) for step in steps if step.kind == "checkpoint"}
    return [c for c in checkpoints if (c.node_id, c.created_at) not in listed]


def of_shown_run(checkpoints: list[CheckpointEntry], run_id: str | None) -> list[CheckpointEntry]:
    """`checkpoints` of the run shown (`run_id`) or of no run (the session's own notes)."""
    return [c for c in checkpoints if c.run_id is None or c.run_id == run_id]
