"""The guidance a run is given: the workflow's own rules, then its features', the advice on delegating
only where a step (at any depth) delegates, decided from the compiled structure."""

from tests.support.workflow_files import loop_doc, parallel_doc, step_doc, workflow_doc
from workflows_app import builtins
from workflows_app.compiler import compile_workflow
from workflows_app.guidance import delegates, guidance

FEATURES = ["wr.features.capabilities", "wr.features.subagent_guidance"]
SUBAGENTS = builtins.FEATURES["wr.features.subagent_guidance"]
CAPABILITIES = builtins.FEATURES["wr.features.capabilities"]


def compiled(**fields):
    return compile_workflow(
        workflow_doc("team.g", metaGuidance=["Own rule."], **fields), kind="workflow", resolve_routine=lambda name: None
    )


def test_a_workflow_that_delegates_nothing_is_not_told_about_subagents():
    plain = compiled(features=FEATURES)
    assert not delegates(plain)
    assert guidance(plain) == ["Own rule.", CAPABILITIES]


def test_a_parallel_step_inside_a_loop_keeps_the_advice():
    steps = [
        loop_doc("again", "Again", {"type": "for", "count": 2, "maxIterations": 2}, "fan"),
        parallel_doc("fan", "Fan out", [{"workflowId": "team.child", "goal": "look"}]),
    ]
    nested = compiled(features=FEATURES, steps=steps)
    assert delegates(nested)
    assert guidance(nested) == ["Own rule.", CAPABILITIES, SUBAGENTS]


def test_the_workflows_own_words_about_subagents_stay():
    own = compile_workflow(
        workflow_doc("team.g", metaGuidance=["Subagents: use the executor."], steps=[step_doc("a", "A", "Do.")]),
        kind="workflow",
        resolve_routine=lambda name: None,
    )
    assert guidance(own) == ["Subagents: use the executor."]  # never judged by its words
