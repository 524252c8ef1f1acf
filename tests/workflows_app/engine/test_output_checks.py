"""Blocking on the agent's output: notes, validationCriteria, output contracts, and expected_output_schema."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.workflows_app.engine.builders import NOTES, loop, step, workflow
from workflows_app.engine import IssueCode, Transition, advance, start

CONTRACT = {"contractRef": "wr.contracts.loop_control"}
FINDINGS = {"contractRef": "mr_review.findings"}


def attempt(target: dict[str, Any], output: Any, context: dict[str, Any] | None = None) -> tuple[Transition, dict]:
    """Starts a workflow whose first step is `target` and acknowledges it with `output`."""
    compiled = workflow(target, step("next"))
    first = start(compiled, context)
    return advance(compiled, first.state, output=output), first.state


def codes(transition: Transition) -> list[str]:
    return [i["code"] for i in transition.issues]


def assert_schema_separates(transition: Transition, bad: Any, good: Any) -> None:
    """The expected_output_schema is a valid 2020-12 schema rejecting what blocked and accepting the fix."""
    schema = transition.expected_output_schema
    assert schema is not None
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    assert not validator.is_valid(bad)
    assert validator.is_valid(good), [e.message for e in validator.iter_errors(good)]


# --- notes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("output", [None, {}, {"notesMarkdown": ""}, {"notesMarkdown": "  \n\t"}])
def test_missing_or_blank_notes_block(output):
    transition, _ = attempt(step("work"), output)
    assert transition.kind == "blocked"
    assert transition.issues == [
        {
            "code": "NOTES_REQUIRED",
            "message": "This step needs output.notesMarkdown: a short account of what was done and found.",
            "pointer": "/notesMarkdown",
        }
    ]
    assert_schema_separates(transition, output or {}, NOTES)


def test_notes_optional_and_contract_steps_do_not_need_notes():
    assert attempt(step("work", notesOptional=True), None)[0].kind == "advanced"
    assert (
        attempt(
            step("work", outputContract=CONTRACT), {"artifacts": [{"kind": "wr.loop_control", "decision": "stop"}]}
        )[0].kind
        == "advanced"
    )
    assert attempt(step("work", outputContract={**CONTRACT, "required": False}), None)[0].kind == "advanced"


def test_pending_says_whether_notes_are_required():
    assert start(workflow(step("a"))).pending["notesRequired"] is True
    assert start(workflow(step("a", notesOptional=True))).pending["notesRequired"] is False
    assert start(workflow(step("a", outputContract=CONTRACT))).pending["notesRequired"] is False


def test_a_blocked_advance_changes_nothing_but_the_context():
    compiled = workflow(step("a"), step("b"))
    first = start(compiled, {"x": 1})
    blocked = advance(compiled, first.state, output={}, context={"y": 2})
    assert blocked.kind == "blocked"
    assert blocked.state == {**first.state, "context": {"x": 1, "y": 2}}
    assert blocked.pending == {**first.pending}
    assert blocked.completed is None
    # The re-rendered pending step sees the context update.
    compiled = workflow(step("a", prompt="Severity {{sev}}"))
    blocked = advance(compiled, start(compiled).state, output={}, context={"sev": "high"})
    assert blocked.pending["prompt"] == "Severity high"


def test_non_blocking_outputs_ignore_extra_keys():
    transition, _ = attempt(step("a"), {"notesMarkdown": "ok", "somethingElse": [1]})
    assert transition.kind == "advanced"


@pytest.mark.parametrize(
    ("output", "pointer"),
    [
        ("notes", ""),
        ({"notesMarkdown": 5}, "/notesMarkdown"),
        ({"notesMarkdown": "x", "artifacts": {"kind": "a"}}, "/artifacts"),
        ({"notesMarkdown": "x", "artifacts": ["a"]}, "/artifacts/0"),
    ],
)
def test_outputs_of_the_wrong_shape_are_output_invalid(output, pointer):
    transition, _ = attempt(step("a"), output)
    assert transition.kind == "blocked"
    assert transition.issues[0]["code"] == IssueCode.OUTPUT_INVALID
    assert transition.issues[0]["pointer"] == pointer
    assert not Draft202012Validator(transition.expected_output_schema).is_valid(output)


# --- validationCriteria -----------------------------------------------------------------------


def rule(kind: str, message: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "message": message, **fields}


@pytest.mark.parametrize(
    ("criteria", "bad", "good"),
    [
        ([rule("contains", "needs plan", value="Test Plan")], "no", "Our test PLAN: ..."),
        ([rule("contains", "needs a.b*", value="a.b*")], "aXbb", "see A.B* here"),
        ([rule("regex", "needs ticket", pattern="^[A-Z]+-\\d+")], "see JIRA-1", "JIRA-12 done"),
        ([rule("regex", "needs ticket", pattern="^jira-\\d+$", flags="im")], "x JIRA-1", "intro\nJIRA-12\nmore"),
        ([rule("regex", "dotall", pattern="start.end", flags="s")], "start\n\nend", "start\nend"),
        ([rule("regex", "unicode", pattern="caf\\u00e9", flags="gu")], "cafe", "café au lait"),
        ([rule("length", "10 to 20", min=10, max=20)], "short", "just long enough"),
        ([rule("length", "at most 5", max=5)], "too long", "tiny"),
        ({"and": [rule("contains", "a", value="alpha"), rule("contains", "b", value="beta")]}, "alpha", "alpha beta"),
        ({"or": [rule("contains", "a", value="alpha"), rule("contains", "b", value="beta")]}, "gamma", "beta"),
        ({"not": rule("contains", "no todo", value="TODO")}, "left a todo", "all done"),
        (
            {
                "and": [
                    {"or": [rule("contains", "x", value="x1"), rule("contains", "y", value="y1")]},
                    {"not": rule("regex", "no digits at end", pattern="\\d$")},
                ]
            },
            "x1 and 2",
            "x1 and two",
        ),
    ],
)
def test_validation_rules_block_failing_notes_and_pass_good_ones(criteria, bad, good):
    target = step("work", validationCriteria=criteria)
    blocked, _ = attempt(target, {"notesMarkdown": bad})
    assert blocked.kind == "blocked"
    assert set(codes(blocked)) == {"VALIDATION_FAILED"}
    assert all(i["pointer"] == "/notesMarkdown" for i in blocked.issues)
    assert attempt(target, {"notesMarkdown": good})[0].kind == "advanced"
    assert_schema_separates(blocked, {"notesMarkdown": bad}, {"notesMarkdown": good})


def test_each_failing_rule_reports_its_own_message():
    criteria = [
        rule("contains", "Must identify learning objectives", value="learning objective"),
        rule("contains", "Must mention a study guide", value="study guide"),
        rule("length", "Between 10 and 800 characters", min=10, max=800),
    ]
    blocked, _ = attempt(step("work", validationCriteria=criteria), {"notesMarkdown": "A study guide."})
    assert blocked.issues == [
        {"code": "VALIDATION_FAILED", "message": "Must identify learning objectives", "pointer": "/notesMarkdown"},
    ]
    blocked, _ = attempt(step("work", validationCriteria=criteria), {"notesMarkdown": "nothing"})
    assert [i["message"] for i in blocked.issues] == [
        "Must identify learning objectives",
        "Must mention a study guide",
        "Between 10 and 800 characters",
    ]


def test_a_failing_or_reports_every_alternative_and_a_failing_not_names_the_rule():
    criteria = {
        "or": [rule("contains", "mention alpha", value="alpha"), rule("contains", "mention beta", value="beta")]
    }
    blocked, _ = attempt(step("w", validationCriteria=criteria), {"notesMarkdown": "none"})
    assert [i["message"] for i in blocked.issues] == ["mention alpha", "mention beta"]
    negated = {"not": rule("contains", "Mentions secrets", value="password")}
    blocked, _ = attempt(step("w", validationCriteria=negated), {"notesMarkdown": "the password is x"})
    assert [i["message"] for i in blocked.issues] == ["Must not hold: Mentions secrets"]


def test_rule_conditions_skip_rules_whose_condition_is_false():
    criteria = [rule("contains", "epic needs estimate", value="estimate", condition={"var": "size", "equals": "epic"})]
    target = step("w", validationCriteria=criteria)
    assert attempt(target, NOTES, {"size": "small"})[0].kind == "advanced"
    blocked, _ = attempt(target, NOTES, {"size": "epic"})
    assert codes(blocked) == ["VALIDATION_FAILED"]
    # The schema describes only the rules that apply.
    assert_schema_separates(blocked, NOTES, {"notesMarkdown": "an estimate"})


def test_rule_conditions_see_loop_variables():
    criteria = [rule("contains", "mention the item", value="alpha", condition={"var": "currentItem", "equals": "a"})]
    compiled = workflow(
        loop("each", [step("w", validationCriteria=criteria)], type="forEach", items="xs", maxIterations=3)
    )
    first = start(compiled, {"xs": ["a"]})
    assert advance(compiled, first.state, output=NOTES).kind == "blocked"


def test_not_of_a_skipped_rule_does_not_block():
    criteria = {"not": rule("contains", "x", value="x", condition={"var": "never"})}
    transition, _ = attempt(step("w", validationCriteria=criteria), {"notesMarkdown": "x"})
    assert transition.kind == "advanced"


def test_schema_rules_validate_the_whole_output():
    schema = {
        "type": "object",
        "required": ["artifacts"],
        "properties": {
            "artifacts": {
                "type": "array",
                "minItems": 1,
                "items": {"required": ["kind", "score"], "properties": {"score": {"type": "integer"}}},
            }
        },
    }
    # An optional inline contract makes 'score' a known artifact kind (any object), so only the rule judges it.
    scores = {"contractRef": "test.score", "required": False, "artifactKind": "score", "schema": {}, "example": {}}
    target = step(
        "w", validationCriteria=[rule("schema", "Send a scored artifact", schema=schema)], outputContract=scores
    )
    bad = {"notesMarkdown": "x", "artifacts": [{"kind": "score", "score": "high"}]}
    blocked, _ = attempt(target, bad)
    assert codes(blocked) == ["VALIDATION_FAILED"]
    assert blocked.issues[0]["pointer"] == "/artifacts/0/score"
    assert blocked.issues[0]["message"].startswith("Send a scored artifact (")
    good = {"notesMarkdown": "x", "artifacts": [{"kind": "score", "score": 3}]}
    assert attempt(target, good)[0].kind == "advanced"
    assert_schema_separates(blocked, bad, good)


def test_schema_rules_with_local_references_keep_working_in_the_expected_schema():
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"note": {"type": "string", "minLength": 5}},
        "properties": {"notesMarkdown": {"$ref": "#/definitions/note"}},
    }
    target = step("w", validationCriteria=[rule("schema", "Five characters", schema=schema)])
    blocked, _ = attempt(target, {"notesMarkdown": "abc"})
    assert codes(blocked) == ["VALIDATION_FAILED"]
    assert_schema_separates(blocked, {"notesMarkdown": "abc"}, {"notesMarkdown": "abcdef"})


@pytest.mark.parametrize(
    "broken",
    [
        rule("regex", "bad pattern", pattern="(unclosed"),
        rule("regex", "bad flag", pattern="x", flags="q"),
        rule("length", "bad bound", min="ten"),
        rule("schema", "bad schema", schema={"type": 12}),
        rule("soundex", "unknown type"),
    ],
)
def test_unusable_rules_are_skipped_with_a_warning(broken):
    transition, _ = attempt(step("w", validationCriteria=[broken]), NOTES)
    assert transition.kind == "advanced"
    assert [w["code"] for w in transition.warnings] == ["VALIDATION_RULE_INVALID"]


def test_missing_notes_report_notes_required_and_failing_rules_together():
    criteria = [rule("contains", "needs plan", value="plan"), rule("length", "short", max=100)]
    blocked, _ = attempt(step("w", validationCriteria=criteria), {})
    assert codes(blocked) == ["NOTES_REQUIRED", "VALIDATION_FAILED"]
    assert_schema_separates(blocked, {}, {"notesMarkdown": "the plan"})


def test_text_rules_apply_to_optional_notes_too():
    target = step("w", notesOptional=True, validationCriteria=[rule("contains", "say done", value="done")])
    blocked, _ = attempt(target, {})
    assert codes(blocked) == ["VALIDATION_FAILED"]
    assert_schema_separates(blocked, {}, {"notesMarkdown": "done"})
    # A rule the empty text satisfies does not make optional notes required.
    relaxed = step("w", notesOptional=True, validationCriteria=[rule("length", "short", max=10)])
    assert attempt(relaxed, {})[0].kind == "advanced"


# --- output contracts -------------------------------------------------------------------------


def test_a_required_contract_without_its_artifact_blocks_with_artifact_missing():
    target = step("decide", outputContract=CONTRACT)
    bad = {"notesMarkdown": "x", "artifacts": [{"kind": "something.else"}]}
    blocked, _ = attempt(target, bad)
    assert codes(blocked) == ["ARTIFACT_MISSING", "ARTIFACT_INVALID"]  # and 'something.else' is no known kind
    assert blocked.issues[0]["pointer"] == "/artifacts"
    assert "wr.loop_control" in blocked.issues[0]["message"]
    good = {"artifacts": [{"kind": "wr.loop_control", "decision": "stop"}]}
    assert_schema_separates(blocked, bad, good)
    assert_schema_separates(blocked, {}, good)


@pytest.mark.parametrize(
    ("artifact", "pointer"),
    [
        ({"kind": "wr.loop_control", "decision": "maybe"}, "/artifacts/0/decision"),
        ({"kind": "wr.loop_control"}, "/artifacts/0"),
        ({"kind": "wr.loop_control", "decision": "stop", "extra": 1}, "/artifacts/0"),
    ],
)
def test_an_artifact_failing_the_contract_schema_blocks_with_its_pointer(artifact, pointer):
    blocked, _ = attempt(step("decide", outputContract=CONTRACT), {"artifacts": [artifact]})
    assert codes(blocked) == ["ARTIFACT_INVALID"]
    assert blocked.issues[0]["pointer"] == pointer
    assert pointer in blocked.issues[0]["message"]
    assert_schema_separates(
        blocked, {"artifacts": [artifact]}, {"artifacts": [{"kind": "wr.loop_control", "decision": "continue"}]}
    )


def test_invalid_artifacts_are_reported_with_their_index_and_every_problem():
    output = {
        "artifacts": [
            {"kind": "note"},
            {
                "kind": "mr_review.findings",
                "findings": [
                    {"severity": "Huge", "title": "", "location": {"file": "a.py"}, "rationale": "r", "suggestion": "s"}
                ],
            },
        ]
    }
    blocked, _ = attempt(step("review", outputContract=FINDINGS), output)
    assert [(i["code"], i["pointer"]) for i in blocked.issues] == [
        ("ARTIFACT_INVALID", "/artifacts/0/kind"),
        ("ARTIFACT_INVALID", "/artifacts/1/findings/0/severity"),
        ("ARTIFACT_INVALID", "/artifacts/1/findings/0/title"),
    ]


def test_an_optional_contract_passes_without_the_artifact_but_not_with_an_invalid_one():
    target = step("decide", outputContract={**CONTRACT, "required": False})
    assert attempt(target, {})[0].kind == "advanced"
    blocked, _ = attempt(target, {"artifacts": [{"kind": "wr.loop_control", "decision": "?"}]})
    assert codes(blocked) == ["ARTIFACT_INVALID"]
    schema = blocked.expected_output_schema
    assert "artifacts" not in schema["required"]
    assert_schema_separates(blocked, {"artifacts": [{"kind": "wr.loop_control", "decision": "?"}]}, {})


def test_the_pending_output_contract_comes_from_the_builtin_contracts():
    pending = start(workflow(step("decide", outputContract=FINDINGS))).pending
    contract = pending["outputContract"]
    assert contract["contractRef"] == "mr_review.findings"
    assert contract["required"] is True
    assert contract["artifactKind"] == "mr_review.findings"
    assert contract["schema"]["required"] == ["kind", "findings"]
    # The example is itself a valid artifact, so an agent can start from it.
    assert Draft202012Validator(contract["schema"]).is_valid(contract["example"])
    assert attempt(step("decide", outputContract=FINDINGS), {"artifacts": [contract["example"]]})[0].kind == "advanced"


def test_expected_output_schema_is_only_sent_when_blocked():
    transition, _ = attempt(step("a"), NOTES)
    assert transition.kind == "advanced"
    assert transition.expected_output_schema is None
    assert transition.issues == []


def test_expected_output_schema_declares_draft_2020_12():
    blocked, _ = attempt(step("a"), {})
    assert blocked.expected_output_schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert blocked.expected_output_schema["required"] == ["notesMarkdown"]
