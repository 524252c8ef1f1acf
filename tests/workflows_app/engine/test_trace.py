"""Every start and advance returns a trace of what it evaluated: the runConditions (with the context
values they read), the loops (condition, count, items or decision, and the iteration) and the step
selected; bounded whatever the context holds; and its JSON reads back to the same trace."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.workflows_app.engine.builders import NOTES, loop, loop_control, run, step, workflow
from workflows_app.condition_words import CODE, describe, preview
from workflows_app.engine import advance, start
from workflows_app.engine.trace import (
    MAX_ENTRIES,
    MAX_VALUE_CHARS,
    Check,
    Entry,
    LoopState,
    Trace,
    TraceError,
)


def entries(trace: Trace) -> list[tuple[str, str]]:
    return [(entry.kind, entry.step_id) for entry in trace.entries]


def test_a_skipped_conditional_step_records_its_condition_and_the_value_it_read():
    compiled = workflow(
        step("intake"),
        step("phase-0b", title="Phase 0b", runCondition={"var": "taskComplexity", "equals": "Small"}),
        step("phase-1", title="Phase 1"),
    )
    begun = start(compiled, {"taskComplexity": "Large"})
    assert begun.trace.entries == (Entry("selected", "intake", "Intake"),)
    moved = advance(compiled, begun.state, output=NOTES)
    skipped, selected = moved.trace.entries
    assert skipped == Entry(
        "skipped",
        "phase-0b",
        "Phase 0b",
        Check(
            "taskComplexity == 'Small'",
            False,
            (("taskComplexity", "'Large'"),),
            {"var": "taskComplexity", "equals": "Small"},  # kept, for readers to say in their own words
        ),
    )
    assert selected == Entry("selected", "phase-1", "Phase 1")  # no condition: no check


def test_a_step_selected_by_its_condition_records_it_true_and_a_missing_variable_as_not_set():
    condition = {"or": [{"var": "mode", "in": ["fast", "full"]}, {"not": {"var": "skipChecks"}}]}
    compiled = workflow(step("a", runCondition=condition))
    (selected,) = start(compiled, {"mode": "full"}).trace.entries
    assert selected.kind == "selected"
    assert selected.check == Check(
        "mode in ['fast', 'full'] or not skipChecks",
        True,
        (("mode", "'full'"), ("skipChecks", None)),
        condition,
    )


def test_a_for_loop_records_each_iteration_of_its_count_and_why_it_ended():
    compiled = workflow(
        {
            **loop("verify-slices", [step("verify")], type="for", count="sliceCount", maxIterations=9),
            "title": "Verify slices",
        },
        step("done"),
    )
    _, transitions = run(compiled, context={"sliceCount": 2})
    started, repeated, ended = (t.trace.entries[0] for t in transitions[:3])
    assert started.kind == "loop_started" and started.title == "Verify slices"
    assert started.loop == LoopState("for", 1, 9, total=2, source="sliceCount")
    assert repeated.kind == "loop_repeated" and repeated.loop == LoopState("for", 2, 9, total=2, source="sliceCount")
    assert ended.kind == "loop_ended" and ended.loop is not None
    assert (ended.loop.iteration, ended.loop.ended_by) == (2, "count")
    assert entries(transitions[2].trace) == [("loop_ended", "verify-slices"), ("selected", "done")]
    assert entries(transitions[3].trace) == [("completed", "")]


def test_a_while_loop_records_its_condition_as_the_next_iteration_sees_it():
    condition = {"var": "currentIteration", "lte": 2}
    compiled = workflow(loop("poll", [step("check")], type="while", condition=condition, maxIterations=9))
    _, transitions = run(compiled)
    checks = [t.trace.entries[0].loop.check for t in transitions[:3]]  # type: ignore[union-attr]
    assert checks == [
        Check("currentIteration <= 2", True, (("currentIteration", "1"),), condition),
        Check("currentIteration <= 2", True, (("currentIteration", "2"),), condition),
        Check("currentIteration <= 2", False, (("currentIteration", "3"),), condition),
    ]
    assert transitions[2].trace.entries[0].loop.ended_by == "condition"  # type: ignore[union-attr]


def test_a_loop_that_runs_no_iteration_and_a_loop_skipped_by_its_run_condition():
    compiled = workflow(
        loop("each", [step("x")], type="forEach", items="slices", maxIterations=9),
        loop("gated", [step("y")], run_condition={"var": "deep"}, type="for", count=2, maxIterations=9),
        step("z"),
    )
    trace = start(compiled, {"slices": [], "deep": False}).trace
    assert entries(trace) == [("loop_not_run", "each"), ("skipped", "gated"), ("selected", "z")]
    not_run = trace.entries[0].loop
    assert not_run is not None and (not_run.iteration, not_run.ended_by) == (0, "items")
    assert trace.entries[1].check == Check("deep", False, (("deep", "false"),), {"var": "deep"})


def test_a_foreach_loop_records_the_item_of_each_iteration():
    compiled = workflow(loop("each", [step("x")], type="forEach", items="slices", maxIterations=9))
    _, transitions = run(compiled, context={"slices": ["api", {"name": "ui"}]})
    first, second = (t.trace.entries[0].loop for t in transitions[:2])
    assert first == LoopState("forEach", 1, 9, total=2, source="slices", item="'api'")
    assert second is not None and second.item == "{'name': 'ui'}"


def test_a_loop_steered_by_decisions_records_the_decision_it_took():
    source = {"kind": "artifact_contract", "contractRef": "wr.contracts.loop_control", "loopId": "review"}
    compiled = workflow(loop("review-loop", [step("review")], type="while", conditionSource=source, maxIterations=5))
    begun = start(compiled)
    assert begun.trace.entries[0].loop == LoopState("while", 1, 5)  # no decision yet: it starts
    again = advance(compiled, begun.state, output={**NOTES, **loop_control("continue", loopId="review")})
    assert again.trace.entries[0].kind == "loop_repeated"
    assert again.trace.entries[0].loop == LoopState("while", 2, 5, decision="continue")
    done = advance(compiled, again.state, output={**NOTES, **loop_control("stop")})
    assert done.trace.entries[0].loop == LoopState("while", 2, 5, decision="stop", ended_by="decision")


def test_max_iterations_is_named_when_it_and_not_the_loop_ended_it():
    compiled = workflow(loop("spin", [step("x")], type="while", condition={"var": "go"}, maxIterations=2))
    _, transitions = run(compiled, context={"go": True})
    ended = transitions[2].trace.entries[0]
    assert ended.kind == "loop_ended" and ended.loop is not None and ended.loop.ended_by == "max_iterations"


def test_a_blocked_advance_moves_nothing_and_traces_nothing():
    compiled = workflow(step("a", outputContract={"contractRef": "wr.contracts.loop_control"}), step("b"))
    blocked = advance(compiled, start(compiled).state, output=NOTES)
    assert blocked.kind == "blocked"
    assert blocked.trace == Trace()


def test_a_hostile_context_cannot_blow_up_the_trace():
    huge: dict[str, Any] = {"text": "x" * 1_000_000, "deep": [[[[[[["bottom"]]]]]]], "wide": list(range(100_000))}
    conditions = [{"var": f"v{i}", "equals": "no"} for i in range(20)]
    body = [step(f"s{i}", runCondition={"and": conditions}) for i in range(30)]
    compiled = workflow(
        loop("skipping", body, type="for", count=50, maxIterations=100), step("last", runCondition={"var": "text"})
    )
    context = {**huge, **{f"v{i}": huge for i in range(20)}}
    trace = start(compiled, context).trace
    assert len(trace.entries) == MAX_ENTRIES
    assert trace.omitted > 1000  # 50 iterations of 30 skipped steps, and the loop's own boundaries
    assert trace.entries[-1].kind == "selected" and trace.entries[-1].step_id == "last"
    assert len(json.dumps(trace.to_json())) < 200_000
    for entry in trace.entries:
        for _, shown in entry.check.values if entry.check else ():
            assert shown is None or len(shown) <= MAX_VALUE_CHARS
    assert Trace.from_json(trace.to_json()) == trace


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("Large", "'Large'"),
        ("it's", "'it\\'s'"),
        (3, "3"),
        (2.5, "2.5"),
        (True, "true"),
        (None, "null"),
        ([1, "a"], "[1, 'a']"),
        ({"k": [True]}, "{'k': [true]}"),
    ],
)
def test_values_are_shown_as_conditions_compare_them(value, shown):
    assert preview(value) == shown


def test_long_values_are_cut_to_a_preview():
    shown = preview({"notes": "y" * 10_000})
    assert len(shown) == MAX_VALUE_CHARS and shown.endswith("…") and shown.startswith("{'notes': 'yyy")


def test_conditions_read_as_one_line_of_code():
    assert describe({"var": "a", "gte": 2, "lt": 5}, CODE) == "a >= 2 and a < 5"
    assert describe(
        {"and": [{"var": "a"}, {"or": [{"var": "b", "equals": 1}, {"var": "c", "not_equals": "x"}]}]}, CODE
    ) == ("a and (b == 1 or c != 'x')")
    assert describe({"var": "name", "startsWith": "wr."}, CODE) == "name starts with 'wr.'"
    assert describe({"not": {"var": "a", "equals": 1}}, CODE) == "not (a == 1)"
    assert describe({}, CODE) == "always"


def test_a_condition_too_long_to_keep_is_traced_as_its_text_only():
    condition = {"var": "mode", "in": [f"mode-{i}" for i in range(200)]}
    (selected,) = start(workflow(step("a", runCondition=condition)), {"mode": "mode-1"}).trace.entries
    assert selected.check is not None and selected.check.condition is None
    assert selected.check.expression.startswith("mode in ['mode-0', 'mode-1',") and "…" in selected.check.expression
    assert Trace.from_json(start(workflow(step("a", runCondition=condition))).trace.to_json()).entries[0].check


def test_a_stored_check_whose_condition_is_not_one_is_refused():
    stored = {"expression": "x", "result": True, "values": [], "condition": {"var": "x", "gt": "many"}}
    with pytest.raises(TraceError):
        Trace.from_json({"entries": [{"kind": "selected", "stepId": "a", "title": "A", "check": stored}]})


def test_the_json_of_a_trace_reads_back_the_same_and_anything_else_is_refused():
    compiled = workflow(
        step("a", runCondition={"var": "x", "equals": 1}),
        loop("l", [step("b")], type="forEach", items="xs", maxIterations=3),
    )
    _, transitions = run(compiled, context={"x": 1, "xs": ["p", "q"]})
    for transition in transitions:
        assert Trace.from_json(json.loads(json.dumps(transition.trace.to_json()))) == transition.trace
    good = transitions[1].trace.to_json()
    for bad in (
        [],
        {"entries": [{"kind": "exploded", "stepId": "a", "title": "A"}]},
        {"entries": [{**good["entries"][0], "extra": 1}]},
        {"entries": [{"kind": "selected", "stepId": "a", "title": "A" * 10_000}]},
        {"entries": [{"kind": "selected", "stepId": "a", "title": "A"}] * (MAX_ENTRIES + 1)},
        {"entries": [], "omitted": -1},
        {"entries": [{"kind": "selected", "stepId": "a", "title": "A", "check": {"expression": "x", "result": 1}}]},
    ):
        with pytest.raises(TraceError):
            Trace.from_json(bad)
