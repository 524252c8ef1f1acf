"""What a client of WorkRail's MCP server does in the tests, whatever carries its messages (the server in
this process, `manage.py mcp` over stdio or HTTP): the tools it finds with the default flags, and the
calls of an agent that starts a run and moves it on."""

from __future__ import annotations

from typing import Any

from mcp import Client

# start_session is off by default; resume_session is on.
DEFAULT_TOOLS = {
    "list_workflows",
    "inspect_workflow",
    "start_workflow",
    "continue_workflow",
    "checkpoint_workflow",
    "resume_session",
}


async def structured(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The structuredContent of a tool call that must succeed."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    answer: dict[str, Any] = result.structured_content
    return answer


async def started(client: Client, workflow_id: str, context: dict[str, Any]) -> dict[str, Any]:
    return await structured(client, "start_workflow", {"workflowId": workflow_id, "context": context})


async def acknowledged(client: Client, answer: dict[str, Any], notes: str) -> dict[str, Any]:
    """The answer to acknowledging the step `answer` is at, with `notes`."""
    arguments = {"stateToken": answer["stateToken"], "ackToken": answer["ackToken"], "output": {"notesMarkdown": notes}}
    return await structured(client, "continue_workflow", arguments)
