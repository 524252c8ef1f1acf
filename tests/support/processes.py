"""`manage.py` in subprocesses as a user runs it (none of the developer's WORKRAIL_* settings, a home of
the test's own), the real dashboard on a free port, and what /proc says about a process."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.processes import free_port, manage_command, run_captured, server_env


def run_manage(tmp_path: Path, *args: str, input: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """`manage.py ARGS` to its end, with WORKRAIL_HOME in `tmp_path` (as `tmp_path / "home"`), plus `env`."""
    return run_captured(
        manage_command(*args), env=server_env(tmp_path / "home", **env), cwd=tmp_path, timeout=60, input=input
    )


def wait_until_answering(process: subprocess.Popen[str], port: int, timeout: float = 30) -> None:
    """Returns once something accepts connections on 127.0.0.1:`port`; fails the test if `process` exits
    first or nothing answers within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"dashboard exited with {process.returncode}\nstdout:\n{out}\nstderr:\n{err}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"dashboard did not answer on 127.0.0.1:{port} within {timeout}s")


@contextlib.contextmanager
def running_dashboard(root: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """`manage.py dashboard` (as `make run` starts it) on a free port with WORKRAIL_HOME in `root`, once it
    answers; killed (by its id) afterwards if it is still running."""
    port = free_port()
    process = subprocess.Popen(
        manage_command("dashboard", "--port", str(port)),
        env=server_env(root / "home"),
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until_answering(process, port)
        yield process, port
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (a zombie has too: it only waits to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(") ", 1)[1].startswith("Z")
    except FileNotFoundError:
        return True
