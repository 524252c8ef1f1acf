"""The node page's "why this step", in plain words, from the traces the engine recorded."""

from __future__ import annotations

import pytest

from runs.execution.operator_fork import fork_node
from runs.models import Ack, Node
from runs.readmodels.trace import (
    CHECKPOINT,
    NOT_BY_AN_ADVANCE,
    NOT_RECORDED,
    STARTED_BY_HAND,
    node_trace,
    trace_view,
)
from tests.support.mcp_calls import checkpoint_workflow, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release
from tests.support.traced_run import install, traced_run

pytestmark = pytest.mark.django_db


def lines(node_id: str) -> list[str]:
    view = node_trace(node_id)
    assert view.recorded, view.missing
    return [line.text for line in view.lines]


def test_each_node_says_which_steps_were_skipped_or_selected_and_why(service_catalog):
    install(service_catalog["extra"])
    run = traced_run()
    assert lines(run.node_at("intake")) == ["Went on to Intake, the next step in the workflow (it has no condition)."]
    assert lines(run.node_at("phase-1")) == [
        "Skipped Phase 0b: it runs only if task complexity is 'Small', and task complexity is 'Large'. "
        "[condition: `taskComplexity == 'Small'`]",
        "Went on to Phase 1, the next step in the workflow (it has no condition).",
    ]
    assert lines(run.node_at("verify", 0)) == [
        "Skipped Update the docs: it runs only if touches docs is true, and touches docs is not set. "
        "[condition: `touchesDocs`]",
        "Started loop Verify slices: 3 rounds because slice count is 3; this is round 1 of 3.",
        "Went on to Verify slice 1, the next step in the workflow (it has no condition).",
    ]
    assert lines(run.node_at("verify", 1)) == [
        "Next round of loop Verify slices: this is round 2 of 3 (3 rounds because slice count is 3).",
        "Went on to Verify slice 2, the next step in the workflow (it has no condition).",
    ]
    assert lines(run.node_at("wrap-up")) == [
        "Finished loop Verify slices: all 3 rounds done (slice count is 3).",
        "Skipped loop Polish: it repeats while polish rounds is more than 0, and polish rounds is 0. "
        "[condition: `polishRounds > 0`]",
        "Went on to Wrap up, the next step in the workflow (it has no condition).",
    ]
    complete = Node.objects.get(run__public_id=run.run_id, is_complete=True)
    assert lines(str(complete.public_id)) == ["Finished: no step was left, so the run is complete."]


def test_only_a_trace_where_something_chose_the_step_is_worth_showing(service_catalog):
    install(service_catalog["extra"])
    run = traced_run()
    complete = Node.objects.get(run__public_id=run.run_id, is_complete=True)
    # Going on to the next step, or finishing, is the workflow's own order: nothing decided it.
    assert not node_trace(run.node_at("intake")).decided
    assert not node_trace(str(complete.public_id)).decided
    # A skip, a loop round, a loop that did not run: something did.
    for node in (run.node_at("phase-1"), run.node_at("verify", 1), run.node_at("wrap-up")):
        assert node_trace(node).decided


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


def words(*entries: dict) -> list[str]:
    view = trace_view({"entries": list(entries)})
    assert view.recorded, view.missing
    return [line.words for line in view.lines]


def check(expression: str, result: bool, *values: list, condition: dict | None = None) -> dict:
    kept = {"condition": condition} if condition is not None else {}
    return {"expression": expression, "result": result, "values": list(values), **kept}


def test_a_line_never_says_a_condition_was_false_and_its_variable_not_set_in_one_breath(service_catalog):
    install(service_catalog["extra"])
    run = traced_run(until="phase-1")
    said = node_trace(run.node_at("phase-1")).text + node_trace(run.node_at("intake")).text
    for jargon in ("runCondition", "was false (", "Selected:", "— no condition", "iteration"):
        assert jargon not in said


def test_every_kind_of_loop_and_condition_reads_as_plain_words():
    loop = {"kind": "loop_started", "stepId": "l", "title": "Review files"}
    assert words(
        {
            **loop,
            "loop": {
                "type": "forEach",
                "iteration": 1,
                "maxIterations": 9,
                "total": 2,
                "source": "files",
                "item": "'a.py'",
            },
        }
    ) == [
        "Started loop Review files: one round per item of files (2 items); this is round 1 of 2, for the item 'a.py'."
    ]
    assert words(
        {
            **loop,
            "kind": "loop_repeated",
            "loop": {
                "type": "until",
                "iteration": 2,
                "maxIterations": 9,
                "check": check("done", False, ["done", None], condition={"var": "done"}),
            },
        }
    ) == ["Next round of loop Review files: it repeats until done is true, and done is not set; this is round 2."]
    assert words({**loop, "loop": {"type": "while", "iteration": 1, "maxIterations": 9}}) == [
        "Started loop Review files: this is round 1; the agent says after each round whether to go on."
    ]
    assert words(
        {
            **loop,
            "kind": "loop_ended",
            "loop": {"type": "while", "iteration": 2, "maxIterations": 9, "decision": "stop", "endedBy": "decision"},
        }
    ) == ["Finished loop Review files after 2 rounds: the agent asked to stop."]
    assert words(
        {
            **loop,
            "kind": "loop_ended",
            "loop": {"type": "while", "iteration": 3, "maxIterations": 3, "endedBy": "max_iterations"},
        }
    ) == ["Stopped loop Review files after 3 rounds: that is its limit, although it would have gone on."]
    assert words(
        {
            **loop,
            "kind": "loop_not_run",
            "loop": {
                "type": "forEach",
                "iteration": 0,
                "maxIterations": 9,
                "total": 0,
                "source": "files",
                "endedBy": "items",
            },
        }
    ) == ["Skipped loop Review files: files has no items."]
    condition = {"or": [{"var": "a", "gt": 1}, {"var": "b", "in": ["x", "y"]}]}
    compound = {
        "kind": "selected",
        "stepId": "s",
        "title": "Deploy",
        "check": check("a > 1 or b in ['x', 'y']", True, ["a", "2"], ["b", None], condition=condition),
    }
    view = trace_view({"entries": [compound]})
    assert view.lines[0].words == (
        "Went on to Deploy: it runs only if a is more than 1 or b is one of 'x' or 'y', which was true "
        "(a is 2 and b is not set)."
    )
    assert view.lines[0].conditions == ("a > 1 or b in ['x', 'y']",)


def test_a_trace_stored_before_conditions_were_kept_still_reads():
    """Such a check has only the condition's text: the words never come from reading it back."""
    old = {"kind": "skipped", "stepId": "s", "title": "Deploy", "check": check("ship", False, ["ship", None])}
    view = trace_view({"entries": [old]})
    said = "Skipped Deploy: it runs only if its condition holds, which was false (ship is not set)."
    assert view.lines[0].words == said
    assert view.lines[0].conditions == ("ship",)


def test_a_node_stored_before_conditions_were_kept_takes_them_from_the_pinned_workflow(service_catalog):
    install(service_catalog["extra"])
    run = traced_run()
    node = Node.objects.get(public_id=run.node_at("phase-1"))
    stored = node.trace
    for entry in stored["entries"]:
        if "check" in entry:
            del entry["check"]["condition"]
    Node.objects.filter(pk=node.pk).update(trace=stored)
    assert lines(run.node_at("phase-1"))[0] == (
        "Skipped Phase 0b: it runs only if task complexity is 'Small', and task complexity is 'Large'. "
        "[condition: `taskComplexity == 'Small'`]"
    )


def test_a_branch_started_by_hand_says_no_workflow_rule_chose_its_step(service_catalog):
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    root = Node.objects.get(run__public_id=start["session"]["runId"], parent=None)
    forked = fork_node(str(root.public_id), {"target": "production"}, "Ship it.", via="dashboard")
    assert node_trace(forked.node_id).text == STARTED_BY_HAND
    assert STARTED_BY_HAND.startswith("This branch was started by hand, so no workflow rule chose this step")


def test_a_branch_started_by_hand_from_a_done_step_is_not_called_the_pending_one(service_catalog):
    # A person can branch from a step that was already done (the hand-over redoes "Prepare" while "Deploy to
    # staging" was pending): the words name the step the branch was started from, true in both cases.
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    root = Node.objects.get(run__public_id=start["session"]["runId"], parent=None)
    forked = fork_node(str(root.public_id), {"target": "production"}, "Ship it.", via="dashboard")
    said = node_trace(forked.node_id).text
    assert "pending" not in said
    assert said.endswith("it is the step the branch was started from, with the inputs as edited then.")
