"""Steps in order, runCondition skips, completion, context merging, determinism and state handling."""

from __future__ import annotations

import copy
import json

import pytest

from tests.workflows_app.engine.builders import NOTES, instances, loop, run, step, workflow
from workflows_app.engine import STATE_VERSION, StateError, advance, pending_view, start

LINEAR = workflow(step("one"), step("two"), step("three"))


def test_steps_run_in_order_and_the_last_acknowledgement_completes():
    visited, transitions = run(LINEAR)

    assert [p["stepId"] for p in visited] == ["one", "two", "three"]
    assert [t.kind for t in transitions] == ["advanced", "advanced", "advanced", "complete"]
    final = transitions[-1]
    assert final.pending is None
    assert final.state["complete"] is True
    assert final.state["pending"] is None
    assert final.state["completedSteps"] == 3
    assert final.completed == {"stepId": "three", "title": "Three", "loop": None}


def test_start_reports_no_completed_step_and_advance_reports_the_acknowledged_one():
    first = start(LINEAR)
    assert first.kind == "advanced"
    assert first.completed is None
    second = advance(LINEAR, first.state, output=NOTES)
    assert second.completed == {"stepId": "one", "title": "One", "loop": None}
    assert second.pending is not None and second.pending["stepId"] == "two"


def test_advancing_a_complete_state_is_idempotent():
    _, transitions = run(LINEAR)
    done = transitions[-1].state

    again = advance(LINEAR, done, output=NOTES)
    assert again.kind == "complete"
    assert again.state == done
    assert again.pending is None
    assert again.completed is None
    assert again.issues == []
    assert pending_view(LINEAR, done) is None


def test_run_condition_false_skips_the_step():
    compiled = workflow(
        step("always"),
        step("only-epic", runCondition={"var": "size", "equals": "epic"}),
        step("only-small", runCondition={"var": "size", "equals": "small"}),
    )
    visited, _ = run(compiled, context={"size": "Small"})
    assert [p["stepId"] for p in visited] == ["always", "only-small"]


def test_run_condition_of_a_loop_skips_the_whole_loop():
    compiled = workflow(
        loop("maybe", [step("inside")], run_condition={"var": "go"}, type="for", count=2, maxIterations=5),
        step("after"),
    )
    assert [p["stepId"] for p in run(compiled)[0]] == ["after"]
    assert [p["stepId"] for p in run(compiled, context={"go": True})[0]] == ["inside", "inside", "after"]


def test_start_completes_immediately_when_every_step_is_skipped():
    compiled = workflow(
        step("a", runCondition={"var": "x"}),
        loop("l", [step("b")], run_condition={"var": "x"}, type="while", maxIterations=3),
    )
    transition = start(compiled)
    assert transition.kind == "complete"
    assert transition.pending is None
    assert transition.state["complete"] is True
    assert transition.state["completedSteps"] == 0


def test_start_on_an_empty_workflow_is_complete():
    assert start(workflow()).kind == "complete"


def test_context_is_merged_before_conditions_are_evaluated():
    compiled = workflow(step("triage"), step("incident", runCondition={"var": "severity", "in": ["high"]}), step("end"))
    first = start(compiled, {"ticket": "T-1"})
    second = advance(compiled, first.state, output=NOTES, context={"severity": "high"})
    assert second.pending is not None and second.pending["stepId"] == "incident"
    assert second.state["context"] == {"ticket": "T-1", "severity": "high"}


def test_context_merge_is_shallow_and_later_values_win():
    compiled = workflow(step("a"), step("b"))
    first = start(compiled, {"ticket": {"id": 1, "title": "x"}, "keep": True})
    second = advance(compiled, first.state, output=NOTES, context={"ticket": {"id": 2}})
    assert second.state["context"] == {"ticket": {"id": 2}, "keep": True}


def test_context_accepts_any_json_values():
    values = {"n": None, "f": 1.5, "list": [1, {"a": [2]}], "flag": False, "text": "é"}
    transition = start(workflow(step("a")), values)
    assert transition.state["context"] == values


def test_parallel_steps_are_ordinary_steps():
    parallel = {"kind": "parallel", "id": "fan-out", "title": "Fan out", "prompt": "Run these delegations."}
    visited, _ = run(workflow(step("a"), parallel, step("b")))
    assert [p["stepId"] for p in visited] == ["a", "fan-out", "b"]
    assert visited[1]["prompt"] == "Run these delegations."


def test_step_instances_are_unique_and_deterministic():
    compiled = workflow(
        step("prep"),
        loop(
            "outer",
            [step("work"), loop("inner", [step("check")], type="for", count=2, maxIterations=5)],
            type="for",
            count=2,
            maxIterations=5,
        ),
    )
    visited, _ = run(compiled)
    names = instances(visited)
    assert names == [
        "prep",
        "outer#1/work",
        "outer#1/inner#1/check",
        "outer#1/inner#2/check",
        "outer#2/work",
        "outer#2/inner#1/check",
        "outer#2/inner#2/check",
    ]
    assert len(set(names)) == len(names)


def test_same_inputs_give_identical_outputs_including_key_order():
    compiled = workflow(
        step("a", promptFragments=[{"id": "f", "text": "Extra {{x}}."}]),
        loop("l", [step("b")], type="forEach", items="xs", maxIterations=5),
        step("c"),
    )

    def trace() -> str:
        _, transitions = run(compiled, context={"x": 1, "xs": [{"b": 1, "a": 2}, 3]})
        return json.dumps([{**t.__dict__, "trace": t.trace.to_json()} for t in transitions])

    assert trace() == trace()


def test_the_callers_dicts_are_never_mutated():
    compiled = workflow(
        step("a", outputContract={"contractRef": "wr.contracts.loop_control"}),
        loop("l", [step("b")], type="forEach", items="xs", maxIterations=5),
    )
    pristine = copy.deepcopy(compiled)
    context = {"xs": [[1], [2]]}
    context_copy = copy.deepcopy(context)
    first = start(compiled, context)
    state_copy = copy.deepcopy(first.state)
    output = {"artifacts": [{"kind": "wr.loop_control", "decision": "continue"}]}
    output_copy = copy.deepcopy(output)
    update = {"more": {"deep": [1]}}
    second = advance(compiled, first.state, output=output, context=update)

    assert compiled == pristine
    assert context == context_copy
    assert first.state == state_copy
    assert output == output_copy
    # Editing what came back must not reach into the workflow or the earlier state either.
    assert first.pending is not None
    first.pending["outputContract"]["schema"]["type"] = "broken"
    second.state["context"]["more"]["deep"].append(2)
    second.state["cursor"]["loops"][0]["items"][0].append(9)
    assert update == {"more": {"deep": [1]}}
    assert context == context_copy
    assert start(compiled, context).pending["outputContract"]["schema"]["type"] == "object"


def test_state_is_json_and_carries_version_workflow_and_counters():
    transition = start(LINEAR, {"a": 1})
    state = transition.state
    assert json.loads(json.dumps(state)) == state
    assert state["version"] == STATE_VERSION
    assert state["workflowId"] == "project.test"
    assert state["complete"] is False
    assert state["context"] == {"a": 1}
    assert state["cursor"] == {"position": [0], "loops": []}
    assert state["pending"] == {"stepId": "one", "stepInstance": "one"}
    assert state["completedSteps"] == 0


def test_pending_view_rehydrates_the_same_pending_step():
    compiled = workflow(
        step("a"), loop("l", [step("b", prompt="Item {{currentItem}}")], type="forEach", items="xs", maxIterations=3)
    )
    first = start(compiled, {"xs": ["p", "q"]})
    second = advance(compiled, first.state, output=NOTES)
    rebuilt = pending_view(compiled, json.loads(json.dumps(second.state)))
    assert rebuilt == second.pending
    assert rebuilt is not None and rebuilt["prompt"] == "Item p"


def test_a_state_for_another_workflow_is_refused():
    state = start(LINEAR).state
    other = workflow(step("one"), workflow_id="project.other")
    with pytest.raises(StateError, match=r"project\.test"):
        advance(other, state, output=NOTES)


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s.update(version=99),
        lambda s: s.update(cursor={"position": [], "loops": []}),
        lambda s: s.update(cursor={"position": [0, 0], "loops": []}),
        lambda s: s.update(cursor={"position": [7], "loops": []}),
        lambda s: s.update(pending={"stepId": "two", "stepInstance": "two"}),
        lambda s: s.update(context=[]),
        lambda s: s.update(completedSteps=-1),
        lambda s: s.update(loopDecisions={"*": {"decision": "maybe", "at": 1}}),
        lambda s: s.pop("workflowId"),
    ],
)
def test_malformed_states_raise_state_error(damage):
    state = copy.deepcopy(start(LINEAR).state)
    damage(state)
    with pytest.raises(StateError):
        advance(LINEAR, state, output=NOTES)


def test_a_state_whose_loop_frames_do_not_match_the_workflow_is_refused():
    compiled = workflow(loop("l", [step("a")], type="for", count=2, maxIterations=3))
    state = copy.deepcopy(start(compiled).state)
    state["cursor"]["loops"][0]["loopId"] = "other"
    with pytest.raises(StateError, match="other"):
        advance(compiled, state, output=NOTES)
    with pytest.raises(StateError):
        pending_view(compiled, state)


def test_a_context_that_is_not_an_object_is_a_type_error():
    with pytest.raises(TypeError):
        start(LINEAR, ["not", "a", "dict"])  # type: ignore[arg-type]
