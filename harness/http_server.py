"""`manage.py mcp --http` as a subprocess on a free port, and the API tokens its clients send.

Shared by the end-to-end tests (tests/e2e/test_mcp_http.py, test_ts_client_http.py) and bench/load.py's
HTTP mode. The server is ready when it answers a request without a token with 401: by then uvicorn has
opened the port and the application has started (Django set up, the store migrated).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from harness.processes import free_port, manage_command, run_captured

TOKEN_LINE = re.compile(r"^\s+(\S+)\s*$", re.MULTILINE)


class HttpServerError(RuntimeError):
    pass


def create_token(env: dict[str, str], cwd: Path, name: str, owner: str | None = None) -> str:
    """A new API token named `name` for `owner`, made by `manage.py create_api_token` on the store of `env`."""
    args = ["create_api_token", "--name", name] + (["--owner", owner] if owner else [])
    done = run_captured(manage_command(*args), env=env, cwd=cwd, timeout=120)
    found = TOKEN_LINE.search(done.stdout)
    if done.returncode != 0 or found is None:
        raise HttpServerError(f"create_api_token failed: {done.stdout[-1000:]}{done.stderr[-2000:]}")
    return found.group(1)


def revoke_token(env: dict[str, str], cwd: Path, name: str) -> None:
    done = run_captured(manage_command("create_api_token", "--revoke", name), env=env, cwd=cwd, timeout=120)
    if done.returncode != 0:
        raise HttpServerError(f"create_api_token --revoke failed: {done.stderr[-2000:]}")


class HttpServer:
    """One `manage.py mcp --http` on 127.0.0.1 (its log in `log`); `url` is its MCP endpoint."""

    def __init__(self, env: dict[str, str], cwd: Path, log: Path, *, workers: int = 1, timeout: float = 120.0) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.log = log
        command = manage_command("mcp", "--http", "--port", str(self.port), "--workers", str(workers))
        with log.open("ab") as output:
            self.process = subprocess.Popen(command, env=env, cwd=cwd, stdout=output, stderr=output)
        self._wait_until_ready(timeout)

    def _wait_until_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise HttpServerError(f"manage.py mcp --http exited with {self.process.returncode}: {self.tail()}")
            try:
                urllib.request.urlopen(urllib.request.Request(self.url, method="POST", data=b"{}"), timeout=5)
            except urllib.error.HTTPError as exc:
                if exc.code == 401:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.close()
                raise HttpServerError(f"manage.py mcp --http did not answer within {timeout:.0f} s: {self.tail()}")
            time.sleep(0.1)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""

    def close(self) -> int:
        """SIGTERM to this process (uvicorn stops its workers), then its exit status."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        return self.process.returncode
