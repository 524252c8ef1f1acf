"""The load harness over HTTP: N concurrent clients on one `manage.py mcp --http` server (bench/load.py --http).

Each client is one thread with its own keep-alive connection, speaking raw JSON-RPC over the streamable
HTTP transport (no SDK, as harness/stdio.py on stdio: what is measured is the server): `initialize`
(keeping the Mcp-Session-Id when the server keeps sessions), then a run of the long while-loop workflow,
acknowledging step after step with notes, a new run when one completes. Every client warms up before
the clock starts; each acknowledged step's latency is recorded as the client sees it, and any error
answer, HTTP status other than 200, or "database is locked" in the server's log is counted.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from harness.http_server import HttpServer, create_token
from harness.load import LOCKED, LoadFigures, drive, load_env, percentile
from harness.stdio import PROTOCOL, HarnessError, initialize_message


class HttpMcpClient:
    """One client: a keep-alive connection to the server's /mcp, raw JSON-RPC."""

    def __init__(self, url: str, token: str, timeout: float) -> None:
        parts = urlsplit(url)
        self._path = parts.path
        self._connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
        self._headers = {
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        self._next_id = 0

    def initialize(self) -> None:
        answer, headers = self._post(initialize_message())
        if "result" not in answer:
            raise HarnessError(f"initialize failed: {answer}")
        session = headers.get("mcp-session-id")
        if session:
            self._headers["Mcp-Session-Id"] = session
        self._headers["MCP-Protocol-Version"] = PROTOCOL
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"}, expect_answer=False)

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        request = {"jsonrpc": "2.0", "id": self._next_id, "method": "tools/call"}
        answer, _ = self._post({**request, "params": {"name": tool, "arguments": arguments}})
        if "result" not in answer:
            raise HarnessError(f"{tool}: {json.dumps(answer)[:400]}")
        result: dict[str, Any] = answer["result"]
        return result

    def _post(self, message: dict[str, Any], *, expect_answer: bool = True) -> tuple[dict[str, Any], dict[str, str]]:
        self._connection.request("POST", self._path, body=json.dumps(message), headers=self._headers)
        response = self._connection.getresponse()
        body = response.read().decode("utf-8", errors="replace")
        headers = {name.lower(): value for name, value in response.getheaders()}
        if response.status not in (200, 202):
            raise HarnessError(f"HTTP {response.status}: {body[:400]}")
        if not expect_answer:
            return {}, headers
        if headers.get("content-type", "").startswith("text/event-stream"):
            # The answer is the event whose data is the JSON-RPC response (other events: notifications).
            for line in body.splitlines():
                if line.startswith("data:") and '"id"' in line:
                    answer: dict[str, Any] = json.loads(line[5:])
                    return answer, headers
            raise HarnessError(f"no answer in the event stream: {body[:400]}")
        return json.loads(body), headers

    def close(self) -> None:
        self._connection.close()


class HttpLoadRun:
    """One measurement: `clients` clients on one server with `workers` workers, on a store in `workdir`."""

    def __init__(
        self,
        workdir: Path,
        clients: int,
        store_env: dict[str, str] | None = None,
        workers: int = 1,
        timeout: float = 60.0,
    ) -> None:
        self.workdir = workdir
        self.clients = clients
        self.workers = workers
        self.timeout = timeout
        # No line per request: the log is not what is measured.
        self.env = load_env(workdir, store_env, WORKRAIL_LOG_LEVEL="WARNING")
        self.figures = LoadFigures(clients)

    def run(self, seconds: float) -> LoadFigures:
        token = create_token(self.env, self.workdir, "load")
        server = HttpServer(self.env, self.workdir, self.workdir / "server.log", workers=self.workers)
        try:
            ready = threading.Barrier(self.clients + 1)
            stop = threading.Event()
            threads = [
                threading.Thread(target=self._drive, args=(HttpMcpClient(server.url, token, self.timeout), ready, stop))
                for _ in range(self.clients)
            ]
            for thread in threads:
                thread.start()
            try:
                ready.wait(timeout=self.timeout * 2)
            except threading.BrokenBarrierError:
                stop.set()
                raise HarnessError(f"the clients could not warm up: {self.figures.errors}") from None
            began = time.perf_counter()
            stop.wait(seconds)
            stop.set()
            for thread in threads:
                thread.join(timeout=self.timeout)
            self.figures.seconds = time.perf_counter() - began
        finally:
            server.close()
        self.figures.locked = server.log.read_text(errors="replace").count(LOCKED) if server.log.exists() else 0
        return self.figures

    def _drive(self, client: HttpMcpClient, ready: threading.Barrier, stop: threading.Event) -> None:
        try:
            drive(client, self.figures, ready, stop, self.timeout)
        finally:
            client.close()


def http_line(figures: LoadFigures, workers: int) -> str:
    """One line of figures: clients, advances per second, p50/p99 in ms, the errors."""
    return (
        f"{figures.processes} HTTP clients, {workers} worker{'s' if workers > 1 else ''}: {figures.advances} advances "
        f"in {figures.seconds:.1f} s = {figures.throughput:.0f}/s, "
        f"p50 {percentile(figures.advance_seconds, 50) * 1000:.1f} ms, "
        f"p99 {percentile(figures.advance_seconds, 99) * 1000:.1f} ms; "
        f"{len(figures.errors)} errors, {figures.locked} 'database is locked'"
    )


def run_http_load(
    workdir: Path, clients: int, seconds: float, store_env: dict[str, str] | None = None, workers: int = 1
) -> LoadFigures:
    return HttpLoadRun(workdir, clients, store_env, workers).run(seconds)
