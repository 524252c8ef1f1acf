"""The node page's "why this step", in plain words, from the traces the engine recorded."""

from __future__ import annotations

import pytest

from runs.models import Ack, Node
from runs.readmodels.trace import CHECKPOINT, NOT_BY_AN_ADVANCE, NOT_RECORDED, node_trace, trace_view
from tests.support.mcp_calls import checkpoint_workflow
from tests.support.traced_run import install, traced_run

pytestmark = pytest.mark.django_db


def lines(node_id: str) -> list[str]:
    view = node_trace(node_id)
    assert view.recorded, view.missing
    return [line.text for line in view.lines]


def test_each_node_says_which_steps_were_skipped_or_selected_and_why(service_catalog):
    install(service_catalog["extra"])
    run = traced_run()
    assert lines(run.node_at("intake")) == ["Selected: Intake — no condition"]
    assert lines(run.node_at("phase-1")) == [
        "Skipped: Phase 0b — runCondition `taskComplexity == 'Small'` was false (taskComplexity = 'Large')",
        "Selected: Phase 1 — no condition",
    ]
    assert lines(run.node_at("verify", 0)) == [
        "Skipped: Update the docs — runCondition `touchesDocs` was false (touchesDocs is not set)",
        "Loop Verify slices: iteration 1 of 3 (start: count `sliceCount` = 3)",
        "Selected: Verify slice 1 — no condition",
    ]
    assert lines(run.node_at("verify", 1)) == [
        "Loop Verify slices: iteration 2 of 3 (continue: count `sliceCount` = 3)",
        "Selected: Verify slice 2 — no condition",
    ]
    assert lines(run.node_at("wrap-up")) == [
        "Loop Verify slices: ended after 3 iterations (stop: all 3 iterations of the count `sliceCount` done)",
        "Loop Polish: ran no iteration (stop: `polishRounds > 0` was false (polishRounds = 0))",
        "Selected: Wrap up — no condition",
    ]
    complete = Node.objects.get(run__public_id=run.run_id, is_complete=True)
    assert lines(str(complete.public_id)) == ["Completed: no step was left, so the run is complete."]


def test_a_node_without_a_trace_says_why_it_has_none(service_catalog):
    install(service_catalog["extra"])
    run = traced_run(until="phase-1")
    checkpoint_workflow(stateToken=run.answers[-1]["stateToken"], output={"notesMarkdown": "Halfway."})
    made = Node.objects.filter(run__public_id=run.run_id, pending_step_id="phase-1").order_by("depth").last()
    assert made is not None
    assert node_trace(str(made.public_id)).text == CHECKPOINT
    before = Node.objects.filter(run__public_id=run.run_id, pending_step_id="intake").get()
    Node.objects.filter(pk=before.pk).update(trace=None)  # as a node recorded before traces were kept
    assert node_trace(str(before.public_id)).text == NOT_RECORDED
    advanced = Node.objects.filter(run__public_id=run.run_id, pending_step_id="phase-1").order_by("depth").first()
    assert advanced is not None
    Node.objects.filter(pk=advanced.pk).update(trace=None)
    assert node_trace(str(advanced.public_id)).text == NOT_RECORDED  # an advance led here: made before traces
    Ack.objects.filter(child=advanced).delete()  # as a node some other door made (an operator's fork, say)
    assert node_trace(str(advanced.public_id)).text == NOT_BY_AN_ADVANCE


def test_a_trace_that_cannot_be_read_is_said_so_not_shown_half():
    view = trace_view({"entries": [{"kind": "exploded"}]})
    assert not view.recorded and "could not be read" in view.missing


def test_decisions_left_out_are_counted_in_words():
    view = trace_view({"entries": [{"kind": "completed", "stepId": "", "title": ""}], "omitted": 3})
    assert view.omitted.startswith("3 more decisions taken before the last one were not kept")
