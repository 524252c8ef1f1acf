"""A raw JSON-RPC client on the pipes of one `manage.py mcp` process: newline-delimited JSON, a
per-request deadline (select on the raw descriptor), no SDK. Small and fast on purpose: the crash and
load campaigns start hundreds of servers and measure what the server does, not what a client adds."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import IO, Any

from harness.processes import manage_command

PROTOCOL = "2025-11-25"


def initialize_message(request_id: int | str = 1, client: str = "harness") -> dict[str, Any]:
    """The `initialize` request of a client on PROTOCOL that declares no capabilities."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": client, "version": "0"}},
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def spawn_mcp(
    env: dict[str, str], cwd: Path, stderr: IO[bytes] | int, command: list[str] | None = None
) -> subprocess.Popen[bytes]:
    """`manage.py mcp` (or `command`: another checkout's, say) with its stdin and stdout as pipes, as an
    MCP client starts it."""
    return subprocess.Popen(
        command or manage_command("mcp"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, cwd=cwd, env=env
    )


class HarnessError(RuntimeError):
    """The server misbehaved in a way the harness did not cause (died on its own, timed out, answered
    an error to a valid call)."""


class ServerGone(HarnessError):
    pass


class StdioServer:
    """One `manage.py mcp` process and a raw newline-delimited JSON-RPC client on its pipes."""

    def __init__(
        self, env: dict[str, str], cwd: Path, log: Path, timeout: float, command: list[str] | None = None
    ) -> None:
        self.timeout = timeout
        self._log = log.open("ab")
        self.process = spawn_mcp(env, cwd, self._log, command)
        assert self.process.stdout is not None and self.process.stdin is not None
        self._out = self.process.stdout.fileno()
        self._in = self.process.stdin
        self._buffer = b""
        self._next_id = 0
        self.killed = False

    # -- protocol --------------------------------------------------------------------------------

    def initialize(self) -> None:
        self.request("initialize", initialize_message()["params"])
        self.write(INITIALIZED)

    def send(self, method: str, params: dict[str, Any]) -> int:
        self._next_id += 1
        self.write({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    def write(self, message: dict[str, Any]) -> None:
        try:
            self._in.write((json.dumps(message) + "\n").encode())
            self._in.flush()
        except BrokenPipeError:
            raise ServerGone(f"the server closed its stdin (exit {self.process.poll()})") from None

    def receive(self, request_id: int) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            line = self._line(deadline)
            message = json.loads(line)
            if message.get("id") == request_id:
                if "error" in message:
                    raise HarnessError(f"JSON-RPC error to request {request_id}: {message['error']}")
                return message["result"]

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.receive(self.send(method, params))

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def _line(self, deadline: float) -> bytes:
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                state = "running" if self.process.poll() is None else f"exited {self.process.returncode}"
                raise HarnessError(f"no answer within {self.timeout:.0f} s from server {self.process.pid} ({state})")
            ready, _, _ = select.select([self._out], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._out, 1 << 16)
            if not chunk:
                raise ServerGone(f"the server closed stdout (exit {self.process.poll()})")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    # -- ending ----------------------------------------------------------------------------------

    def kill(self) -> None:
        """SIGKILL, by pid (this process only)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.killed = True

    def salvage(self, request_id: int) -> dict[str, Any] | None:
        """After a kill: the answer to `request_id` if the server wrote all of it before dying."""
        while True:
            ready, _, _ = select.select([self._out], [], [], 5.0)
            chunk = os.read(self._out, 1 << 16) if ready else b""
            if not chunk:
                break
            self._buffer += chunk
        found = None
        for line in self._buffer.split(b"\n")[:-1]:  # a partial last line was not received
            message = json.loads(line)
            if message.get("id") == request_id and "result" in message:
                found = message["result"]
        return found

    def close(self) -> None:
        """Ends the server the way a client does: it closes its stdin."""
        if not self.killed:
            with contextlib.suppress(BrokenPipeError):
                self._in.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        self._log.close()
