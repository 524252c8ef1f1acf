"""How the end-to-end tests reach `manage.py mcp` as a process: started over stdio as an MCP client
starts it, or over HTTP with a bearer token. What a client does once connected is in
tests/support/client_calls.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from harness.processes import manage_command


def server_parameters(env: dict[str, str], cwd: Path) -> StdioServerParameters:
    """`manage.py mcp` as an MCP client starts it, in `cwd` with `env`."""
    command, *args = manage_command("mcp")
    return StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))


@asynccontextmanager
async def http_client(url: str, token: str, mode: str = "legacy") -> AsyncIterator[Client]:
    """The `mcp` client on `manage.py mcp --http` at `url`, sending `token` as its bearer token."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with (
        http,
        Client(streamable_http_client(url, http_client=http), mode=mode, read_timeout_seconds=30) as client,
    ):
        yield client
