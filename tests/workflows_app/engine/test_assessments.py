"""Assessments: a step naming assessments is done only when each is rated, every dimension at a
declared level; a consequence keeps the step pending while a watched dimension sits at its level."""

from tests.workflows_app.engine.builders import step, workflow
from workflows_app.engine import advance, output_schema, start

READINESS = {
    "id": "readiness",
    "purpose": "Is it ready?",
    "dimensions": [
        {"id": "tests", "purpose": "Test coverage.", "levels": ["low", "medium", "high"]},
        {"id": "docs", "purpose": "Docs.", "levels": ["missing", "present"], "required": False},
    ],
}
RISK = {
    "id": "risk",
    "purpose": "Rollout risk.",
    "dimensions": [{"id": "blast", "purpose": "Reach.", "levels": ["small", "large"]}],
}


def assessed(*refs, consequences=None):
    compiled = workflow(
        step("assess", assessmentRefs=list(refs), **({"assessmentConsequences": consequences} if consequences else {})),
        step("after"),
    )
    compiled["assessments"] = [READINESS, RISK]
    return compiled


def rating(assessment_id=None, **dimensions):
    artifact = {"kind": "wr.assessment", "dimensions": dimensions}
    if assessment_id:
        artifact["assessmentId"] = assessment_id
    return artifact


def ack(compiled, *artifacts):
    begun = start(compiled)
    return advance(compiled, begun.state, output={"notesMarkdown": "Assessed.", "artifacts": list(artifacts)})


def codes(transition):
    return [(i["code"], i.get("pointer")) for i in transition.issues]


def test_the_pending_step_shows_what_to_rate_and_what_calls_for_follow_up():
    compiled = assessed(
        "readiness",
        consequences=[
            {"when": {"anyEqualsLevel": "low"}, "effect": {"kind": "require_followup", "guidance": "Add tests."}}
        ],
    )
    [shown] = start(compiled).pending["assessments"]
    assert shown["assessmentId"] == "readiness"
    assert [(d["id"], d["levels"], d["required"]) for d in shown["dimensions"]] == [
        ("tests", ["low", "medium", "high"], True),
        ("docs", ["missing", "present"], False),
    ]
    assert shown["followUpWhen"] == [{"level": "low", "guidance": "Add tests."}]


def test_a_missing_assessment_blocks():
    blocked = ack(assessed("readiness"))
    assert blocked.kind == "blocked" and codes(blocked) == [("ASSESSMENT_MISSING", "/artifacts")]


def test_with_one_assessment_the_id_may_be_left_out_and_optional_dimensions_too():
    assert ack(assessed("readiness"), rating(tests="high")).kind == "advanced"
    assert (
        ack(assessed("readiness"), rating(tests={"level": "medium", "rationale": "Happy paths only."})).kind
        == "advanced"
    )


def test_unknown_dimensions_undeclared_levels_and_missing_required_ones_are_invalid():
    blocked = ack(assessed("readiness"), rating(tests="great", speed="fast"))
    assert codes(blocked) == [
        ("ASSESSMENT_INVALID", "/artifacts/0/dimensions/tests"),
        ("ASSESSMENT_INVALID", "/artifacts/0/dimensions/speed"),
    ]
    assert codes(ack(assessed("readiness"), rating(docs="present"))) == [
        ("ASSESSMENT_INVALID", "/artifacts/0/dimensions")
    ]


def test_with_two_assessments_each_is_named_and_each_is_needed():
    compiled = assessed("readiness", "risk")
    assert codes(ack(compiled, rating("readiness", tests="high"))) == [("ASSESSMENT_MISSING", "/artifacts")]
    assert ack(compiled, rating("readiness", tests="high"), rating("risk", blast="small")).kind == "advanced"


def test_a_consequence_keeps_the_step_pending_until_the_level_is_addressed():
    consequences = [
        {
            "when": {"anyEqualsLevel": "low", "forAssessment": "readiness"},
            "effect": {"kind": "require_followup", "guidance": "Add tests."},
        },
        {"when": {"anyEqualsLevel": "large"}, "effect": {"kind": "require_followup", "guidance": "Stage the rollout."}},
    ]
    compiled = assessed("readiness", "risk", consequences=consequences)
    blocked = ack(compiled, rating("readiness", tests="low"), rating("risk", blast="large"))
    assert [i["code"] for i in blocked.issues] == ["ASSESSMENT_FOLLOWUP_REQUIRED"] * 2
    assert "readiness.tests rated 'low': Add tests." in blocked.issues[0]["message"]
    assert "risk.blast rated 'large': Stage the rollout." in blocked.issues[1]["message"]
    assert blocked.pending["stepId"] == "assess"
    retried = advance(
        compiled,
        blocked.state,
        output={
            "notesMarkdown": "Added tests.",
            "artifacts": [rating("readiness", tests="medium"), rating("risk", blast="small")],
        },
    )
    assert retried.kind == "advanced" and retried.pending["stepId"] == "after"


def test_the_expected_output_schema_asks_for_each_rating():
    from jsonschema import Draft202012Validator

    compiled = assessed("readiness", "risk")
    schema = output_schema(compiled, start(compiled).state)
    validator = Draft202012Validator(schema)
    good = {"notesMarkdown": "x", "artifacts": [rating("readiness", tests="high"), rating("risk", blast="small")]}
    assert validator.is_valid(good)
    assert not validator.is_valid({"notesMarkdown": "x", "artifacts": [rating("readiness", tests="high")]})
    assert not validator.is_valid(
        {"notesMarkdown": "x", "artifacts": [rating("readiness", tests="great"), rating("risk", blast="small")]}
    )
