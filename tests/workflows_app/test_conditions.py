import pytest

from workflows_app import conditions
from workflows_app.conditions import condition_problems, evaluate

CONTEXT = {
    "complexity": "Standard",
    "count": 3,
    "flag": True,
    "tags": ["api", "db"],
    "name": "feature/login",
    "nested": {"level": 2},
    "items": [1, 2, 3],
}


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({}, True),
        ({"var": "complexity", "equals": "Standard"}, True),
        ({"var": "complexity", "equals": "standard "}, True),
        ({"var": "complexity", "equals": "Epic"}, False),
        ({"var": "complexity", "not_equals": "Epic"}, True),
        ({"var": "missing", "not_equals": "Epic"}, True),
        ({"var": "missing", "equals": "Epic"}, False),
        ({"var": "count", "gt": 2}, True),
        ({"var": "count", "gte": 3}, True),
        ({"var": "count", "lt": 3}, False),
        ({"var": "count", "lte": 3}, True),
        ({"var": "count", "equals": "3"}, True),
        ({"var": "flag", "equals": True}, True),
        ({"var": "flag", "equals": "true"}, True),
        ({"var": "flag"}, True),
        ({"var": "missing"}, False),
        ({"var": "tags", "contains": "db"}, True),
        ({"var": "name", "contains": "LOGIN"}, True),
        ({"var": "name", "startsWith": "feature/"}, True),
        ({"var": "name", "endsWith": "logout"}, False),
        ({"var": "name", "matches": r"^feature/\w+$"}, True),
        ({"var": "complexity", "in": ["Simple", "Standard"]}, True),
        ({"var": "complexity", "in": ["Simple"]}, False),
        ({"var": "nested.level", "gte": 2}, True),
        ({"var": "items.length", "equals": 3}, True),
        ({"and": [{"var": "count", "gt": 1}, {"var": "flag", "equals": True}]}, True),
        ({"and": [{"var": "count", "gt": 1}, {"var": "flag", "equals": False}]}, False),
        ({"or": [{"var": "count", "gt": 10}, {"var": "flag", "equals": True}]}, True),
        ({"not": {"var": "count", "gt": 10}}, True),
        ({"var": "complexity", "gt": 2}, False),
    ],
)
def test_it_evaluates_the_workrail_condition_language(condition, expected):
    assert condition_problems(condition) == []
    assert evaluate(condition, CONTEXT) is expected


@pytest.mark.parametrize(
    ("condition", "fragment"),
    [
        ("not an object", "must be an object"),
        ({"equals": 3}, "needs a 'var'"),
        ({"var": "x", "gt": "three"}, "compares numbers"),
        ({"var": "x", "matches": "("}, "invalid regular expression"),
        ({"var": "x", "in": "abc"}, "list of allowed values"),
        ({"var": "x", "like": "abc"}, "unknown operator"),
        ({"and": []}, "non-empty list"),
        ({"or": [{"var": "x", "gt": "y"}]}, "compares numbers"),
        ({"not": {"var": ""}}, "non-empty variable name"),
    ],
)
def test_it_explains_invalid_conditions(condition, fragment):
    problems = condition_problems(condition)
    assert problems, condition
    assert any(fragment in message for _pointer, message in problems)


def test_it_points_at_the_nested_problem():
    problems = condition_problems({"and": [{"var": "a"}, {"var": "b", "lt": "x"}]}, "/steps/0/runCondition")
    assert problems == [("/steps/0/runCondition/and/1/lt", "'lt' compares numbers; give a number")]


def test_a_catastrophically_backtracking_pattern_matches_in_linear_time():
    condition = {"var": "name", "matches": "^(a+)+$"}  # exponential in a backtracking engine
    # Python's re would not return from the first call before the universe ends; RE2 answers both.
    assert evaluate(condition, {"name": "a" * 100_000 + "b"}) is False
    assert evaluate(condition, {"name": "a" * 100_000}) is True
    assert type(conditions._regex("^(a+)+$")).__module__.startswith("re2")  # the linear-time engine


def test_patterns_re2_cannot_run_in_linear_time_are_refused_when_the_workflow_loads():
    [(pointer, message)] = condition_problems({"var": "x", "matches": "(a)\\1"})
    assert pointer == "/matches" and "RE2 syntax" in message
    [(_, lookaround)] = condition_problems({"var": "x", "matches": "(?<=a)b"})
    assert "no backreferences or lookaround" in lookaround
