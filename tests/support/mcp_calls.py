"""The services called as the MCP tools call them, for tests that drive them without a client:
camelCase JSON arguments go through the tool's feature check and input model, then the service.
Failures raise WorkRailError, as the services do; answers are the JSON objects the tools return."""

from __future__ import annotations

from typing import Any

from runs.contract.inputs import ResumeSessionInput
from runs.execution import resume
from runs.mcp import tools


def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return tools.invoke(tool, arguments)


def start_workflow(workflowId: str, context: dict[str, Any] | None = None, **rest: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {"workflowId": workflowId, **rest}
    if context is not None:
        arguments["context"] = context
    return call("start_workflow", arguments)


def continue_workflow(**arguments: Any) -> dict[str, Any]:
    return call("continue_workflow", arguments)


def checkpoint_workflow(**arguments: Any) -> dict[str, Any]:
    return call("checkpoint_workflow", arguments)


def start_session(**arguments: Any) -> dict[str, Any]:
    return call("start_session", arguments)


def resume_session(**arguments: Any) -> dict[str, Any]:
    """The service itself: the tool also fills in the git branch this server sees, which tests control."""
    return resume.resume_session(ResumeSessionInput.model_validate(arguments)).dump()


def notes_for(pending: dict[str, Any] | None) -> dict[str, Any]:
    """An output for the pending step: notes, and the contract's example artifact when it asks for one."""
    output: dict[str, Any] = {"notesMarkdown": f"Did {pending['stepId'] if pending else 'it'}."}
    contract = (pending or {}).get("outputContract")
    if contract:
        output["artifacts"] = [contract["example"]]
    return output


def ack(response: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """Acknowledges the step `response` is at, with notes_for() it (plus `extra` arguments)."""
    arguments = {
        "stateToken": response["stateToken"],
        "ackToken": response["ackToken"],
        "output": notes_for(response["pending"]),
    }
    arguments.update(extra)
    return continue_workflow(**arguments)


def ack_with_notes(
    response: dict[str, Any], notes: str = "Done.", artifacts: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Acknowledges the step `response` is at with `notes` (and `artifacts`, when given)."""
    output: dict[str, Any] = {"notesMarkdown": notes}
    if artifacts is not None:
        output["artifacts"] = artifacts
    return continue_workflow(stateToken=response["stateToken"], ackToken=response["ackToken"], output=output)
