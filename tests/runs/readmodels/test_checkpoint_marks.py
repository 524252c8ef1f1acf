"""runs/readmodels/checkpoints.py on_their_steps: a checkpoint is a mark on the step it was saved during, listed
after that step's answer, not a step of its own before it (ninth review item 5)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from runs.contract.dashboard import StepEntry
from runs.readmodels.checkpoints import latest_first_fold, on_their_steps

AT = datetime(2026, 11, 29, 10, 41, tzinfo=UTC)


def entry(kind: str, node: str, child: str | None, title: str, minute: int) -> StepEntry:
    return StepEntry.model_construct(
        node_id=node, child_id=child, kind=kind, title=title, recorded_at=AT + timedelta(minutes=minute)
    )


def test_a_checkpoint_follows_the_answer_to_its_step_as_a_mark():
    triage = entry("step", "1", "2", "Triage", 0)
    saved = entry("checkpoint", "2", "3", "Checkpoint during Post", 1)  # made node 3, at the same step
    again = entry("checkpoint", "3", "4", "Checkpoint during Post", 2)  # a second one, from the first's token
    post = entry("step", "4", "5", "Post", 3)  # answered from the last checkpoint's token
    listed = on_their_steps([triage, saved, again, post])
    assert [(item.step.title, [c.recorded_at for c in item.checkpoints]) for item in listed] == [
        ("Triage", []),
        ("Post", [saved.recorded_at, again.recorded_at]),
    ]


def test_a_checkpoint_whose_step_is_still_pending_keeps_its_place():
    triage = entry("step", "1", "2", "Triage", 0)
    saved = entry("checkpoint", "2", "3", "Checkpoint during Post", 1)
    assert [(item.step.kind, item.checkpoints) for item in on_their_steps([triage, saved])] == [
        ("step", []),
        ("checkpoint", []),
    ]


def test_a_long_list_shows_its_newest_three_and_folds_the_earlier_ones():
    steps = [entry("step", str(n), str(n + 1), f"Step {n}", n) for n in range(1, 8)]
    split = latest_first_fold(on_their_steps(steps))
    assert [item.step.title for item in split.latest] == ["Step 5", "Step 6", "Step 7"]
    assert [item.step.title for item in split.earlier] == ["Step 1", "Step 2", "Step 3", "Step 4"]
    # Folding one step alone saves nothing: four steps all show.
    four = latest_first_fold(on_their_steps(steps[:4]))
    assert four.earlier == [] and [item.step.title for item in four.latest] == ["Step 1", "Step 2", "Step 3", "Step 4"]
