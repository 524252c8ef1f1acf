"""Our structural checks, beyond what the JSON Schema can say."""

from tests.support.workflow_files import workflow_doc
from workflows_app.diagnostics import Code
from workflows_app.structure import structure_diagnostics


def found(document):
    return [(d.code, d.pointer) for d in structure_diagnostics(document)]


def loop(step_id="the-loop", body=None, **loop_config):
    config = {
        "type": "while",
        "condition": {"var": "again", "equals": True},
        "maxIterations": 3,
        **loop_config,
    }
    return {
        "id": step_id,
        "type": "loop",
        "title": "Loop",
        "loop": config,
        "body": body if body is not None else [{"id": "inner", "title": "Inner", "prompt": "Go."}],
    }


def test_a_valid_workflow_has_no_findings():
    assert found(workflow_doc(steps=[{"id": "one", "title": "One", "prompt": "p"}, loop()])) == []


def test_step_ids_must_be_unique_including_loop_bodies():
    doc = workflow_doc(steps=[{"id": "inner", "title": "One", "prompt": "p"}, loop()])
    assert found(doc) == [(Code.DUPLICATE_STEP_ID, "/steps/1/body/0/id")]


def test_a_loop_body_reference_must_name_a_top_level_step():
    doc = workflow_doc(steps=[loop(body="ghost")])
    assert found(doc) == [(Code.UNKNOWN_LOOP_BODY, "/steps/0/body")]


def test_a_step_can_be_the_body_of_one_loop_only():
    doc = workflow_doc(
        steps=[
            loop("l1", body="work"),
            loop("l2", body="work"),
            {"id": "work", "title": "Work", "prompt": "p"},
        ]
    )
    assert found(doc) == [(Code.UNKNOWN_LOOP_BODY, "/steps/1/body")]


def test_loops_need_max_iterations():
    doc = workflow_doc(steps=[loop()])
    del doc["steps"][0]["loop"]["maxIterations"]
    assert found(doc) == [(Code.INVALID_LOOP, "/steps/0/loop")]


def test_conditions_everywhere_are_checked():
    doc = workflow_doc(
        steps=[
            {
                "id": "one",
                "title": "One",
                "prompt": "p",
                "runCondition": {"var": "x", "gt": "big"},
                "requireConfirmation": {"var": "y", "zzz": 1},
                "promptFragments": [{"id": "f", "text": "t", "when": {"and": "nope"}}],
            },
            loop(condition={"var": "n", "lt": "ten"}),
        ]
    )
    assert found(doc) == [
        (Code.INVALID_CONDITION, "/steps/0/runCondition/gt"),
        (Code.INVALID_CONDITION, "/steps/0/requireConfirmation"),
        (Code.INVALID_CONDITION, "/steps/0/promptFragments/0/when/and"),
        (Code.INVALID_CONDITION, "/steps/1/loop/condition/lt"),
    ]


def test_references_must_name_known_things():
    doc = workflow_doc(
        features=["wr.features.nope"],
        steps=[
            {
                "id": "one",
                "title": "One",
                "prompt": "p",
                "outputContract": {"contractRef": "wr.contracts.nope"},
                "assessmentRefs": ["missing"],
                "functionReferences": ["helper()"],
            },
            {
                "id": "two",
                "title": "Two",
                "promptBlocks": {"goal": [{"kind": "ref", "refId": "wr.refs.nope"}]},
            },
            {"id": "three", "title": "Three", "templateCall": {"templateId": "wr.templates.other"}},
        ],
    )
    # What changes the control flow must resolve (errors); what only adds text or checks is left out
    # with a warning (tests/workflows_app/test_leniency.py).
    assert found(doc) == [
        (Code.UNKNOWN_REFERENCE, "/steps/0/assessmentRefs/0"),
        (Code.UNKNOWN_REFERENCE, "/steps/2/templateCall/templateId"),
        (Code.UNRESOLVED_REFERENCE, "/features/0"),
        (Code.UNRESOLVED_REFERENCE, "/steps/0/functionReferences/0"),
        (Code.UNRESOLVED_REFERENCE, "/steps/0/outputContract/contractRef"),
        (Code.UNRESOLVED_REFERENCE, "/steps/1/promptBlocks/goal/0"),
    ]


def test_functions_resolve_through_workflow_loop_and_step_scopes():
    body = [
        {
            "id": "inner",
            "title": "Inner",
            "prompt": "p",
            "functionReferences": ["a()", "b()", "c()"],
            "functionDefinitions": [{"name": "c", "definition": "step scope"}],
        }
    ]
    looped = loop(body=body)
    looped["functionDefinitions"] = [{"name": "b", "definition": "loop scope"}]
    doc = workflow_doc(functionDefinitions=[{"name": "a", "definition": "workflow scope"}], steps=[looped])
    assert found(doc) == []


def test_a_step_without_anything_to_do_is_rejected():
    doc = workflow_doc(steps=[{"id": "empty", "title": "Empty"}])
    assert found(doc) == [(Code.EMPTY_STEP, "/steps/0")]
