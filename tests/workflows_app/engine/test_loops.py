"""while / until / for / forEach loops, loop variables, nesting and the maxIterations cap."""

from __future__ import annotations

from typing import Any

import pytest

from tests.workflows_app.engine.builders import NOTES, instances, loop, run, step, warning_codes, workflow
from workflows_app.engine import advance, start


def setting(**values: Any):
    """An agent that sends notes and, at the step instance named by a key, that context update."""

    def agent(pending: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
        return NOTES, values.get(pending["stepInstance"])

    return agent


def test_while_runs_while_the_condition_holds_before_each_iteration():
    compiled = workflow(
        loop("poll", [step("check")], type="while", condition={"var": "status", "not_equals": "done"}, maxIterations=9),
        step("after"),
    )
    visited, transitions = run(compiled, setting(**{"poll#3/check": {"status": "done"}}))
    assert instances(visited) == ["poll#1/check", "poll#2/check", "poll#3/check", "after"]
    assert warning_codes(transitions) == []


def test_while_with_a_false_condition_runs_no_iteration():
    compiled = workflow(
        loop("poll", [step("check")], type="while", condition={"var": "go"}, maxIterations=9), step("z")
    )
    assert instances(run(compiled)[0]) == ["z"]


def test_until_runs_until_the_condition_holds():
    compiled = workflow(
        loop("search", [step("look")], type="until", condition={"var": "found", "equals": True}, maxIterations=9),
        step("after"),
    )
    visited, _ = run(compiled, setting(**{"search#2/look": {"found": True}}))
    assert instances(visited) == ["search#1/look", "search#2/look", "after"]
    # Already true before the first iteration: no iteration at all.
    assert instances(run(compiled, context={"found": "true"})[0]) == ["after"]


def test_loop_condition_sees_the_iteration_about_to_run():
    compiled = workflow(
        loop("three", [step("x")], type="while", condition={"var": "currentIteration", "lte": 3}, maxIterations=9)
    )
    assert instances(run(compiled)[0]) == ["three#1/x", "three#2/x", "three#3/x"]


def test_context_variable_condition_source_drives_while_and_until():
    source = {"kind": "context_variable", "condition": {"var": "more"}}
    as_while = workflow(loop("w", [step("x")], type="while", conditionSource=source, maxIterations=9))
    visited, _ = run(as_while, setting(**{"w#2/x": {"more": False}}), context={"more": True})
    assert instances(visited) == ["w#1/x", "w#2/x"]
    as_until = workflow(loop("u", [step("x")], type="until", conditionSource=source, maxIterations=9))
    visited, _ = run(as_until, setting(**{"u#2/x": {"more": True}}), context={"more": False})
    assert instances(visited) == ["u#1/x", "u#2/x"]


@pytest.mark.parametrize(
    ("count", "context", "expected"),
    [(3, {}, 3), (0, {}, 0), ("n", {"n": 2}, 2), ("n", {"n": "4"}, 4), ("cfg.n", {"cfg": {"n": 1}}, 1)],
)
def test_for_iterates_count_times_from_a_number_or_a_context_variable(count, context, expected):
    compiled = workflow(loop("rep", [step("x")], type="for", count=count, maxIterations=10), step("end"))
    visited, transitions = run(compiled, context=context)
    assert [p["loop"]["iteration"] for p in visited if p["loop"]] == list(range(1, expected + 1))
    assert visited[-1]["stepId"] == "end"
    assert warning_codes(transitions) == []


@pytest.mark.parametrize("context", [{}, {"n": "many"}, {"n": [1]}])
def test_for_with_an_unusable_count_runs_no_iteration_and_warns(context):
    compiled = workflow(loop("rep", [step("x")], type="for", count="n", maxIterations=10), step("end"))
    visited, transitions = run(compiled, context=context)
    assert instances(visited) == ["end"]
    assert warning_codes(transitions) == ["LOOP_COUNT_INVALID"]
    assert "'n'" in transitions[0].warnings[0]["message"]


def test_for_count_is_fixed_when_the_loop_is_entered():
    compiled = workflow(loop("rep", [step("x")], type="for", count="n", maxIterations=10))
    visited, _ = run(compiled, setting(**{"rep#1/x": {"n": 5}}), context={"n": 2})
    assert instances(visited) == ["rep#1/x", "rep#2/x"]


def test_iteration_variable_defaults_and_custom_name():
    default = workflow(
        loop("l", [step("x", prompt="Attempt {{currentIteration}}")], type="for", count=2, maxIterations=5)
    )
    assert [p["prompt"] for p in run(default)[0]] == ["Attempt 1", "Attempt 2"]
    custom = workflow(
        loop(
            "l",
            [step("x", prompt="Attempt {{attempt}}/{{currentIteration}}")],
            type="for",
            count=2,
            maxIterations=5,
            iterationVar="attempt",
        )
    )
    # With a custom name the default one is not set, and the prompt says so.
    assert [p["prompt"] for p in run(custom)[0]] == [
        "Attempt 1/[not set: currentIteration]",
        "Attempt 2/[not set: currentIteration]",
    ]


def test_for_each_exposes_item_and_index_with_default_names():
    compiled = workflow(
        loop(
            "each",
            [step("x", prompt="{{currentIndex}}:{{currentItem.name}} ({{currentIteration}} of {{files.length}})")],
            type="forEach",
            items="files",
            maxIterations=10,
        )
    )
    visited, _ = run(compiled, context={"files": [{"name": "a.py"}, {"name": "b.py"}]})
    assert [p["prompt"] for p in visited] == ["0:a.py (1 of 2)", "1:b.py (2 of 2)"]
    assert [p["loop"] for p in visited] == [
        {"loopId": "each", "iteration": 1, "maxIterations": 10, "item": {"name": "a.py"}, "index": 0},
        {"loopId": "each", "iteration": 2, "maxIterations": 10, "item": {"name": "b.py"}, "index": 1},
    ]


def test_for_each_custom_variables_are_visible_to_run_conditions_and_prompts():
    compiled = workflow(
        loop(
            "areas",
            [
                step(
                    "review",
                    prompt="Review {{area}} #{{areaIndex + 1}}",
                    runCondition={"var": "area", "not_equals": "skip"},
                )
            ],
            type="forEach",
            items="reviewAreas",
            itemVar="area",
            indexVar="areaIndex",
            maxIterations=10,
        )
    )
    visited, _ = run(compiled, context={"reviewAreas": ["api", "skip", "db"]})
    assert [p["prompt"] for p in visited] == ["Review api #1", "Review db #3"]
    assert instances(visited) == ["areas#1/review", "areas#3/review"]


def test_for_each_iterates_a_snapshot_taken_at_loop_entry():
    compiled = workflow(
        loop("each", [step("x", prompt="{{currentItem}}")], type="forEach", items="xs", maxIterations=10)
    )
    visited, _ = run(compiled, setting(**{"each#1/x": {"xs": ["changed"]}}), context={"xs": ["a", "b"]})
    assert [p["prompt"] for p in visited] == ["a", "b"]


@pytest.mark.parametrize(
    ("context", "fragment"),
    [({}, "is missing"), ({"xs": "a,b"}, "is string, not a list"), ({"xs": {"a": 1}}, "is object, not a list")],
)
def test_for_each_without_a_list_runs_no_iteration_and_warns(context, fragment):
    compiled = workflow(loop("each", [step("x")], type="forEach", items="xs", maxIterations=10), step("end"))
    visited, transitions = run(compiled, context=context)
    assert instances(visited) == ["end"]
    assert warning_codes(transitions) == ["LOOP_ITEMS_NOT_A_LIST"]
    assert fragment in transitions[0].warnings[0]["message"]


def test_for_each_over_an_empty_list_runs_no_iteration_without_warning():
    compiled = workflow(loop("each", [step("x")], type="forEach", items="xs", maxIterations=10), step("end"))
    visited, transitions = run(compiled, context={"xs": []})
    assert instances(visited) == ["end"]
    assert warning_codes(transitions) == []


def test_loop_variables_do_not_leak_after_the_loop_or_into_the_stored_context():
    compiled = workflow(
        loop("each", [step("x")], type="forEach", items="xs", maxIterations=10),
        step("after", prompt="[{{currentItem}}] [{{currentIteration}}]"),
    )
    visited, transitions = run(compiled, context={"xs": [1]})
    assert visited[-1]["prompt"] == "[[not set: currentItem]] [[not set: currentIteration]]"
    assert all(set(t.state["context"]) == {"xs"} for t in transitions)


def test_nested_loops_keep_each_loops_own_variables():
    compiled = workflow(
        loop(
            "outer",
            [
                step("head", prompt="outer {{currentIteration}}"),
                loop(
                    "inner", [step("cell", prompt="{{row}}{{currentIteration}}")], type="for", count=2, maxIterations=5
                ),
                step("tail", prompt="back to {{currentIteration}} {{row}}"),
            ],
            type="forEach",
            items="rows",
            itemVar="row",
            maxIterations=5,
        )
    )
    visited, _ = run(compiled, context={"rows": ["A", "B"]})
    assert [p["prompt"] for p in visited] == [
        "outer 1", "A1", "A2", "back to 1 A",
        "outer 2", "B1", "B2", "back to 2 B",
    ]  # fmt: skip
    inner = visited[1]
    assert inner["loop"] == {"loopId": "inner", "iteration": 1, "maxIterations": 5}
    assert inner["stepInstance"] == "outer#1/inner#1/cell"


def test_inner_loop_condition_can_use_outer_loop_variables():
    compiled = workflow(
        loop(
            "outer",
            [loop("inner", [step("x")], type="while", condition={"var": "currentIndex", "gte": 1}, maxIterations=2)],
            type="forEach",
            items="xs",
            maxIterations=5,
        )
    )
    # Inner while-condition reads the outer currentIndex: false for index 0, true (capped at 2) for index 1.
    visited, transitions = run(compiled, context={"xs": ["a", "b"]})
    assert instances(visited) == ["outer#2/inner#1/x", "outer#2/inner#2/x"]
    assert warning_codes(transitions) == ["LOOP_MAX_ITERATIONS"]


@pytest.mark.parametrize(
    ("config", "context", "iterations"),
    [
        ({"type": "while", "condition": {"var": "go"}}, {"go": True}, 3),
        ({"type": "until", "condition": {"var": "stop"}}, {}, 3),
        ({"type": "for", "count": 10}, {}, 3),
        ({"type": "forEach", "items": "xs"}, {"xs": list(range(7))}, 3),
    ],
)
def test_max_iterations_caps_every_loop_type_with_a_warning(config, context, iterations):
    compiled = workflow(loop("capped", [step("x")], maxIterations=3, **config), step("after"))
    visited, transitions = run(compiled, context=context)
    assert [p["loop"]["iteration"] for p in visited if p["loop"]] == list(range(1, iterations + 1))
    assert visited[-1]["stepId"] == "after"
    assert warning_codes(transitions) == ["LOOP_MAX_ITERATIONS"]
    # The warning comes with the advance that left the loop.
    assert transitions[-2].warnings[0]["code"] == "LOOP_MAX_ITERATIONS"
    assert "'capped'" in transitions[-2].warnings[0]["message"]


@pytest.mark.parametrize(
    "config",
    [{"type": "for", "count": 3}, {"type": "forEach", "items": "xs"}, {"type": "while", "condition": {"var": "go"}}],
)
def test_reaching_max_iterations_exactly_when_the_loop_ends_anyway_is_not_a_warning(config):
    compiled = workflow(loop("l", [step("x")], maxIterations=3, **config))
    agent = setting(**{"l#3/x": {"go": False}})
    visited, transitions = run(compiled, agent, context={"xs": [1, 2, 3], "go": True})
    assert len(visited) == 3
    assert warning_codes(transitions) == []


def test_a_loop_whose_body_is_always_skipped_terminates():
    compiled = workflow(
        loop("idle", [step("never", runCondition={"var": "nope"})], type="while", condition={}, maxIterations=1000),
        step("after"),
    )
    transition = start(compiled)
    assert transition.pending is not None and transition.pending["stepId"] == "after"
    assert [w["code"] for w in transition.warnings] == ["LOOP_MAX_ITERATIONS"]


def test_a_body_step_conditioned_on_the_iteration_runs_only_in_matching_iterations():
    compiled = workflow(
        loop(
            "l", [step("late", runCondition={"var": "currentIteration", "gt": 3})], type="for", count=5, maxIterations=9
        )
    )
    assert instances(run(compiled)[0]) == ["l#4/late", "l#5/late"]


def test_cursor_records_active_loop_frames():
    compiled = workflow(
        step("a"),
        loop(
            "outer",
            [loop("inner", [step("b")], type="forEach", items="ys", maxIterations=5)],
            type="for",
            count=2,
            maxIterations=5,
        ),
    )
    first = start(compiled, {"ys": ["y1"]})
    second = advance(compiled, first.state, output=NOTES)
    assert second.state["cursor"] == {
        "position": [1, 0, 0],
        "loops": [
            {"loopId": "outer", "iteration": 1, "count": 2},
            {"loopId": "inner", "iteration": 1, "items": ["y1"]},
        ],
    }
    assert second.state["pending"] == {"stepId": "b", "stepInstance": "outer#1/inner#1/b"}
