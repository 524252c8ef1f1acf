"""Compilation: what runs are pinned to."""

import pytest

from tests.support.workflow_files import loop_doc, step_doc, workflow_doc
from workflows_app import builtins
from workflows_app.compiler import CompileError, RoutineDocument, compile_workflow, render_prompt_blocks
from workflows_app.diagnostics import Code


def compile_doc(document, routines=None, kind="workflow"):
    routines = routines or {}
    return compile_workflow(document, kind=kind, resolve_routine=routines.get)


def routine_doc():
    return workflow_doc(
        "team.routine-probe",
        metaGuidance=["Stay focused."],
        steps=[
            {"id": "look", "title": "Look", "prompt": "Look at {{target}} and write {{deliverable}}."},
            {
                "id": "tell",
                "title": "Tell",
                "prompt": "Report on {{target}}.",
                "runCondition": {"var": "verbose"},
            },
        ],
    )


def test_prompt_blocks_render_in_a_fixed_order():
    text = render_prompt_blocks(
        {
            "verify": ["Tests pass."],
            "goal": "Fix it.",
            "procedure": [
                "Reproduce.",
                [
                    {"kind": "text", "text": "Then "},
                    {"kind": "ref", "refId": "wr.refs.notes_first_durability"},
                ],
            ],
            "constraints": ["No new dependencies."],
            "outputRequired": {"summary": "What changed."},
        }
    )
    assert (
        text
        == (
            "Goal: Fix it.\n\nConstraints:\n- No new dependencies.\n\nProcedure:\n1. Reproduce.\n2. Then "
            # The snippet's own bullets stay nested under the item (indented by the width of "2. ").
            + builtins.REFS["wr.refs.notes_first_durability"].replace("\n", "\n   ")
            + "\n\nOutput required (in output.notesMarkdown, unless the call below has a place for it):\n"
            "- summary: What changed.\n\nVerify:\n- Tests pass."
        )
    )


def test_guidance_and_functions_are_rendered_into_the_prompt():
    doc = workflow_doc(
        functionDefinitions=[
            {
                "name": "check",
                "definition": "Run the checks.",
                "parameters": [{"name": "scope", "type": "string"}],
            }
        ],
        steps=[
            {
                "id": "one",
                "title": "One",
                "prompt": "Work.",
                "guidance": ["Be brief."],
                "functionReferences": ["check()"],
            }
        ],
    )
    [step] = compile_doc(doc)["steps"]
    assert step["prompt"] == "Work.\n\nGuidance:\n- Be brief.\n\nFunctions:\n- check(scope): Run the checks."
    assert "guidance" not in step and "functionReferences" not in step


def test_a_template_call_expands_the_routine_with_args_and_the_callers_condition():
    doc = workflow_doc(
        steps=[
            {"id": "start", "title": "Start", "prompt": "Begin."},
            {
                "id": "probe",
                "title": "Probe",
                "runCondition": {"var": "deep", "equals": True},
                "templateCall": {
                    "templateId": "wr.templates.routine.probe",
                    "args": {"deliverable": "probe.md"},
                },
            },
        ]
    )
    routines = {"routine-probe": RoutineDocument("team.routine-probe", routine_doc())}
    steps = compile_doc(doc, routines)["steps"]
    assert [s["id"] for s in steps] == ["start", "probe.look", "probe.tell"]
    assert steps[1]["prompt"] == "Routine guidance:\n- Stay focused.\n\nLook at {{target}} and write probe.md."
    assert steps[1]["runCondition"] == {"var": "deep", "equals": True}
    assert steps[2]["runCondition"] == {"and": [{"var": "deep", "equals": True}, {"var": "verbose"}]}
    assert steps[2]["origin"] == {"templateId": "wr.templates.routine.probe", "callStepId": "probe"}


def test_a_routine_that_starts_with_a_loop_gets_its_guidance_in_the_loops_first_step():
    routine = workflow_doc(
        "team.routine-probe",
        metaGuidance=["Stay focused."],
        steps=[
            {
                "id": "rounds",
                "type": "loop",
                "title": "Rounds",
                "loop": {"type": "for", "count": 2, "maxIterations": 2},
                "body": [{"id": "look", "title": "Look", "prompt": "Look again."}],
            }
        ],
    )
    doc = workflow_doc(
        steps=[{"id": "probe", "title": "Probe", "templateCall": {"templateId": "wr.templates.routine.probe"}}]
    )
    [loop] = compile_doc(doc, {"routine-probe": RoutineDocument("team.routine-probe", routine)})["steps"]
    assert "prompt" not in loop
    assert loop["body"][0]["prompt"] == "Routine guidance:\n- Stay focused.\n\nLook again."


def test_an_unknown_routine_is_a_compile_error():
    doc = workflow_doc(
        steps=[{"id": "x-call", "title": "X", "templateCall": {"templateId": "wr.templates.routine.nope"}}]
    )
    with pytest.raises(CompileError) as caught:
        compile_doc(doc)
    assert caught.value.diagnostics[0].code is Code.UNKNOWN_REFERENCE
    assert caught.value.diagnostics[0].pointer == "/steps/0/templateCall/templateId"


def test_template_cycles_are_detected():
    call = {"id": "again", "title": "Again", "templateCall": {"templateId": "wr.templates.routine.loopy"}}
    loopy = workflow_doc("team.routine-loopy", steps=[call])
    with pytest.raises(CompileError) as caught:
        compile_doc(loopy, {"routine-loopy": RoutineDocument("team.routine-loopy", loopy)})
    assert caught.value.diagnostics[0].code is Code.TEMPLATE_CYCLE


def test_a_loop_body_given_by_reference_moves_into_the_loop():
    doc = workflow_doc(
        steps=[
            loop_doc("each", "Each", {"type": "forEach", "items": "things", "maxIterations": 5}, "work"),
            step_doc("work", "Work", "Handle {{item}}."),
            step_doc("done", "Done", "Wrap up."),
        ]
    )
    steps = compile_doc(doc)["steps"]
    assert [s["id"] for s in steps] == ["each", "done"]
    assert steps[0]["kind"] == "loop"
    assert [s["id"] for s in steps[0]["body"]] == ["work"]


def test_features_become_guidance():
    compiled = compile_doc(workflow_doc(features=["wr.features.capabilities"], metaGuidance=["Own rule."]))
    assert compiled["metaGuidance"] == ["Own rule.", builtins.FEATURES["wr.features.capabilities"]]
    assert compiled["features"] == ["wr.features.capabilities"]


def test_compiling_is_deterministic_and_leaves_the_document_alone():
    doc = workflow_doc(steps=[{"id": "one", "title": "One", "promptBlocks": {"goal": "G"}}])
    before = repr(doc)
    assert compile_doc(doc) == compile_doc(doc)
    assert repr(doc) == before
