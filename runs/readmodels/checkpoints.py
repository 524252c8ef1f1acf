"""Which of a session's checkpoints the session page lists on their own: those its run card does not
already show among the steps of the branch shown (a checkpoint there reads "Checkpoint during step 2"),
so that no checkpoint appears twice on one page; and none of another run, which its own run page shows (in
the shown run's column it read as this run's). And how the run page's steps list shows a checkpoint: as a
mark on the step it was saved during, after that step's answer (`on_their_steps`), not as another step."""

from __future__ import annotations

from dataclasses import dataclass, field

from runs.contract.dashboard import BranchOutcomeEntry, CheckpointEntry, StepEntry


def not_among(checkpoints: list[CheckpointEntry], steps: list[StepEntry]) -> list[CheckpointEntry]:
    """`checkpoints` without those listed in `steps` (the same node, recorded at the same moment)."""
    listed = {(step.node_id, step.recorded_at) for step in steps if step.kind == "checkpoint"}
    return [c for c in checkpoints if (c.node_id, c.created_at) not in listed]


def of_shown_run(checkpoints: list[CheckpointEntry], run_id: str | None) -> list[CheckpointEntry]:
    """`checkpoints` of the run shown (`run_id`) or of no run (the session's own notes)."""
    return [c for c in checkpoints if c.run_id is None or c.run_id == run_id]


@dataclass(frozen=True, slots=True)
class ListedStep:
    """An entry of a run page's steps list: a step's answer with the checkpoints saved while it was pending
    (marks after its answer), or a checkpoint whose step is not answered yet (an entry of its own)."""

    step: StepEntry
    checkpoints: list[StepEntry] = field(default_factory=list)


def on_their_steps(steps: list[StepEntry]) -> list[ListedStep]:
    """`steps` (a branch's steps list, in path order) with each checkpoint folded into the answer to the step
    it was saved during: the next answer given at its node or at the node it made (the agent answers from the
    checkpoint's token), listed after that answer, as the graph marks it on that step's card (graph_story.py).
    A checkpoint saved at a step still pending stays in its place: no answer to mark yet."""
    waiting: dict[str, list[int]] = {}  # a node id -> the checkpoints (indices) saved at its step, not yet placed
    placed: dict[int, list[int]] = {}  # an answer's index -> its checkpoints' indices
    for index, entry in enumerate(steps):
        if entry.kind == "checkpoint":
            saved = waiting.pop(entry.node_id, [])
            saved.append(index)
            waiting[entry.node_id] = saved
            if entry.child_id is not None:
                waiting[entry.child_id] = saved
            continue
        saved = waiting.pop(entry.node_id, [])
        if saved:
            placed[index] = list(saved)
            saved.clear()  # the same list under the other node id: placed once
    folded = {checkpoint for marks in placed.values() for checkpoint in marks}
    return [
        ListedStep(entry, [steps[mark] for mark in placed.get(index, [])])
        for index, entry in enumerate(steps)
        if index not in folded
    ]


# The steps list's newest entries shown; the earlier ones wait in one fold (friction24a 15, 24b 12: the graph
# above draws every step already, and the list made a long page longer). Folded only when that hides two or more.
LATEST_SHOWN = 3


@dataclass(frozen=True)
class StepsList:
    """A branch's listed steps in two parts, in path order: `earlier` (folded, "Earlier steps (N)") and
    `latest` (the current step and the ones just before it, always shown). `earlier` is empty when folding
    would hide fewer than two."""

    earlier: list[ListedStep]
    latest: list[ListedStep]


def latest_first_fold(listed: list[ListedStep], keep: int = LATEST_SHOWN) -> StepsList:
    """`listed` split so that the last `keep` entries show and the rest fold (see StepsList)."""
    if len(listed) - keep < 2:
        return StepsList([], list(listed))
    return StepsList(listed[:-keep], listed[-keep:])


def none_listed_words(branch: BranchOutcomeEntry | None) -> str:
    """The steps list's line while its branch has no answer yet: the step it waits at, as the page's head names
    it (friction60b 5: "No step recorded on this branch yet" under a graph drawing branch 2 paused at Prepare)."""
    if branch is None or not branch.step_named:
        return "No step recorded on this branch yet."
    if branch.awaiting_agent:
        return f"{branch.step_named} waits for an agent."
    return f"{branch.step_named}: not answered yet."
