"""`manage.py` as a subprocess, started the way a user or an MCP client starts it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MANAGE = REPO / "manage.py"


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without the developer's WorkRail settings (WORKRAIL_*, DATABASE_URL,
    DJANGO_SETTINGS_MODULE), plus `extra`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("WORKRAIL_") and k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(extra)
    return env


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """clean_env() with WORKRAIL_HOME at `home`, plus `extra` (which may name another WORKRAIL_HOME): a
    server of the caller's own."""
    return clean_env(**{"WORKRAIL_HOME": str(home), **extra})


def manage_command(*args: str) -> list[str]:
    """The command line of `manage.py ARGS` with this interpreter."""
    return [sys.executable, str(MANAGE), *args]


def free_port() -> int:
    """A TCP port nothing listens on at 127.0.0.1 (free when asked; a server binds it right after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_captured(
    command: list[str], *, env: dict[str, str], cwd: Path, timeout: float, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`command` to its end, its output captured as text (whatever its exit status: callers check it)."""
    return subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, input=input, check=False
    )
