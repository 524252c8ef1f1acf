"""The answer for a node: its pending step shaped by the node's preferences, the context it expects,
the tokens to go on with, and the warnings that hold for the whole run (given once)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings

from runs.contract.execution import ExecutionResult, Pending, UserDependencyDict, WarningDict
from runs.contract.preferences import recommendation_warnings
from runs.execution import modes
from runs.execution.delegations import (
    brief_keys,
    combined_by,
    delegated_by,
    handed_out,
    origin,
    with_linked_runs,
    with_runs,
)
from runs.execution.drift import drift_warnings
from runs.execution.recording import once_per_run
from runs.execution.responses import AnswerParts, execution_response
from runs.models import Attempt, Node, Run
from runs.store import tokens
from runs.store.journal import Journal
from runs.store.pinned import compiled_workflow, steps_by_id
from runs.store.tokens import TokenKind
from workflows_app import engine
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import CompiledStep, CompiledWorkflow, PendingView, user_dependencies_of
from workflows_app.guidance import guidance

OUTCOME_KIND = {"advanced": "step", "complete": "complete", "blocked": "blocked"}


def pending_step(run: Run, pending: Mapping[str, Any] | None) -> CompiledStep | None:
    """The compiled step behind the engine's view of the pending step."""
    return steps_by_id(run.pinned_id).get(pending["stepId"]) if pending else None


def node_response(
    journal: Journal,
    run: Run,
    node: Node,
    attempt: Attempt | None,
    pending: PendingView | None,
    warnings: list[WarningDict],
    *,
    kind: str,
    extra: AnswerParts | None = None,
    context_needed: list[UserDependencyDict] | None = None,
    resend_context: JsonObject | None = None,
    came_from: list[int] | None = None,
) -> ExecutionResult:
    """The answer for `node`, with its pending step (the engine's view) shaped by the node's preferences
    and the context it expects. Warnings that hold for the whole run are given once (once_per_run)."""
    home = settings.WORKRAIL_HOME
    preferences = node.preferences
    compiled = compiled_workflow(run.pinned_id)
    context = node.engine_state.get("context", {})
    step = pending_step(run, pending)
    state_token = tokens.mint(home, TokenKind.STATE, node.public_id)
    if pending is not None and pending.get("delegations"):
        pending = with_runs(run, node, pending)
    elif pending is not None and step is not None and step.get("virtualOf"):
        pending = combined_by(run, node, step, pending)  # a synthesis shows what the delegations recorded
    if pending is not None:
        # The runs started with this step's stateToken as parentStateToken. A new run has none yet, nor a
        # step reached in this very transaction (its stateToken is minted just now): no query on the hot path.
        fresh = journal.projector.started(run) or (node.created_at == journal.now and origin(node) is node)
        pending = with_linked_runs(run, node, pending, state_token, new_run=fresh)
    shaped = modes.shape_pending(pending, step, preferences, context)
    source = handed_out(run) if run.parent_run_id is not None else None
    if shaped is not None:
        # Asked elsewhere (the user's own input), or handed in by the parent run (this run's brief).
        not_asked = {dep["contextKey"] for dep in user_dependencies_of(step)} | set(brief_keys(source))
        expected = [e for e in engine.expected_context(compiled, node.engine_state) if e["key"] not in not_asked]
        if expected:
            shaped["expectedContext"] = expected
    # Said when a chat opens the run, when it completes, and on the start of a linked run (it confirms the link).
    opened = (extra or {}).get("rehydrated") or (
        source is not None and source.delegation is None and journal.projector.started(run)
    )
    if source is not None and (pending is None or opened):
        extra = {**(extra or {}), "delegatedBy": delegated_by(run, source, complete=pending is None)}
    steady = [*drift_warnings(run), *recommendation_warnings(compiled, preferences), *left_out_warnings(compiled)]
    goal = context.get("goal")
    if isinstance(goal, str) and goal.strip() and shaped is not None:
        extra = {**(extra or {}), "goal": goal}  # the task in the user's words, with every step
    return execution_response(
        kind=kind,
        run=run,
        state_token=state_token,
        ack_token=tokens.mint(home, TokenKind.ACK, attempt.public_id) if attempt is not None else None,
        pending=Pending.model_validate(shaped) if shaped is not None else None,
        completed_steps=node.engine_state.get("completedSteps", 0),
        step_count=engine.step_count(compiled),
        outline=(list(node.engine_state.get("cursor", {}).get("position") or []), engine.outline_length(compiled)),
        came_from=came_from,
        warnings=[*warnings, *once_per_run(journal, run, node, steady)],
        preferences=preferences,
        extra=extra,
        context_needed=context_needed,
        resend_context=resend_context,
        compiled=compiled,
    )


def left_out_warnings(compiled: CompiledWorkflow) -> list[WarningDict]:
    """What the loader had to leave out of the workflow (a reference this build cannot resolve that does
    not change the control flow): said once per run, so the agent knows the prompts lack it."""
    left = compiled.get("leftOut") or []
    if not left:
        return []
    names = "; ".join(f"{item['kind']} '{item['name']}' at {item['pointer']}" for item in left)
    return [
        {
            "code": "REFERENCES_LEFT_OUT",
            "message": f"This workflow names things this WorkRail does not provide, and runs without them: {names}. "
            "Its prompts may mention them; do what the step asks with what you have.",
        }
    ]


def chat_opening(compiled: CompiledWorkflow) -> AnswerParts:
    """What an answer a chat may start from (start, rehydrate) says besides the step: the workflow's rules
    for every step, and that it is self-contained (the goal whole, the call instructions in full).
    Every other answer refers to them in a line: each is said once per run, and again where a chat may
    begin without the earlier answers."""
    rules = guidance(compiled)
    return {"selfContained": True, "guidance": rules} if rules else {"selfContained": True}
