"""The shape of execution answers: what start_workflow, continue_workflow and checkpoint_workflow return.

One builder for every path (start, advance, blocked, replay, rehydrate, checkpoint), so an agent
always reads the same fields, and `nextCall` holds the exact arguments to send next, with every
blank to fill written as a `<fill in ...>` placeholder (runs/services/placeholders.py).
"""

from __future__ import annotations

from typing import Any

from runs.contract.execution import (
    EffectivePreferences,
    ExecutionResult,
    NextCall,
    Pending,
    Progress,
    SessionRef,
    WorkflowRef,
)
from runs.contract.execution import Warning as WarningShape
from runs.contract.inputs import ContinueWorkflowInput
from runs.preferences import mode_of
from runs.services import placeholders


def session_ref(run: Any) -> SessionRef:
    return SessionRef(session_id=run.session.public_id, run_id=run.public_id, session_key=run.session.session_key)


def next_call(
    state_token: str,
    ack_token: str | None,
    pending: Pending | None,
    context_needed: list[dict[str, Any]] | None = None,
    resend_context: dict[str, Any] | None = None,
) -> NextCall | None:
    """The exact continue_workflow call to make next. After a blocked ack, the context that came with
    it was not applied, so it is repeated here (its placeholders excepted), along with what is needed."""
    if pending is None or ack_token is None:
        return None
    output: dict[str, Any] = {}
    if pending.notes_required:
        output["notesMarkdown"] = placeholders.NOTES
    contract = pending.output_contract
    if contract is not None and isinstance(contract.example, dict):
        output["artifacts"] = [contract.example]
    if pending.assessments:
        output["artifacts"] = [*output.get("artifacts", []), *map(placeholders.for_assessment, pending.assessments)]
    instructions = "Do the pending step"
    if pending.require_confirmation:
        instructions += ", get the user's explicit confirmation,"
    instructions += " then call continue_workflow with these arguments (tokens exactly as given)."
    if pending.notes_required:
        instructions += " Replace the '<fill in ...>' notes with your own."
    if contract is not None:
        instructions += f" The artifact must match the '{contract.contract_ref}' contract."
    if pending.assessments:
        instructions += " Rate every dimension of each wr.assessment artifact at one of its levels."
    if pending.delegations and any(d.run_id for d in pending.delegations):
        instructions = (
            "First carry out each delegation in pending.delegations (its own run: continue_workflow with its "
            "stateToken, to the end; subagents may take one each). Then " + instructions[0].lower() + instructions[1:]
        )
    if pending.delegations and any(d.runs and not d.available for d in pending.delegations):
        instructions += " Do the part of each delegation that cannot run here yourself (see its fix)."
    context = {key: value for key, value in (resend_context or {}).items() if not placeholders.is_placeholder(value)}
    for expected in pending.expected_context or []:
        context.setdefault(expected.key, placeholders.for_context(expected.model_dump(by_alias=True)))
    if pending.expected_context:
        instructions += (
            " Fill in each '<fill in ...>' value of context (pending.expectedContext says what the workflow reads "
            "it for), or leave it out if it is not known yet."
        )
    if context_needed:
        for dep in context_needed:
            context[dep["contextKey"]] = placeholders.from_user(dep["description"])
        instructions += " First ask the user for what context needs (see blocked.issues)."
    arguments: dict[str, Any] = {"stateToken": state_token, "ackToken": ack_token, "output": output}
    if context:
        arguments["context"] = context
    return NextCall(
        tool="continue_workflow",
        arguments=ContinueWorkflowInput.model_validate(arguments),
        instructions=instructions,
    )


def execution_response(
    *,
    kind: str,
    run: Any,
    state_token: str,
    ack_token: str | None,
    pending: Pending | None,
    completed_steps: int,
    step_count: int,
    warnings: list[dict[str, Any]],
    preferences: dict[str, str],
    extra: dict[str, Any] | None = None,
    context_needed: list[dict[str, Any]] | None = None,
    resend_context: dict[str, Any] | None = None,
) -> ExecutionResult:
    return ExecutionResult.model_validate(
        {
            "kind": kind,
            "isComplete": pending is None,
            "stateToken": state_token,
            "ackToken": ack_token,
            "pending": pending,
            "session": session_ref(run),
            "workflow": WorkflowRef(id=run.workflow_id, workflow_hash=run.pinned_id),
            "progress": Progress(completed_steps=completed_steps, step_count=step_count),
            "preferences": EffectivePreferences.model_validate(preferences),
            "mode": mode_of(preferences),
            "warnings": [WarningShape.model_validate(w) for w in warnings],
            "nextCall": next_call(state_token, ack_token, pending, context_needed, resend_context),
            **(extra or {}),
        }
    )
