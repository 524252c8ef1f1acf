"""What a step asks the agent to set (workflows_app/prose/asks.py), read once per compiled workflow
(workflows_app/engine/asks.py): declared structure first, then the heuristic readings of its words."""

from __future__ import annotations

from workflows_app import engine
from workflows_app.compiler import compile_workflow
from workflows_app.engine.asks import by_step, step_asks
from workflows_app.prose import NONE, read_step


def compiled(*steps):
    document = {"id": "team.asks", "name": "Asks", "description": "d", "version": "1.0.0", "steps": list(steps)}
    return compile_workflow(document, kind="workflow", resolve_routine=lambda name: None)


DECLARED = {
    "id": "size-up",
    "title": "Size up",
    "promptBlocks": {
        "goal": "Judge the change.",
        "outputRequired": {
            "context.riskLevel": "low, medium or high.",
            "context.ticket.id": "The ticket's id.",
            "rationale": "Why, in two sentences.",
        },
    },
}
WORDS = {
    "id": "capture",
    "title": "Capture",
    "prompt": "Look around.\nCapture: `area`, `hasUI` (true / false).\nIf the workflow ids 'team.fix-it' or "
    "'bug-fix' apply, say so: `mode`: bug-fix / feature.\nDo not delegate this.",
    "promptFragments": [{"when": {"var": "hasUI"}, "text": "Spawn a subagent for `screenshotNotes`."}],
}


def test_declared_names_are_structure_kept_by_the_compiler_and_read_as_declared():
    workflow = compiled(DECLARED)
    [step] = workflow["steps"]
    assert step["declaredAsks"] == {"context": ["riskLevel", "ticket"], "notes": True}
    asks = step_asks(workflow, "size-up")
    assert [(ask.name, ask.source) for ask in asks.asked] == [("riskLevel", "declared"), ("ticket", "declared")]
    assert asks.from_prose == ()
    assert asks.offered["riskLevel"] == ("low", "medium", "high")  # the values beside it are still words
    assert asks.notes is not None and asks.notes.plainly and asks.notes.source == "declared"


def test_only_context_keys_declare_no_notes_and_no_output_required_declares_nothing():
    only_context = {**DECLARED, "promptBlocks": {"outputRequired": {"context.plan": "The plan."}}}
    [step] = compiled(only_context)["steps"]
    assert step["declaredAsks"] == {"context": ["plan"]}
    [plain] = compiled({"id": "plain", "title": "Plain", "prompt": "Do it."})["steps"]
    assert "declaredAsks" not in plain


def test_words_give_names_values_ids_notes_and_delegation_all_marked_as_read_from_prose():
    asks = step_asks(compiled(WORDS), "capture")
    assert [(ask.name, ask.source) for ask in asks.asked] == [("area", "prose"), ("hasUI", "prose")]
    assert asks.offered["hasUI"] == ("true", "false")
    assert asks.offered["mode"] == ("bug-fix", "feature")
    assert asks.workflow_ids == ("team.fix-it",)  # 'bug-fix' is a value offered, not an id
    assert asks.notes is None
    assert not asks.delegates  # "do not delegate" is negated
    assert asks.delegating_fragments == {0}  # the fragment spawns, when it is shown
    assert asks.delegates_with([0]) and not asks.delegates_with([])
    assert "screenshotNotes" in asks.written and "screenshotNotes" not in asks.mentioned
    assert "Capture" in asks.mentioned  # the title counts as mentioned, not as written in the prompt
    assert "Capture" in asks.title_words


def test_a_pin_compiled_before_declared_asks_still_reads_its_names_from_the_rendered_words():
    [step] = compiled(DECLARED)["steps"]
    old = {key: value for key, value in step.items() if key != "declaredAsks"}
    asks = read_step(old)
    assert [(ask.name, ask.source) for ask in asks.asked] == [("riskLevel", "prose"), ("ticket", "prose")]
    assert asks.notes is not None and asks.notes.plainly and asks.notes.source == "prose"


def test_the_asks_are_read_once_per_compiled_workflow_and_an_unknown_step_asks_nothing():
    workflow = compiled(DECLARED, WORDS)
    assert by_step(workflow) is by_step(workflow)
    assert step_asks(workflow, "size-up") is by_step(workflow)["size-up"]
    assert step_asks(workflow, "no-such-step") is NONE


def test_the_engine_says_which_fragments_the_pending_prompt_shows():
    workflow = compiled(WORDS)
    shown = engine.start(workflow, {"hasUI": True}).state
    hidden = engine.start(workflow, {"hasUI": False}).state
    assert engine.pending_fragments(workflow, shown) == (0,)
    assert engine.pending_fragments(workflow, hidden) == ()
    assert "Spawn a subagent" in engine.pending_view(workflow, shown)["prompt"]
    assert "Spawn a subagent" not in engine.pending_view(workflow, hidden)["prompt"]
