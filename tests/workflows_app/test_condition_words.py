"""workflows_app/condition_words.py: one walk over a condition, said in the style of its reader."""

from __future__ import annotations

import pytest

from workflows_app.condition_words import AGENT, CODE, PEOPLE, describe, is_simple

RISKY = {"or": [{"var": "riskLevel", "equals": "high"}, {"var": "changeSize", "equals": "large"}]}


@pytest.mark.parametrize(
    ("condition", "agent", "code", "people"),
    [
        (
            {"var": "riskLevel", "equals": "high"},
            'riskLevel is "high"',
            "riskLevel == 'high'",
            "risk level is 'high'",
        ),
        (
            RISKY,
            'riskLevel is "high" or changeSize is "large"',
            "riskLevel == 'high' or changeSize == 'large'",
            "risk level is 'high' or change size is 'large'",
        ),
        ({"var": "touchesDocs"}, "touchesDocs is set and true", "touchesDocs", "touches docs is true"),
        (
            {"not": {"var": "skipTests"}},
            "not (skipTests is set and true)",
            "not skipTests",
            "skip tests is false or not set",
        ),
        (
            {"not": {"var": "a", "equals": 1}},
            "not (a is 1)",
            "not (a == 1)",
            "not (a is 1)",
        ),
        ({"var": "rounds", "gt": 0}, "rounds > 0", "rounds > 0", "rounds is more than 0"),
        (
            {"var": "mode", "in": ["fast", "full"]},
            'mode is one of "fast", "full"',
            "mode in ['fast', 'full']",
            "mode is one of 'fast' or 'full'",
        ),
        (
            {"var": "a", "gte": 2, "and": [{"var": "b"}, {"or": [{"var": "c"}, {"var": "d", "lt": 1}]}]},
            "a >= 2 and (b is set and true and c is set and true or d < 1)",  # as agents have always read it
            "(b and (c or d < 1)) and a >= 2",
            "a is at least 2 and (b is true and (c is true or d is less than 1))",
        ),
        ({}, "always", "always", "always"),
        (None, "always", "always", "always"),
    ],
)
def test_each_style_says_the_same_condition_its_own_way(condition, agent, code, people):
    assert describe(condition) == describe(condition, AGENT) == agent
    assert describe(condition, CODE) == code
    assert describe(condition, PEOPLE) == people


def test_words_for_people_say_a_variables_name_as_words():
    # friction64 A1: "only if postComments is true" on a page; the name as written stays in CODE.
    assert describe({"var": "postComments"}, PEOPLE) == "post comments is true"
    assert describe({"var": "polish_rounds", "equals": 0}, PEOPLE) == "polish rounds is 0"
    assert describe({"var": "prURL"}, PEOPLE) == "pr URL is true"
    assert describe({"var": "postComments"}, CODE) == "postComments"


def test_a_value_that_reads_like_a_combinator_is_not_bracketed_as_one():
    assert describe({"and": [{"var": "a", "equals": "x or y"}, {"var": "b"}]}, PEOPLE) == "a is 'x or y' and b is true"


def test_long_lists_are_cut_in_code_and_in_words_but_not_for_the_agent():
    many = {"var": "n", "in": list(range(10))}
    assert describe(many, CODE) == "n in [0, 1, 2, 3, 4, 5, 6, 7, …]"
    assert describe(many, PEOPLE) == "n is one of 0, 1, 2, 3, 4, 5, 6, 7, …"
    assert describe(many) == "n is one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9"


def test_a_simple_condition_is_one_clause():
    assert is_simple({"var": "a"}) and is_simple({"var": "a", "equals": 1}) and is_simple({"not": {"var": "a"}})
    assert not is_simple({"var": "a", "gt": 1, "lt": 3})
    assert not is_simple(RISKY) and not is_simple({}) and not is_simple({"not": {"var": "a", "equals": 1}})
