from __future__ import annotations

import pytest
from mcp.client.stdio import StdioServerParameters

from harness.processes import server_env
from tests.e2e.mcp_clients import server_parameters


@pytest.fixture
def launch(tmp_path):
    """Parameters that start `manage.py mcp` exactly as an MCP client would, with an empty home."""

    def make(**extra: str) -> StdioServerParameters:
        return server_parameters(server_env(tmp_path / "home", **extra), tmp_path)

    return make
