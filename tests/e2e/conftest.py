from __future__ import annotations

from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from harness.processes import server_env
from tests.e2e.mcp_clients import server_parameters

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test here starts processes of its own (`manage.py mcp` over stdio or HTTP, the TypeScript
    client, an installed wheel): marked `subprocess`, which `make test-fast` leaves out."""
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.subprocess)


@pytest.fixture
def launch(tmp_path, migrated_home):
    """Parameters that start `manage.py mcp` exactly as an MCP client would, with a home of its own holding
    an up-to-date store (tests/plugins/store_template.py): the tests that use it are not about the first
    start's migrations."""

    def make(**extra: str) -> StdioServerParameters:
        return server_parameters(server_env(migrated_home, **extra), tmp_path)

    return make
