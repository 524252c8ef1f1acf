"""A load harness: N `manage.py mcp` processes advancing runs on one store while the dashboard is read.

Shared by tests/e2e/test_concurrency.py (the bounded CI form) and bench/load.py (the long form).

Each MCP process is driven by one client thread over raw JSON-RPC on stdio (harness/stdio.py): it
starts a run of a long while-loop workflow and acknowledges step after step with notes, a new run
when one completes. Each client warms up (initialize, start_workflow) before the clock starts, so
start-up is not measured. Meanwhile a `manage.py dashboard` on the same store is read by one thread,
alternating the sessions page and the API's session list (with a token from `manage.py
create_api_token`). Every call's latency is recorded as the client sees it; any error answer,
JSON-RPC error, dashboard status other than 200, or "database is locked" in any process's log is counted.

The store is the SQLite file in the work directory's home, or the database DATABASE_URL names in
`store_env` (harness/stores.py makes a throwaway PostgreSQL one when the suite runs there).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.crash import LONG_LOOP, WORKFLOW_ID
from harness.processes import free_port, manage_command, run_captured, server_env
from harness.stdio import HarnessError, StdioServer

LOCKED = "database is locked"
DASHBOARD_PATHS = ["/sessions/", "/api/v1/sessions?perPage=20"]


@dataclass
class LoadFigures:
    processes: int
    seconds: float = 0.0
    advance_seconds: list[float] = field(default_factory=list)  # one per acknowledged step
    advances_by_client: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    locked: int = 0  # lines of the processes' logs that say "database is locked"
    runs_started: int = 0
    dashboard_seconds: list[float] = field(default_factory=list)
    dashboard_errors: list[str] = field(default_factory=list)

    @property
    def advances(self) -> int:
        return len(self.advance_seconds)

    @property
    def throughput(self) -> float:
        return self.advances / self.seconds if self.seconds else 0.0

    def line(self) -> str:
        """One line of figures: advances per second, p50/p99 in ms, the dashboard, the errors."""
        return (
            f"{self.processes} processes: {self.advances} advances in {self.seconds:.1f} s = {self.throughput:.0f}/s, "
            f"p50 {percentile(self.advance_seconds, 50) * 1000:.1f} ms, "
            f"p99 {percentile(self.advance_seconds, 99) * 1000:.1f} ms; "
            f"dashboard {len(self.dashboard_seconds)} reads, "
            f"p50 {percentile(self.dashboard_seconds, 50) * 1000:.1f} ms, "
            f"p99 {percentile(self.dashboard_seconds, 99) * 1000:.1f} ms; "
            f"{len(self.errors) + len(self.dashboard_errors)} errors, {self.locked} 'database is locked'"
        )


def load_env(workdir: Path, store_env: dict[str, str] | None, **extra: str) -> dict[str, str]:
    """The servers' environment for a load run in `workdir`: the long-loop workflow in a project there, a
    store under workdir/home (or `store_env`'s), and write limits no agent here reaches."""
    project = workdir / "project"
    workflows = project / ".workrail" / "workflows"
    workflows.mkdir(parents=True, exist_ok=True)
    (workflows / f"{WORKFLOW_ID}.json").write_text(json.dumps(LONG_LOOP))
    return server_env(
        workdir / "home",
        WORKRAIL_PROJECT_DIR=str(project),
        # Every agent here writes far faster than a person's agent: the limits are not what is measured.
        WORKRAIL_RATE_LIMIT_BURST="100000",
        WORKRAIL_RATE_LIMIT_PER_MINUTE="1000000",
        **extra,
        **(store_env or {}),
    )


class McpCaller(Protocol):
    """What a load client drives: a stdio server (harness/stdio.py) or an HTTP client (harness/http_load.py)."""

    def initialize(self) -> None: ...

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]: ...


def drive(
    client: McpCaller, figures: LoadFigures, ready: threading.Barrier, stop: threading.Event, timeout: float
) -> None:
    """One agent: warms up (initialize, a first start), waits at `ready` for the others, then acknowledges
    steps as fast as it can until `stop`, starting a new run whenever one completes. Its advance times and
    count go into `figures`; an error is recorded there and ends this client, never the thread's caller."""
    try:
        client.initialize()
        answer = _start(client, figures)
    except Exception as exc:  # reported as an error of the run, not a crash of the thread
        figures.errors.append(f"warm-up: {exc}")
        ready.abort()
        return
    with contextlib.suppress(threading.BrokenBarrierError):  # another client failed: reported there
        ready.wait(timeout=timeout * 2)
    advanced = 0
    while not stop.is_set():
        try:
            if answer["isComplete"]:
                answer = _start(client, figures)
                continue
            arguments = {
                "stateToken": answer["stateToken"],
                "ackToken": answer["ackToken"],
                "output": {"notesMarkdown": f"Item {advanced + 1}: checked, nothing unusual."},
            }
            started = time.perf_counter()
            result = client.call("continue_workflow", arguments)
            elapsed = time.perf_counter() - started
            answer = structured(result, "continue_workflow")
        except Exception as exc:  # reported; this client stops
            figures.errors.append(str(exc)[:500])
            break
        figures.advance_seconds.append(elapsed)
        advanced += 1
    figures.advances_by_client.append(advanced)


def _start(client: McpCaller, figures: LoadFigures) -> dict[str, Any]:
    figures.runs_started += 1
    return structured(client.call("start_workflow", {"workflowId": WORKFLOW_ID}), "start_workflow")


def structured(result: dict[str, Any], tool: str) -> dict[str, Any]:
    """A tool call's structured answer; an error answer raises."""
    if result.get("isError"):
        raise HarnessError(f"{tool} answered an error: {json.dumps(result.get('structuredContent'))[:400]}")
    answer: dict[str, Any] = result["structuredContent"]
    return answer


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


class LoadRun:
    """One measurement: `processes` MCP servers and one dashboard on a store in `workdir`."""

    def __init__(
        self, workdir: Path, processes: int, store_env: dict[str, str] | None = None, timeout: float = 60.0
    ) -> None:
        self.workdir = workdir
        self.processes = processes
        self.timeout = timeout
        self.env = load_env(workdir, store_env)
        self.server_log = workdir / "servers.log"
        self.dashboard_log = workdir / "dashboard.log"
        self.figures = LoadFigures(processes)

    def manage(self, *args: str) -> str:
        done = run_captured(manage_command(*args), env=self.env, cwd=self.workdir, timeout=120)
        if done.returncode != 0:
            raise HarnessError(f"manage.py {' '.join(args)} failed: {done.stderr[-2000:]}")
        return done.stdout

    def run(self, seconds: float) -> LoadFigures:
        # No `migrate` first: the servers, started together on the new store, migrate it in turn.
        token = re.search(r"^\s+(\S+)\s*$", self.manage("create_api_token", "--name", "load"), re.MULTILINE)
        assert token is not None, "create_api_token printed no token"
        servers = [StdioServer(self.env, self.workdir, self.server_log, self.timeout) for _ in range(self.processes)]
        dashboard, port = self._start_dashboard()
        try:
            self._wait_for_dashboard(port)
            ready = threading.Barrier(self.processes + 2)  # the clients, the dashboard reader, this thread
            stop = threading.Event()
            threads = [threading.Thread(target=self._drive, args=(server, ready, stop)) for server in servers]
            threads.append(threading.Thread(target=self._read_dashboard, args=(port, token.group(1), ready, stop)))
            for thread in threads:
                thread.start()
            try:
                ready.wait(timeout=self.timeout * 2)  # every client warmed up: the clock starts
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
            for server in servers:
                server.close()
            self._stop_dashboard(dashboard)
        for log in (self.server_log, self.dashboard_log):
            self.figures.locked += log.read_text(errors="replace").count(LOCKED) if log.exists() else 0
        return self.figures

    # -- the MCP clients -----------------------------------------------------------------------------

    def _drive(self, server: StdioServer, ready: threading.Barrier, stop: threading.Event) -> None:
        drive(server, self.figures, ready, stop, self.timeout)

    # -- the dashboard -------------------------------------------------------------------------------

    def _start_dashboard(self) -> tuple[subprocess.Popen[bytes], int]:
        port = free_port()
        log = self.dashboard_log.open("ab")
        process = subprocess.Popen(
            manage_command("dashboard", "--port", str(port)),
            env=self.env,
            cwd=self.workdir,
            stdout=log,
            stderr=log,
        )
        log.close()
        return process, port

    def _wait_for_dashboard(self, port: int) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/health", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                raise HarnessError(f"the dashboard did not answer within {self.timeout:.0f} s")
            time.sleep(0.1)

    def _read_dashboard(self, port: int, token: str, ready: threading.Barrier, stop: threading.Event) -> None:
        figures = self.figures
        try:
            ready.wait(timeout=self.timeout * 2)
        except threading.BrokenBarrierError:
            return
        reads = 0
        while not stop.is_set():
            path = DASHBOARD_PATHS[reads % len(DASHBOARD_PATHS)]
            reads += 1
            request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
            if path.startswith("/api/"):
                request.add_header("Authorization", f"Bearer {token}")
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                    answer.read()
                    status = answer.status
            except urllib.error.HTTPError as exc:
                status = exc.code
            except OSError as exc:
                figures.dashboard_errors.append(f"GET {path}: {exc}")
                continue
            figures.dashboard_seconds.append(time.perf_counter() - started)
            if status != 200:
                figures.dashboard_errors.append(f"GET {path}: HTTP {status}")

    @staticmethod
    def _stop_dashboard(process: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGTERM)  # this process only, by its id
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def run_load(workdir: Path, processes: int, seconds: float, store_env: dict[str, str] | None = None) -> LoadFigures:
    return LoadRun(workdir, processes, store_env).run(seconds)
