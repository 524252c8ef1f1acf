from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from tests.helpers import REPO


def server_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("WORKRAIL_") and k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update({"WORKRAIL_HOME": str(home), **extra})
    return env


@pytest.fixture
def launch(tmp_path):
    """Parameters that start `manage.py mcp` exactly as an MCP client would, with an empty home."""

    def make(**extra: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable,
            args=[str(REPO / "manage.py"), "mcp"],
            env=server_env(tmp_path / "home", **extra),
            cwd=str(tmp_path),
        )

    return make
