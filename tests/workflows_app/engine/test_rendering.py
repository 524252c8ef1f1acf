"""The pending step as rendered for the agent: templating, prompt fragments, confirmation, shape."""

from __future__ import annotations

from typing import Any

import pytest

from tests.workflows_app.engine.builders import loop, step, workflow
from workflows_app.engine import advance, start


def rendered(prompt: str, context: dict[str, Any]) -> str:
    pending = start(workflow(step("s", prompt=prompt)), context).pending
    assert pending is not None
    return pending["prompt"]


@pytest.mark.parametrize(
    ("prompt", "context", "expected"),
    [
        ("Hello {{name}}!", {"name": "Ada"}, "Hello Ada!"),
        ("{{ name }}", {"name": "spaced"}, "spaced"),
        ("{{ticket.priority}}", {"ticket": {"priority": "P1"}}, "P1"),
        ("{{items.length}} items", {"items": [1, 2, 3]}, "3 items"),
        ("first {{items.0}}", {"items": ["a", "b"]}, "first a"),
        ("{{idx + 1}} of {{n}}", {"idx": 0, "n": 4}, "1 of 4"),
        ("{{n - 1}}", {"n": 4}, "3"),
        ("{{n-10}}", {"n": 4}, "-6"),
        ("{{items.length + 2}}", {"items": [1]}, "3"),
        ("{{n + 1}}", {"n": "41"}, "42"),
        ("{{x + 1}}", {"x": 2.0}, "3"),
        ("{{flag}}/{{off}}", {"flag": True, "off": False}, "true/false"),
        ("{{nothing}}", {"nothing": None}, "null"),
        ("{{ratio}}", {"ratio": 0.5}, "0.5"),
        ("{{list}}", {"list": [1, "two", {"k": True}]}, '[1,"two",{"k":true}]'),
        ("{{obj}}", {"obj": {"b": 1, "a": [2]}}, '{"b":1,"a":[2]}'),
        ("{{unicode}}", {"unicode": ["é"]}, '["é"]'),
        ("{{missing}} and {{a.missing}}", {"a": {}}, "[not set: missing] and [not set: a.missing]"),
        ("{{wr.refs.something}}", {}, "[not set: wr.refs.something]"),
        ("{{name + 1}}", {"name": "Ada"}, "[not a whole number: name]"),
        ("{{n + 1}}", {"n": 1.5}, "[not a whole number: n]"),
        ("{{flag + 1}}", {"flag": True}, "[not a whole number: flag]"),
        ("{{a * 2}} {{ a + b }}", {"a": 1, "b": 2}, "{{a * 2}} {{ a + b }}"),
        ("{{v}}", {"v": "{{w}}", "w": "no second pass"}, "{{w}}"),
        ("{single} {{{x}}}", {"x": 1}, "{single} {1}"),
    ],
)
def test_placeholders_are_resolved_from_the_context(prompt, context, expected):
    assert rendered(prompt, context) == expected


def test_titles_are_templated_too():
    compiled = workflow(
        loop("each", [step("s", title="Review {{currentItem}}")], type="forEach", items="xs", maxIterations=2)
    )
    assert start(compiled, {"xs": ["api"]}).pending["title"] == "Review api"


def test_prompt_fragments_whose_condition_holds_are_appended_in_order():
    fragments = [
        {"id": "one", "text": "First {{who}}."},
        {"id": "two", "when": {"var": "mode", "equals": "deep"}, "text": "Go deep."},
        {"id": "three", "when": {"var": "mode", "equals": "fast"}, "text": "Go fast."},
        {"id": "four", "when": {"var": "mode", "not_equals": "fast"}, "text": "Not fast."},
    ]
    compiled = workflow(step("s", prompt="Base.", promptFragments=fragments))
    assert start(compiled, {"mode": "deep", "who": "me"}).pending["prompt"] == (
        "Base.\n\nFirst me.\n\nGo deep.\n\nNot fast."
    )
    assert start(compiled, {"mode": "fast"}).pending["prompt"] == "Base.\n\nFirst [not set: who].\n\nGo fast."


def test_prompt_fragments_see_loop_variables():
    fragments = [{"id": "last", "when": {"var": "currentIteration", "equals": 2}, "text": "Last round."}]
    compiled = workflow(
        loop("l", [step("s", prompt="Round.", promptFragments=fragments)], type="for", count=2, maxIterations=3)
    )
    first = start(compiled)
    assert first.pending["prompt"] == "Round."
    second = advance(compiled, first.state, output={"notesMarkdown": "x"})
    assert second.pending["prompt"] == "Round.\n\nLast round."


@pytest.mark.parametrize(
    ("rule", "context", "expected"),
    [
        (None, {}, False),
        (True, {}, True),
        (False, {}, False),
        ({"var": "risk", "equals": "high"}, {"risk": "High"}, True),
        ({"var": "risk", "equals": "high"}, {"risk": "low"}, False),
        ({"var": "risk", "equals": "high"}, {}, False),
        ({"kind": "human_approval"}, {}, True),
        ({"kind": "coordinator_eval", "condition": {"var": "n", "gt": 0}}, {"n": 1}, True),
        ({"kind": "human_approval", "condition": {"var": "n", "gt": 0}}, {"n": 0}, False),
        ({"or": [{"var": "a", "equals": True}, {"var": "b", "equals": True}]}, {"b": "true"}, True),
    ],
)
def test_require_confirmation_forms(rule, context, expected):
    fields = {} if rule is None else {"requireConfirmation": rule}
    assert start(workflow(step("s", **fields)), context).pending["requireConfirmation"] is expected


def test_pending_has_exactly_the_documented_shape():
    pending = start(workflow(step("s", agentRole="You are a careful reviewer."))).pending
    assert pending == {
        "stepId": "s",
        "title": "S",
        "prompt": "Do s.",
        "agentRole": "You are a careful reviewer.",
        "requireConfirmation": False,
        "notesRequired": True,
        "outputContract": None,
        "loop": None,
        "stepInstance": "s",
    }


def test_a_step_without_prompt_shows_its_title():
    bare = {"kind": "step", "id": "bare", "title": "Just the title"}
    assert start(workflow(bare)).pending["prompt"] == "Just the title"
