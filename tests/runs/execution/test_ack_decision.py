"""Deciding an ack is pure (runs/execution/ack_decision.py): from the loaded node and what the agent sent
to a typed Block or Advance, without a database (these tests have none: a query would fail them)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from runs.contract.inputs import ContinueWorkflowInput
from runs.execution import placeholders
from runs.execution.ack_decision import Advance, Block, Facts, Loaded, Sent, decide
from runs.models import Attempt, Node
from tests.support.workflow_files import workflow_doc
from workflows_app import engine
from workflows_app.compiler import compile_workflow

REQUEST = ContinueWorkflowInput.model_validate({"stateToken": "st1_" + "A" * 24, "ackToken": "ak1_" + "B" * 24})
NO_FACTS = Facts(delegation_issues=[], draft_issues=[], branches=0)


def loaded(facts: Facts = NO_FACTS, *, rewound: bool = False) -> Loaded:
    compiled = compile_workflow(workflow_doc(), kind="workflow", resolve_routine={}.get)
    begun = engine.start(compiled, {"goal": "Ship it."})
    node = Node(
        engine_state=begun.state,
        preferences=dict(settings.WORKRAIL_DEFAULT_PREFERENCES),
        pending_step_id="first-step",
        latest_child_id=7 if rewound else None,  # an older node: a branch grew from it already
    )
    return Loaded(node, Attempt(), compiled, compiled["steps"][0], facts)


def sent(output: dict[str, Any], context: dict[str, Any] | None = None) -> Sent:
    return Sent(context or {}, output, REQUEST)


def test_notes_for_the_step_advance_and_say_what_to_record():
    decision = decide(loaded(), sent({"notesMarkdown": "Did it."}))
    assert isinstance(decision, Advance)
    assert decision.transition.pending is not None and decision.transition.pending["stepId"] == "second-step"
    assert decision.records.output_recorded and decision.records.gaps == []
    assert decision.came_from == [0] and decision.notices == []


def test_an_unchanged_placeholder_blocks_with_the_step_shown_again_and_the_context_repeated():
    decision = decide(loaded(), sent({"notesMarkdown": placeholders.NOTES}, {"severity": "high"}))
    assert isinstance(decision, Block)
    assert [issue.code for issue in decision.blocked.issues] == ["PLACEHOLDER_UNCHANGED"]
    assert decision.pending is not None and decision.pending["stepId"] == "first-step"
    assert decision.context.resend == {"severity": "high"} and decision.context.needed is None


def test_facts_read_before_deciding_block_the_step():
    draft = {"code": "DRAFT_INVALID", "message": "The draft would not load.", "pointer": "/output/artifacts/0"}
    decision = decide(loaded(Facts([], [draft], 0)), sent({"notesMarkdown": "Did it."}))
    assert isinstance(decision, Block)
    assert [issue.pointer for issue in decision.blocked.issues] == ["/output/artifacts/0"]


def test_an_older_node_acknowledged_again_says_which_branch_it_starts_and_a_new_goal_whole():
    decision = decide(
        loaded(Facts([], [], branches=2), rewound=True), sent({"notesMarkdown": "Again."}, {"goal": "Ship it twice."})
    )
    assert isinstance(decision, Advance)
    assert [notice["code"] for notice in decision.notices] == ["GOAL_CHANGED", "BRANCH_STARTED"]
    assert "Ship it twice." in decision.notices[0]["message"]
    assert "you are now on branch 3 from that point, and the 2 earlier one(s)" in decision.notices[1]["message"]
