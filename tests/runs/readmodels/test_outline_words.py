"""runs/readmodels/outline_words.py: every kind of loop and confirmation rule, in words."""

from __future__ import annotations

from runs.readmodels.outline_words import confirmation_words, loop_words


def loop(**config: object) -> dict:
    return {"id": "l", "kind": "loop", "loop": {"maxIterations": 5, **config}}


def test_each_kind_of_loop_says_how_it_repeats_and_its_limit():
    assert loop_words(loop(type="for", count=3)) == "3 rounds, at most 5 rounds"
    assert loop_words(loop(type="for", count="sliceCount")) == "sliceCount rounds, at most 5 rounds"
    assert loop_words(loop(type="until", condition={"var": "done"})) == "repeats until done is true, at most 5 rounds"
    assert loop_words(loop(type="while")) == "repeats as the agent decides after each round, at most 5 rounds"
    decided = loop(type="while", conditionSource={"kind": "artifact_contract", "loopId": "review"})
    assert loop_words(decided) == (
        "repeats while the agent's wr.loop_control decision for review says continue, at most 5 rounds"
    )
    assert loop_words({"id": "s"}) == ""


def test_a_confirmation_rule_says_when_it_asks():
    assert confirmation_words(True) == "asks for confirmation"
    assert confirmation_words(False) == ""
    assert confirmation_words({"var": "risky"}) == "asks for confirmation when risky is true"
    assert confirmation_words({"kind": "human_approval", "condition": {"var": "n", "gte": 2}}) == (
        "asks for confirmation when n is at least 2"
    )
    assert confirmation_words({"kind": "human_approval"}) == "asks for confirmation"
