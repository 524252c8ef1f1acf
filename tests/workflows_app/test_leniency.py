"""Lenient where WorkRail is lenient, strict where a typo would change what runs.

A reference that only adds text or checks to a step and that nothing defines (a function name, a
`wr.refs.*` snippet, a `wr.features.*` feature, a step's output contract) loads with an
UNRESOLVED_REFERENCE warning and is listed under the compiled workflow's `leftOut`; what changes
the control flow (templates, assessments, loops, conditions, step ids, binding slots) stays an error.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json
from workflows_app.diagnostics import Code, Severity
from workflows_app.engine import advance, start

UNKNOWN_EVERYTHING = workflow_doc(
    "team.lenient",
    features=["wr.features.capabilities", "wr.features.mode_guidance"],
    functionDefinitions=[{"name": "known", "definition": "Something defined."}],
    steps=[
        {
            "id": "plan",
            "title": "Plan",
            "prompt": "Plan the work.",
            "functionReferences": ["known()", "missing()"],
            "functionCalls": [{"name": "alsoMissing", "args": {}}],
        },
        {
            "id": "write",
            "title": "Write",
            "promptBlocks": {
                "goal": [{"kind": "text", "text": "Write it. "}, {"kind": "ref", "refId": "wr.refs.future_snippet"}],
                "procedure": [
                    "Draft.",
                    [{"kind": "ref", "refId": "wr.refs.notes_first_durability"}],
                    [{"kind": "text", "text": "Check. "}, {"kind": "ref", "refId": "wr.refs.other_snippet"}],
                ],
            },
        },
        {
            "id": "hand-back",
            "title": "Hand back",
            "prompt": "Hand back the release gate.",
            "outputContract": {"contractRef": "wr.contracts.release_gate"},
        },
    ],
)

EXPECTED_LEFT_OUT = [
    {"kind": "feature", "name": "wr.features.mode_guidance", "pointer": "/features/1"},
    {"kind": "function", "name": "alsoMissing", "pointer": "/steps/0/functionCalls/0"},
    {"kind": "function", "name": "missing", "pointer": "/steps/0/functionReferences/1"},
    {"kind": "ref", "name": "wr.refs.future_snippet", "pointer": "/steps/1/promptBlocks/goal/1"},
    {"kind": "ref", "name": "wr.refs.other_snippet", "pointer": "/steps/1/promptBlocks/procedure/2/1"},
    {"kind": "contract", "name": "wr.contracts.release_gate", "pointer": "/steps/2/outputContract/contractRef"},
]


@pytest.fixture
def lenient(make_loader, dirs) -> Any:
    path = write_json(dirs["extra"] / "lenient.json", UNKNOWN_EVERYTHING)
    catalog = make_loader(dirs["extra"]).load()
    return catalog, path


def test_unknown_functions_refs_features_and_contracts_load_with_warnings(lenient):
    catalog, path = lenient
    entry = catalog.get("team.lenient")
    assert entry is not None  # it runs
    warnings = [d for d in entry.warnings if d.code is Code.UNRESOLVED_REFERENCE]
    assert [(d.pointer, d.details["kind"], d.details["name"]) for d in warnings] == [
        (item["pointer"], item["kind"], item["name"]) for item in EXPECTED_LEFT_OUT
    ]
    for diagnostic in warnings:
        assert diagnostic.severity is Severity.WARNING
        assert diagnostic.file == str(path) and diagnostic.workflow_id == "team.lenient"
        assert diagnostic.details["name"] in diagnostic.message and diagnostic.fix
    assert [d for d in catalog.diagnostics if d.severity is Severity.ERROR] == []


def test_the_compiled_workflow_records_what_was_left_out_in_document_order(lenient):
    catalog, _path = lenient
    compiled = catalog.get("team.lenient").compiled
    assert compiled["leftOut"] == EXPECTED_LEFT_OUT
    # ...and the prompts go on without it.
    assert compiled["features"] == ["wr.features.capabilities"] and len(compiled["metaGuidance"]) == 1
    plan, write, _hand_back = compiled["steps"]
    assert "- known(): Something defined." in plan["prompt"] and "missing" not in plan["prompt"]
    assert write["prompt"].startswith("Goal: Write it. \n\nProcedure:\n1. Draft.\n2. Notes are the record")
    assert "\n3. Check. " in write["prompt"]


def test_nothing_left_out_means_no_left_out_key(make_loader, dirs):
    write_json(dirs["extra"] / "fine.json", workflow_doc("team.fine", features=["wr.features.memory_context"]))
    compiled = make_loader(dirs["extra"]).load().get("team.fine").compiled
    assert "leftOut" not in compiled


def test_left_out_is_sorted_by_document_position_with_numeric_indexes():
    from workflows_app.structure import unresolved_references

    steps = [{"id": f"s{i}", "title": "S", "prompt": "p", "functionReferences": [f"f{i}"]} for i in range(12)]
    found = unresolved_references(workflow_doc(steps=steps))
    assert [item["pointer"] for item in found] == [f"/steps/{i}/functionReferences/0" for i in range(12)]


def test_function_scopes_follow_the_compiler_including_a_loop_body_given_by_reference():
    from workflows_app.structure import unresolved_references

    document = workflow_doc(
        steps=[
            loop_doc(
                "each",
                "Each",
                {"type": "for", "count": 2, "maxIterations": 2},
                "work",
                functionDefinitions=[{"name": "loopScoped", "definition": "Defined by the loop."}],
            ),
            step_doc("work", "Work", "Work.", functionReferences=["loopScoped()"]),
        ]
    )
    assert unresolved_references(document) == []


def test_what_a_routine_left_out_is_reported_at_the_call_with_its_origin(make_loader, dirs):
    routine = workflow_doc(
        "team.routine-probe",
        steps=[{"id": "look", "title": "Look", "prompt": "Look.", "functionReferences": ["nobodyDefinesMe()"]}],
    )
    caller = workflow_doc(
        "team.caller",
        steps=[
            {"id": "first", "title": "First", "prompt": "Go."},
            {"id": "probe", "title": "Probe", "templateCall": {"templateId": "wr.templates.routine.probe"}},
        ],
    )
    write_json(dirs["extra"] / "routine.json", routine)
    write_json(dirs["extra"] / "caller.json", caller)
    catalog = make_loader(dirs["extra"]).load()
    assert catalog.get("team.caller").compiled["leftOut"] == [
        {
            "kind": "function",
            "name": "nobodyDefinesMe",
            "pointer": "/steps/1/templateCall",
            "origin": {
                "templateId": "wr.templates.routine.probe",
                "workflowId": "team.routine-probe",
                "pointer": "/steps/0/functionReferences/0",
            },
        }
    ]
    assert catalog.get("team.routine-probe").compiled["leftOut"][0]["pointer"] == "/steps/0/functionReferences/0"


# --- an unknown contract: a known kind with no schema ---------------------------------------------


def test_an_unknown_contract_accepts_artifacts_of_its_kind_unchecked(lenient):
    catalog, _path = lenient
    compiled = catalog.get("team.lenient").compiled
    assert compiled["steps"][2]["outputContract"] == {
        "contractRef": "wr.contracts.release_gate",
        "required": False,
        "artifactKind": "wr.release_gate",  # WorkRail's convention: wr.contracts.x -> wr.x
        "schema": None,
        "example": {"kind": "wr.release_gate"},
        "unresolved": True,
    }
    state = start(compiled).state
    state = advance(compiled, state, output={"notesMarkdown": "Planned."}).state
    at_gate = advance(compiled, state, output={"notesMarkdown": "Written."})
    pending = at_gate.pending
    assert pending["stepId"] == "hand-back"
    assert pending["outputContract"]["artifactKind"] == "wr.release_gate"
    assert pending["outputContract"]["required"] is False and pending["outputContract"]["schema"] is None
    assert pending["notesRequired"] is True  # its notes are the only output that is checked

    anything = {"kind": "wr.release_gate", "whatever": [1, {"shape": "unchecked"}]}
    done = advance(compiled, at_gate.state, output={"notesMarkdown": "Handed back.", "artifacts": [anything]})
    assert done.kind == "complete", done.issues
    # Not required: notes alone complete the step...
    assert advance(compiled, at_gate.state, output={"notesMarkdown": "No gate today."}).kind == "complete"
    # ...but notes are: the step is not a contract step any more.
    blocked = advance(compiled, at_gate.state, output={"artifacts": [anything]})
    assert [i["code"] for i in blocked.issues] == ["NOTES_REQUIRED"]
    # Other kinds nobody defines are still refused.
    other = advance(compiled, at_gate.state, output={"notesMarkdown": "x", "artifacts": [{"kind": "wr.other"}]})
    assert [(i["code"], i["pointer"]) for i in other.issues] == [("ARTIFACT_INVALID", "/artifacts/0/kind")]


def test_the_kind_of_an_unknown_contract_is_accepted_anywhere_in_the_run(lenient):
    from workflows_app.engine import recordable_artifact_issues

    catalog, _path = lenient
    compiled = catalog.get("team.lenient").compiled
    assert recordable_artifact_issues(compiled, [{"kind": "wr.release_gate", "x": 1}]) == []
    assert recordable_artifact_issues(compiled, [{"kind": "wr.nobody"}])[0]["code"] == "ARTIFACT_INVALID"


def test_a_bare_unknown_contract_on_a_hand_built_step_gets_the_same_treatment():
    from workflows_app.engine.contracts import contract_of, known_contracts, notes_required

    step = {
        "kind": "step",
        "id": "s",
        "title": "S",
        "prompt": "p",
        "outputContract": {"contractRef": "team.contracts.x"},
    }
    contract = contract_of(step)
    assert contract is not None
    assert (contract.artifact_kind, contract.required, contract.schema) == ("team.x", False, None)
    assert notes_required(step) is True
    assert known_contracts([step])["team.x"].schema is None


# --- what stays an error --------------------------------------------------------------------------


def step(step_id: str = "only", **fields: Any) -> dict[str, Any]:
    return {"id": step_id, "title": step_id.title(), "prompt": "Do it.", **fields}


def loop_step(**loop: Any) -> dict[str, Any]:
    return {"id": "again", "type": "loop", "title": "Again", "loop": {"type": "while", **loop}, "body": [step("inner")]}


STILL_ERRORS: dict[str, tuple[list[dict[str, Any]], dict[str, Any], Code, str]] = {
    "a step without an id": ([{"title": "T", "prompt": "p"}], {}, Code.SCHEMA_VIOLATION, "/steps/0"),
    "a duplicate step id": ([step("same"), step("same")], {}, Code.DUPLICATE_STEP_ID, "/steps/1/id"),
    "a loop without maxIterations": (
        [loop_step(condition={"var": "more", "equals": True})],
        {},
        Code.SCHEMA_VIOLATION,  # the schema requires it; structure.py says so too for hand-made documents
        "/steps/0/loop",
    ),
    "a loop body that does not exist": (
        [
            {
                "id": "again",
                "type": "loop",
                "title": "Again",
                "loop": {"type": "while", "condition": {"var": "more"}, "maxIterations": 2},
                "body": "nope",
            }
        ],
        {},
        Code.UNKNOWN_LOOP_BODY,
        "/steps/0/body",
    ),
    "a bad condition": (
        [step(runCondition={"var": "branch", "matches": "release/("})],
        {},
        Code.INVALID_CONDITION,
        "/steps/0/runCondition/matches",
    ),
    "an unknown template": (
        [{"id": "call", "title": "Call", "templateCall": {"templateId": "wr.templates.capability_probe"}}],
        {},
        Code.UNKNOWN_REFERENCE,
        "/steps/0/templateCall/templateId",
    ),
    "an unknown routine": (
        [{"id": "call", "title": "Call", "templateCall": {"templateId": "wr.templates.routine.nowhere"}}],
        {},
        Code.UNKNOWN_REFERENCE,
        "/steps/0/templateCall/templateId",
    ),
    "an unknown assessment": ([step(assessmentRefs=["nope"])], {}, Code.UNKNOWN_REFERENCE, "/steps/0/assessmentRefs/0"),
    "an unknown loop contract": (
        [
            loop_step(
                maxIterations=3, conditionSource={"kind": "artifact_contract", "contractRef": "wr.contracts.loop_ctrl"}
            )
        ],
        {},
        Code.UNKNOWN_REFERENCE,
        "/steps/0/loop/conditionSource/contractRef",
    ),
    "an unknown binding slot": (
        [step(prompt="Review with {{wr.bindings.reviewr}}.")],
        {"extensionPoints": [{"slotId": "reviewer", "purpose": "Reviews.", "default": "team.routine-review"}]},
        Code.UNKNOWN_REFERENCE,
        "/steps/0",
    ),
}


@pytest.mark.parametrize("case", sorted(STILL_ERRORS))
def test_what_changes_the_control_flow_is_still_an_error(make_loader, dirs, case):
    steps, extra, code, pointer = STILL_ERRORS[case]
    write_json(dirs["extra"] / "broken.json", workflow_doc("team.broken", steps=steps, **extra))
    catalog = make_loader(dirs["extra"]).load()
    assert catalog.get("team.broken") is None
    assert (code, pointer) in [(d.code, d.pointer) for d in catalog.invalid["team.broken"]]
    assert all(d.severity is Severity.ERROR for d in catalog.invalid["team.broken"])
