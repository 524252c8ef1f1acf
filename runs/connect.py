"""How to connect an agent to this checkout: printed by `make run` and shown on the dashboard."""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings


@dataclass(frozen=True)
class ConnectionInstructions:
    python: str
    manage_py: str
    claude_code: str
    json_config: str


def connection_instructions() -> ConnectionInstructions:
    python = sys.executable
    manage_py = str(Path(settings.BASE_DIR) / "manage.py")
    config = {"mcpServers": {"workrail": {"command": python, "args": [manage_py, "mcp"]}}}
    return ConnectionInstructions(
        python=python,
        manage_py=manage_py,
        claude_code=f"claude mcp add workrail -- {shlex.quote(python)} {shlex.quote(manage_py)} mcp",
        json_config=json.dumps(config, indent=2),
    )
