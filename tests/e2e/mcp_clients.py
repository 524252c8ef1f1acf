"""What the end-to-end tests share about a client of `manage.py mcp`: how it starts the server, the
tools it finds with the default flags, and the calls of an agent that starts a run and moves it on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from harness.processes import manage_command

# start_session is off by default; resume_session is on.
DEFAULT_TOOLS = {
    "list_workflows",
    "inspect_workflow",
    "start_workflow",
    "continue_workflow",
    "checkpoint_workflow",
    "resume_session",
}


def server_parameters(env: dict[str, str], cwd: Path) -> StdioServerParameters:
    """`manage.py mcp` as an MCP client starts it, in `cwd` with `env`."""
    command, *args = manage_command("mcp")
    return StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))


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


@asynccontextmanager
async def http_client(url: str, token: str, mode: str = "legacy") -> AsyncIterator[Client]:
    """The `mcp` client on `manage.py mcp --http` at `url`, sending `token` as its bearer token."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with (
        http,
        Client(streamable_http_client(url, http_client=http), mode=mode, read_timeout_seconds=30) as client,
    ):
        yield client
