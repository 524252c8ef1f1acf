"""The services called as the MCP tools call them, for tests that drive them without a client:
camelCase JSON arguments go through the tool's feature check and input model, then the service.
Failures raise WorkRailError, as the services do; answers are the JSON objects the tools return."""

from __future__ import annotations

from typing import Any

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
    from runs.contract.inputs import ResumeSessionInput
    from runs.execution import resume

    return resume.resume_session(ResumeSessionInput.model_validate(arguments)).dump()
