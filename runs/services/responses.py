"""The shape of execution responses: what start_workflow and continue_workflow return.

One builder for every path (start, advance, blocked, replay, rehydrate), so an agent always reads
the same fields, and `nextCall` tells it exactly what to send next.
"""

from __future__ import annotations

from typing import Any

from runs.preferences import mode_of

NOTES_PLACEHOLDER = "<a few lines: what you did, what you decided, what comes next>"


def session_info(run: Any) -> dict[str, Any]:
    return {"sessionId": run.session.public_id, "runId": run.public_id, "sessionKey": run.session.session_key}


def next_call(
    state_token: str,
    ack_token: str | None,
    pending: dict[str, Any] | None,
    context_needed: list[dict[str, Any]] | None = None,
    resend_context: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The exact continue_workflow call to make next. After a blocked ack, the context that came with
    it was not applied, so it is repeated here along with what is still needed."""
    if pending is None or ack_token is None:
        return None
    output: dict[str, Any] = {}
    if pending.get("notesRequired", True):
        output["notesMarkdown"] = NOTES_PLACEHOLDER
    contract = pending.get("outputContract")
    if contract:
        output["artifacts"] = [contract["example"]]
    instructions = "Do the pending step"
    if pending.get("requireConfirmation"):
        instructions += ", get the user's explicit confirmation,"
    instructions += " then call continue_workflow with these arguments (tokens exactly as given)."
    if contract:
        instructions += f" The artifact must match the '{contract['contractRef']}' contract."
    arguments: dict[str, Any] = {"stateToken": state_token, "ackToken": ack_token, "output": output}
    if resend_context:
        arguments["context"] = dict(resend_context)
    if context_needed:
        arguments["context"] = {
            **arguments.get("context", {}),
            **{dep["contextKey"]: f"<from the user: {dep['description']}>" for dep in context_needed},
        }
        instructions += " First ask the user for what context needs (see blocked.issues)."
    return {"tool": "continue_workflow", "arguments": arguments, "instructions": instructions}


def execution_response(
    *,
    kind: str,
    run: Any,
    state_token: str,
    ack_token: str | None,
    pending: dict[str, Any] | None,
    completed_steps: int,
    warnings: list[dict[str, Any]],
    preferences: dict[str, str],
    extra: dict[str, Any] | None = None,
    context_needed: list[dict[str, Any]] | None = None,
    resend_context: dict[str, Any] | None = None,
) -> dict[str, Any]:
    response: dict[str, Any] = {
        "kind": kind,
        "isComplete": pending is None,
        "stateToken": state_token,
        "ackToken": ack_token,
        "pending": pending,
        "session": session_info(run),
        "workflow": {"id": run.workflow_id, "workflowHash": run.pinned_id},
        "progress": {"completedSteps": completed_steps},
        "preferences": preferences,
        "mode": mode_of(preferences),
        "warnings": warnings,
        "nextCall": next_call(state_token, ack_token, pending, context_needed, resend_context),
    }
    response.update(extra or {})
    return response
