"""Loops driven by wr.loop_control artifacts (conditionSource kind artifact_contract)."""

from __future__ import annotations

from typing import Any

from tests.workflows_app.engine.builders import NOTES, instances, loop, loop_control, run, step, warning_codes, workflow
from workflows_app.engine import advance, start

CONTRACT = {"contractRef": "wr.contracts.loop_control"}


def artifact_loop(
    loop_id: str = "work",
    source_loop_id: str | None = "work-loop",
    body: list[dict[str, Any]] | None = None,
    **config: Any,
) -> dict[str, Any]:
    """A while loop that wr.loop_control artifacts drive (for the loop `source_loop_id` names, or for
    whichever loop they are sent in when None); by default its body does, then decides."""
    source = {"kind": "artifact_contract", "contractRef": "wr.contracts.loop_control"}
    if source_loop_id is not None:
        source["loopId"] = source_loop_id
    body = body or [step("do"), step("decide", outputContract=CONTRACT)]
    return loop(
        loop_id, body, type="while", conditionSource=source, maxIterations=config.pop("maxIterations", 5), **config
    )


def deciding(*decisions: dict[str, Any] | None):
    """Sends the given outputs, in order, at each step with an output contract; notes elsewhere."""
    remaining = list(decisions)

    def agent(pending: dict[str, Any]) -> tuple[dict[str, Any] | None, None]:
        if pending["outputContract"] is None:
            return NOTES, None
        return remaining.pop(0), None

    return agent


def test_continue_iterates_and_stop_exits():
    compiled = workflow(artifact_loop(), step("after"))
    visited, transitions = run(compiled, deciding(loop_control("continue"), loop_control("stop")))
    assert instances(visited) == ["work#1/do", "work#1/decide", "work#2/do", "work#2/decide", "after"]
    assert warning_codes(transitions) == []
    assert transitions[-1].state["loopDecisions"] == {}


def test_no_decision_before_the_loop_enters_it():
    compiled = workflow(artifact_loop(), step("after"))
    assert start(compiled).pending["stepInstance"] == "work#1/do"


def test_a_stop_decision_sent_before_the_loop_skips_it_and_is_consumed():
    compiled = workflow(step("init", outputContract=CONTRACT), artifact_loop(), step("after"))
    first = start(compiled)
    second = advance(compiled, first.state, output=loop_control("stop"))
    assert second.pending["stepId"] == "after"
    assert second.state["loopDecisions"] == {}


def test_a_continue_decision_sent_before_the_loop_enters_it_and_is_consumed():
    compiled = workflow(step("init", outputContract=CONTRACT), artifact_loop(), step("after"))
    first = start(compiled)
    assert first.state["loopDecisions"] == {}
    second = advance(compiled, first.state, output=loop_control("continue"))
    assert second.pending["stepInstance"] == "work#1/do"
    assert second.state["loopDecisions"] == {}


def test_decisions_are_recorded_in_the_state_until_consumed():
    compiled = workflow(step("init", outputContract=CONTRACT), step("more"), artifact_loop())
    first = start(compiled)
    second = advance(compiled, first.state, output=loop_control("stop"))
    assert second.state["loopDecisions"] == {"*": {"decision": "stop", "at": 1}}
    third = advance(compiled, second.state, output=NOTES)
    assert third.kind == "complete"
    assert third.state["loopDecisions"] == {}


def test_an_iteration_without_a_decision_blocks_the_step_that_ends_it():
    compiled = workflow(
        artifact_loop(
            source_loop_id=None, body=[step("do"), step("maybe", outputContract={**CONTRACT, "required": False})]
        ),
        step("after"),
    )
    first = start(compiled)
    second = advance(compiled, first.state, output=NOTES)
    blocked = advance(compiled, second.state, output={"notesMarkdown": "Done, no decision."})
    assert blocked.kind == "blocked"
    assert [i["code"] for i in blocked.issues] == ["LOOP_DECISION_MISSING"]
    assert '"loopId": "work"' in blocked.issues[0]["message"]
    assert blocked.pending["stepInstance"] == "work#1/maybe"
    assert blocked.state["completedSteps"] == second.state["completedSteps"]  # nothing moved
    moved = advance(compiled, blocked.state, output=loop_control("stop"))
    assert moved.pending["stepId"] == "after"
    assert warning_codes([moved]) == []


def test_a_decision_sent_before_the_loop_does_not_count_for_its_first_iteration():
    # "continue" is consumed on entry; nothing sent during iteration 1: its last step must decide.
    compiled = workflow(
        step("init", outputContract=CONTRACT),
        artifact_loop(source_loop_id=None, body=[step("do")]),
        step("after"),
    )
    entered = advance(compiled, start(compiled).state, output=loop_control("continue"))
    assert entered.pending["stepInstance"] == "work#1/do"
    blocked = advance(compiled, entered.state, output=NOTES)
    assert [i["code"] for i in blocked.issues] == ["LOOP_DECISION_MISSING"]
    assert advance(compiled, entered.state, output={**NOTES, **loop_control("stop")}).pending["stepId"] == "after"


def test_the_most_recent_decision_of_an_iteration_wins():
    compiled = workflow(artifact_loop(), step("after"))
    both = {
        "artifacts": [
            {"kind": "wr.loop_control", "decision": "continue"},
            {"kind": "wr.loop_control", "decision": "stop"},
        ]
    }
    visited, _ = run(compiled, deciding(both))
    assert instances(visited) == ["work#1/do", "work#1/decide", "after"]


def test_a_decision_for_another_loop_id_is_ignored_for_this_loop():
    compiled = workflow(artifact_loop(), artifact_loop("other", source_loop_id="other-loop"), step("after"))
    agent = deciding(
        # For "work": a stop aimed at the other loop, plus a matching continue -> iterate.
        {
            "artifacts": [
                {"kind": "wr.loop_control", "decision": "continue", "loopId": "work-loop"},
                {"kind": "wr.loop_control", "decision": "stop", "loopId": "other-loop"},
            ]
        },
        # Stop "work". The recorded stop for other-loop was sent before it was entered: it skips it.
        loop_control("stop", loopId="work-loop"),
    )
    visited, transitions = run(compiled, agent)
    assert instances(visited) == ["work#1/do", "work#1/decide", "work#2/do", "work#2/decide", "after"]
    assert warning_codes(transitions) == []


def test_a_decision_naming_an_unknown_loop_id_matches_the_only_open_loop():
    # WorkRail does not match on loopId: a decision sent inside the one open loop is for that loop.
    compiled = workflow(artifact_loop(), step("after"))
    visited, transitions = run(
        compiled, deciding(loop_control("continue", loopId="nope"), loop_control("stop", loopId="typo"))
    )
    assert instances(visited) == ["work#1/do", "work#1/decide", "work#2/do", "work#2/decide", "after"]
    assert warning_codes(transitions) == []
    assert all("nope" not in key for t in transitions for key in t.state["loopDecisions"])


def test_a_decision_may_name_the_loop_by_its_step_id_or_its_decision_id():
    compiled = workflow(artifact_loop("work", source_loop_id="work-loop"), step("after"))
    agent = deciding(loop_control("continue", loopId="work"), loop_control("stop", loopId="work-loop"))
    visited, transitions = run(compiled, agent)
    assert len(visited) == 5
    assert warning_codes(transitions) == []


def test_the_loop_is_shown_by_the_id_its_decisions_use():
    compiled = workflow(artifact_loop("work", source_loop_id="work-loop"), step("after"))
    assert start(compiled).pending["loop"]["loopId"] == "work-loop"


def test_a_decision_that_matches_no_open_loop_blocks_the_step():
    inner = artifact_loop("inner", source_loop_id="inner-loop")
    outer = loop(
        "outer",
        [inner, step("outer-decide", outputContract=CONTRACT)],
        type="while",
        maxIterations=3,
        conditionSource={"kind": "artifact_contract", "contractRef": "wr.contracts.loop_control", "loopId": "o"},
    )
    compiled = workflow(outer, step("after"))
    first = start(compiled)
    second = advance(compiled, first.state, output=NOTES)  # inner#1/do -> inner#1/decide
    assert second.pending["stepInstance"] == "outer#1/inner#1/decide"
    blocked = advance(compiled, second.state, output=loop_control("stop", loopId="mystery"))
    assert [i["code"] for i in blocked.issues] == ["LOOP_CONTROL_UNMATCHED"]
    assert blocked.issues[0]["pointer"] == "/artifacts/0/loopId"
    assert "'o', 'inner-loop'" in blocked.issues[0]["message"]
    assert blocked.state == {**second.state, "context": blocked.state["context"]}


def test_an_iteration_that_reaches_max_iterations_ends_without_a_decision():
    compiled = workflow(
        artifact_loop(source_loop_id=None, body=[step("do")], maxIterations=1),
        step("after"),
    )
    moved = advance(compiled, start(compiled).state, output=NOTES)
    assert moved.pending["stepId"] == "after"


def test_a_decision_for_another_known_loop_leaves_this_one_undecided_and_blocks():
    compiled = workflow(artifact_loop(), artifact_loop("other", source_loop_id="other-loop"), step("after"))
    second = advance(compiled, start(compiled).state, output=NOTES)
    blocked = advance(compiled, second.state, output=loop_control("continue", loopId="other-loop"))
    assert [i["code"] for i in blocked.issues] == ["LOOP_DECISION_MISSING"]
    assert "'work-loop'" in blocked.issues[0]["message"]


def test_a_loop_without_a_condition_source_loop_id_answers_to_its_step_id():
    compiled = workflow(artifact_loop("work", source_loop_id=None), step("after"))
    agent = deciding(loop_control("continue", loopId="work"), loop_control("stop", loopId="work"))
    assert len(run(compiled, agent)[0]) == 5


def test_an_invalid_loop_control_artifact_blocks_the_step_even_without_a_contract_on_it():
    # Artifacts are judged by their kind's contract wherever they are sent: a malformed decision is
    # refused with the step kept in place (blocked), never silently ignored nor half-applied.
    compiled = workflow(artifact_loop(maxIterations=5), step("after"))
    first = start(compiled)
    bogus = {"notesMarkdown": "x", "artifacts": [{"kind": "wr.loop_control", "decision": "perhaps"}]}
    second = advance(compiled, first.state, output=bogus)
    assert second.kind == "blocked"
    assert [(i["code"], i["pointer"]) for i in second.issues] == [("ARTIFACT_INVALID", "/artifacts/0/decision")]
    assert second.state["loopDecisions"] == {}
    assert second.pending is not None and second.pending["stepId"] == first.pending["stepId"]


def test_an_artifact_of_a_kind_no_contract_defines_blocks_the_step():
    compiled = workflow(step("only"))
    second = advance(compiled, start(compiled).state, output={"notesMarkdown": "x", "artifacts": [{"kind": "x.y"}]})
    assert second.kind == "blocked"
    assert [(i["code"], i["pointer"]) for i in second.issues] == [("ARTIFACT_INVALID", "/artifacts/0/kind")]


def test_continue_at_max_iterations_stops_with_a_warning():
    compiled = workflow(artifact_loop(maxIterations=2), step("after"))
    visited, transitions = run(compiled, deciding(loop_control("continue"), loop_control("continue")))
    assert instances(visited) == ["work#1/do", "work#1/decide", "work#2/do", "work#2/decide", "after"]
    assert warning_codes(transitions) == ["LOOP_MAX_ITERATIONS"]
    assert transitions[-1].state["loopDecisions"] == {}


def test_nested_artifact_loops_each_take_their_own_decisions():
    inner_source = {"kind": "artifact_contract", "contractRef": "wr.contracts.loop_control", "loopId": "inner"}
    outer_source = {"kind": "artifact_contract", "contractRef": "wr.contracts.loop_control", "loopId": "outer"}
    compiled = workflow(
        loop(
            "outer",
            [
                loop(
                    "inner",
                    [step("fix", outputContract=CONTRACT)],
                    type="while",
                    conditionSource=inner_source,
                    maxIterations=5,
                ),
                step("review", outputContract=CONTRACT),
            ],
            type="until",
            conditionSource=outer_source,
            maxIterations=5,
        )
    )
    agent = deciding(
        loop_control("continue", loopId="inner"),
        loop_control("stop", loopId="inner"),
        loop_control("continue", loopId="outer"),
        loop_control("stop", loopId="inner"),
        loop_control("stop", loopId="outer"),
    )
    visited, transitions = run(compiled, agent)
    assert instances(visited) == [
        "outer#1/inner#1/fix",
        "outer#1/inner#2/fix",
        "outer#1/review",
        "outer#2/inner#1/fix",
        "outer#2/review",
    ]
    assert warning_codes(transitions) == []


def test_corpus_style_init_then_loop_runs_two_iterations():
    compiled = workflow(step("init-loop", outputContract=CONTRACT), artifact_loop(), step("complete"))
    agent = deciding(loop_control("continue"), loop_control("continue"), loop_control("stop"))
    visited, _ = run(compiled, agent)
    assert instances(visited) == [
        "init-loop", "work#1/do", "work#1/decide", "work#2/do", "work#2/decide", "complete",
    ]  # fmt: skip


def test_an_older_unconsumed_decision_does_not_count_as_sent_during_an_iteration():
    source = {"kind": "artifact_contract", "contractRef": "wr.contracts.loop_control", "loopId": "work-loop"}
    compiled = workflow(
        step("init", outputContract=CONTRACT),
        loop("work", [step("do")], type="while", conditionSource=source, maxIterations=5),
        step("after"),
    )
    # One output, two decisions: "continue" for any loop, then a newer "continue" for work-loop.
    init = {
        "artifacts": [
            {"kind": "wr.loop_control", "decision": "continue"},
            {"kind": "wr.loop_control", "decision": "continue", "loopId": "work-loop"},
        ]
    }
    second = advance(compiled, start(compiled).state, output=init)
    assert second.pending["stepInstance"] == "work#1/do"
    assert second.state["loopDecisions"] == {"*": {"decision": "continue", "at": 1}}  # the older one remains
    third = advance(compiled, second.state, output=NOTES)
    # Nothing was sent during iteration 1: the stale "continue" does not keep the loop going; the step must decide.
    assert [i["code"] for i in third.issues] == ["LOOP_DECISION_MISSING"]
    fourth = advance(compiled, second.state, output={**NOTES, **loop_control("stop")})
    assert fourth.pending["stepId"] == "after"
    assert fourth.state["loopDecisions"] == {}


def test_a_decision_for_any_loop_sent_after_a_targeted_one_wins():
    compiled = workflow(artifact_loop(), step("after"))
    later_any = {
        "artifacts": [
            {"kind": "wr.loop_control", "decision": "stop", "loopId": "work-loop"},
            {"kind": "wr.loop_control", "decision": "continue"},
        ]
    }
    visited, _ = run(compiled, deciding(later_any, loop_control("stop")))
    assert instances(visited) == ["work#1/do", "work#1/decide", "work#2/do", "work#2/decide", "after"]
