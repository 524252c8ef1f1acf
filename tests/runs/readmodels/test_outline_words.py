"""runs/readmodels/outline_words.py: every kind of loop and confirmation rule, in words."""

from __future__ import annotations

from runs.readmodels.outline_words import (
    FEATURE_WORDS,
    Name,
    confirmation_words,
    feature_words,
    fills_in,
    loop_unit,
    loop_words,
    plain,
    preference_words,
    recommendation_does,
    recommendation_words,
    title_words,
)
from workflows_app.builtins.features import FEATURES


def loop(**config: object) -> dict:
    return {"id": "l", "kind": "loop", "loop": {"maxIterations": 5, **config}}


def test_each_kind_of_loop_says_how_it_repeats_and_its_limit():
    assert plain(loop_words(loop(type="for", count=3))) == "Repeats 3 times (at most 5 rounds)"
    assert plain(loop_words(loop(type="for", count="sliceCount"))) == (
        "Repeats as many times as slice count says (at most 5 rounds)"
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
    """The variable a forEach walks is a Name (said as words, its name as written kept), the rest plain words."""
    assert loop_words(loop(type="forEach", items="reviewAreas")) == (
        "Repeats once for each item in ",
        Name("reviewAreas", "review areas"),
        " (at most 5 rounds)",
    )


def test_a_loop_that_names_its_item_calls_its_rounds_by_it_as_the_run_pages_do():
    # Friction26b 4: the run said "area 1 of 2" and the outline "rounds": one word for one thing (StepPlace.unit).
    named = loop(type="forEach", items="reviewAreas", itemVar="currentArea")
    assert plain(loop_words(named)) == "Repeats once for each area in review areas (at most 5 areas)"
    assert loop_unit(named) == "area"
    assert plain(loop_words({**named, "loop": {**named["loop"], "maxIterations": 1}})).endswith("(at most 1 area)")
    assert loop_unit(loop(type="forEach", items="xs", itemVar="currentItem")) == ""  # names nothing: "round"


def test_a_title_with_a_placeholder_shows_it_as_a_name_to_fill_in():
    assert title_words("Review {{area}}") == "Review [area]"
    assert fills_in("Review {{area}}")
    assert not fills_in("Review the plan")


def test_recommended_preferences_read_as_the_session_heads_mode_words():
    # The session's head says "Mode: Guided, balanced risk": a workflow's recommendation in the same words
    # (friction12 10), never "autonomy guided, risk policy balanced".
    recommended = {"recommendedAutonomy": "guided", "recommendedRiskPolicy": "balanced"}
    assert recommendation_words(recommended) == "Guided, balanced risk"
    assert recommendation_words({"recommendedAutonomy": "full_auto_stop_on_user_deps"}) == "Autopilot, stops for you"
    assert recommendation_words({"recommendedRiskPolicy": "conservative"}) == "conservative risk"
    assert recommendation_words(None) == ""
    # What it makes the agent do, from the STANCES table the session's Mode line reads.
    assert recommendation_does(recommended) == (
        "The agent asks you at every confirmation, and weighs risk against speed."
    )
    assert recommendation_does({}) == ""


def test_every_feature_reads_in_plain_words_and_an_unknown_one_as_written():
    assert set(FEATURE_WORDS) == set(FEATURES)  # one table, complete: a new feature needs its words
    said = feature_words(["wr.features.subagent_guidance", "wr.features.not_here"])
    assert said[0].words.startswith("delegates") and said[0].id == "wr.features.subagent_guidance"
    assert said[1].words == "" and said[1].id == "wr.features.not_here"  # the page marks it as unknown
    assert feature_words(None) == []


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
