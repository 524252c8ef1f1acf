"""runs/readmodels/outline_words.py: every kind of loop and confirmation rule, in words."""

from __future__ import annotations

from runs.readmodels.outline_words import (
    Name,
    confirmation_words,
    fills_in,
    loop_words,
    plain,
    preference_words,
    recommendation_words,
    title_words,
)


def loop(**config: object) -> dict:
    return {"id": "l", "kind": "loop", "loop": {"maxIterations": 5, **config}}


def test_each_kind_of_loop_says_how_it_repeats_and_its_limit():
    assert plain(loop_words(loop(type="for", count=3))) == "Repeats 3 times (at most 5 rounds)"
    assert plain(loop_words(loop(type="for", count="sliceCount"))) == (
        "Repeats as many times as sliceCount says (at most 5 rounds)"
    )
    assert plain(loop_words(loop(type="until", condition={"var": "done"}))) == (
        "Repeats until done is true (at most 5 rounds)"
    )
    assert plain(loop_words(loop(type="while"))) == "Repeats as the agent decides after each round (at most 5 rounds)"
    decided = loop(type="while", conditionSource={"kind": "artifact_contract", "loopId": "review"})
    assert plain(loop_words(decided)) == (
        "Repeats while the agent's wr.loop_control decision for review says continue (at most 5 rounds)"
    )
    assert loop_words({"id": "s"}) == ()


def test_a_loop_keeps_the_workflows_own_names_apart_from_the_words():
    """The variable a forEach walks is a Name (shown as code), the rest plain words."""
    assert loop_words(loop(type="forEach", items="reviewAreas")) == (
        "Repeats once for each item in ",
        Name("reviewAreas"),
        " (at most 5 rounds)",
    )


def test_a_title_with_a_placeholder_shows_it_as_a_name_to_fill_in():
    assert title_words("Review {{area}}") == "Review [area]"
    assert fills_in("Review {{area}}")
    assert not fills_in("Review the plan")


def test_recommended_preferences_read_as_words_not_field_names():
    recommended = {"recommendedAutonomy": "guided", "recommendedRiskPolicy": "balanced"}
    assert recommendation_words(recommended) == "autonomy guided, risk policy balanced"
    assert recommendation_words({"recommendedRiskPolicy": "conservative"}) == "risk policy conservative"
    assert recommendation_words(None) == ""


def test_a_confirmation_rule_says_when_it_asks():
    assert confirmation_words(True) == "asks for confirmation"
    assert confirmation_words(False) == ""
    assert confirmation_words({"var": "risky"}) == "asks for confirmation when risky is true"
    assert confirmation_words({"kind": "human_approval", "condition": {"var": "n", "gte": 2}}) == (
        "asks for confirmation when n is at least 2"
    )
    assert confirmation_words({"kind": "human_approval"}) == "asks for confirmation"


def test_preferences_read_as_words_not_keys():
    assert preference_words({"autonomy": "guided", "riskPolicy": "balanced"}) == "autonomy guided, risk policy balanced"
    assert preference_words(None) == ""
