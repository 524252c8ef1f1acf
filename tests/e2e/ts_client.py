"""Drives `manage.py mcp` with the official TypeScript MCP client, through tests/e2e/ts_client/proxy.mjs.

The proxy connects the SDK's `Client` over its `StdioClientTransport` (or, for `manage.py mcp --http`, its
`StreamableHTTPClientTransport`), so every answer goes through the
SDK's own checks (tool definitions, resource shapes, structuredContent against each tool's outputSchema)
before a test sees it. Node and the SDK are installed by scripts/bootstrap.
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from harness.processes import server_env
from tests.support.paths import REPO

TS_CLIENT = Path(__file__).resolve().parent / "ts_client"
PROXY = TS_CLIENT / "proxy.mjs"
SDK = TS_CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
REQUEST_TIMEOUT_MS = 20_000  # the TS client gives up on one request after this...
READ_TIMEOUT_S = 40  # ...and we give up on the proxy after this (start-up included)


class TsClientError(Exception):
    """The TS client refused an answer or the server answered with a JSON-RPC error."""

    def __init__(self, method: str, code: int | None, message: str, data: Any = None) -> None:
        super().__init__(f"{method}: [{code}] {message}")
        self.code = code
        self.message = message
        self.data = data


class TsClient:
    """One proxy process, hence one TS `Client` connected to one server."""

    def __init__(self, process: subprocess.Popen[str], stderr_path: Path) -> None:
        self._process = process
        self._stderr_path = stderr_path
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()
        # The proxy's first line: the handshake and the first tools/list, both done by the SDK.
        connected = self._receive(0, "connect")
        self.server_version: dict[str, Any] = connected["serverVersion"]
        self.capabilities: dict[str, Any] = connected["capabilities"]
        self.tools: list[dict[str, Any]] = connected["tools"]

    def _pump(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self._lines.put(line)
        self._lines.put(None)  # EOF: the proxy is gone

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Sends one request through the TS client; returns its result or raises TsClientError."""
        assert self._process.stdin is not None
        self._next_id += 1
        request = {"id": self._next_id, "method": method, "params": params or {}}
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        return self._receive(self._next_id, method)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self.call("callTool", {"name": name, "arguments": arguments})
        return result

    def _receive(self, request_id: int, method: str) -> Any:
        try:
            line = self._lines.get(timeout=READ_TIMEOUT_S)
        except queue.Empty:
            raise AssertionError(f"{method}: no answer from the TS client in {READ_TIMEOUT_S} s{self._log()}") from None
        if line is None:
            raise AssertionError(f"{method}: the TS client proxy exited{self._log()}")
        message = json.loads(line)
        assert message["id"] == request_id, message
        if not message["ok"]:
            error = message["error"]
            raise TsClientError(method, error["code"], error["message"], error.get("data"))
        return message["result"]

    def _log(self) -> str:
        text = self._stderr_path.read_text(errors="replace") if self._stderr_path.exists() else ""
        return f"; its stderr (and the server's) ends with:\n{text[-3000:]}" if text else ""

    def close(self) -> int:
        """Closes stdin (the proxy then closes the client and the server); returns the proxy's exit code."""
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            return self._process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
            raise


@contextmanager
def ts_client(workdir: Path, **extra_env: str) -> Iterator[TsClient]:
    """The TS client connected to `manage.py mcp`, run with an empty home under `workdir` as its cwd."""
    config = {
        "command": sys.executable,
        "args": [str(REPO / "manage.py"), "mcp"],
        "env": server_env(workdir / "home", **extra_env),
        "cwd": str(workdir),
        "timeoutMs": REQUEST_TIMEOUT_MS,
    }
    with _proxy(workdir, config) as client:
        yield client


@contextmanager
def ts_http_client(workdir: Path, url: str, token: str) -> Iterator[TsClient]:
    """The TS client connected to a running `manage.py mcp --http` at `url` with its
    StreamableHTTPClientTransport, sending `token` as its bearer token."""
    config = {"url": url, "headers": {"Authorization": f"Bearer {token}"}, "timeoutMs": REQUEST_TIMEOUT_MS}
    with _proxy(workdir, config) as client:
        yield client


@contextmanager
def _proxy(workdir: Path, config: dict[str, Any]) -> Iterator[TsClient]:
    node = shutil.which("node")
    if node is None or not SDK.is_file():
        pytest.fail(f"The TypeScript MCP client is not installed in {TS_CLIENT}: run scripts/bootstrap.", pytrace=False)
    stderr_path = workdir / "ts-proxy.stderr"
    with stderr_path.open("w") as stderr:
        process = subprocess.Popen(
            [node, str(PROXY), json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=workdir,
            text=True,
            encoding="utf-8",
        )
    try:
        client = TsClient(process, stderr_path)
        yield client
        assert client.close() == 0, f"the TS client proxy failed{client._log()}"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
