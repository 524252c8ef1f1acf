from __future__ import annotations

import pytest
from mcp.client.stdio import StdioServerParameters

from harness.processes import manage_command, server_env


@pytest.fixture
def launch(tmp_path):
    """Parameters that start `manage.py mcp` exactly as an MCP client would, with an empty home."""

    def make(**extra: str) -> StdioServerParameters:
        command, *args = manage_command("mcp")
        return StdioServerParameters(
            command=command, args=args, env=server_env(tmp_path / "home", **extra), cwd=str(tmp_path)
        )

    return make
