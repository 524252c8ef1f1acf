"""The engine state keeps counters, not histories: its size does not grow with the steps done."""

from __future__ import annotations

import json

from tests.workflows_app.engine.builders import NOTES, loop, loop_control, step, workflow
from workflows_app.engine import advance, start

CONTRACT = {"contractRef": "wr.contracts.loop_control"}


def size(state: dict) -> int:
    return len(json.dumps(state))


def test_state_size_stays_flat_over_two_thousand_loop_steps():
    compiled = workflow(
        step("setup"),
        loop(
            "grind",
            [step("work"), step("check")],
            type="while",
            condition={"var": "done", "not_equals": True},
            maxIterations=1000,
        ),
        step("wrap-up"),
    )
    transition = start(compiled, {"topic": "x" * 200})
    in_loop = []  # state sizes while inside the loop, where the state is at its largest
    advances = 0
    while transition.kind != "complete":
        transition = advance(compiled, transition.state, output=NOTES)
        advances += 1
        if transition.pending is not None and transition.pending["loop"] is not None:
            in_loop.append(size(transition.state))

    assert advances == 1 + 2 * 1000 + 1
    assert transition.state["completedSteps"] == advances
    assert [w["code"] for w in transition.warnings] == []  # the cap warned earlier, when the loop ended
    assert len(in_loop) == 2000
    # Only the digit counts of the counters change: a few bytes over 2,000 steps.
    assert max(in_loop) - min(in_loop) <= 12
    assert max(in_loop) < 600


def test_state_size_stays_flat_with_artifact_decisions_and_nested_loops():
    source = {"kind": "artifact_contract", "contractRef": "wr.contracts.loop_control"}
    compiled = workflow(
        loop(
            "outer",
            [
                loop("inner", [step("cell")], type="for", count=20, maxIterations=20),
                step("decide", outputContract=CONTRACT),
            ],
            type="while",
            conditionSource=source,
            maxIterations=100,
        )
    )
    transition = start(compiled)
    sizes: dict[str, int] = {}  # state size when each step instance is pending
    while transition.kind != "complete":
        pending = transition.pending
        sizes[pending["stepInstance"]] = size(transition.state)
        output = loop_control("continue") if pending["outputContract"] else NOTES
        transition = advance(compiled, transition.state, output=output)
    assert transition.state["completedSteps"] == 100 * 21
    assert len(sizes) == 100 * 21
    # The same step in iteration 2 and in iteration 100: only iteration and counter digits differ.
    assert 0 <= sizes["outer#100/inner#20/cell"] - sizes["outer#2/inner#20/cell"] <= 8
    assert 0 <= sizes["outer#100/decide"] - sizes["outer#2/decide"] <= 8
    assert max(sizes.values()) < 500
