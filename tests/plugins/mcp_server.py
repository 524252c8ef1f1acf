"""The MCP server `manage.py mcp` serves, in this process: WorkRailServer (runs/mcp/server.py) with the
test database as its store, reached by the SDK's own `Client` over its in-memory transport.

For tests of the protocol and of the answers: every request and answer goes through the SDK's client
and server as JSON-RPC messages, in either protocol era, without starting a process. What only a
process shows (stdin's framing, its end, signals, crashes, the HTTP guards, the installed wheel) is
tested in tests/e2e, over the real stdio and HTTP transports.

The server calls tools on worker threads, as it does in its process, so the rows a call writes must be
committed to be seen by the next: the fixture uses the transactional database (emptied after each test).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client._memory import InMemoryTransport

from runs.execution import catalog as catalog_service
from runs.mcp.server import WorkRailServer
from runs.store.actors import Actor, Door, acting_as


class InProcessServer:
    """A WorkRailServer configured as a process started in `project` with WORKRAIL_HOME at `home` would
    be, plus the settings a test names (as `manage.py mcp` would read them from its environment)."""

    def __init__(self, settings: Any, project: Path) -> None:
        self._settings = settings
        self.project = project
        self.home = project / "home"

    def configure(self, **overrides: Any) -> WorkRailServer:
        """A fresh server whose settings are the defaults of a new WORKRAIL_HOME plus `overrides`
        (setting names, e.g. WORKRAIL_WORKFLOW_PATHS=[path], WORKRAIL_ENABLE_CHECKPOINT=False)."""
        self.home.mkdir(parents=True, exist_ok=True)
        self._settings.WORKRAIL_HOME = self.home
        self._settings.WORKRAIL_PROJECT_DIR = self.project
        self._settings.WORKRAIL_WORKFLOW_PATHS = []
        self._settings.WORKRAIL_WORKFLOW_REPOS = []
        for name, value in overrides.items():
            setattr(self._settings, name, value)
        catalog_service.catalog_loader.cache_clear()
        return WorkRailServer()

    @asynccontextmanager
    async def client(self, server: WorkRailServer | None = None, **options: Any) -> AsyncIterator[Client]:
        """The SDK's client on `server` (a default one when None) over the in-memory transport; `options`
        go to Client (mode="legacy" for the initialize handshake, a protocol version for the stateless era,
        list_roots_callback, ...). Calls act as whoever runs a stdio server: door "stdio", no owner."""
        transport = InMemoryTransport(server or self.configure(), raise_exceptions=False)
        with acting_as(Actor(owner="", door=Door.STDIO)):
            async with Client(transport, read_timeout_seconds=30, **options) as connected:
                yield connected


@pytest.fixture
def mcp_server(transactional_db: None, settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The in-process MCP server of this test (see the module's docstring): `mcp_server.configure(...)`
    makes one with settings, `mcp_server.client(server, mode=...)` connects the SDK's client to it. The
    test works in `tmp_path`, as the process would: its project directory is its working directory."""
    monkeypatch.chdir(tmp_path)
    yield InProcessServer(settings, tmp_path)
    catalog_service.catalog_loader.cache_clear()


@pytest.fixture(autouse=True)
def _no_timings_writer_outlives_its_test() -> Any:
    """An HTTP server built in this process (runs/mcp/http_app.build_app) starts the tool-timings writer, a
    thread that writes to the database every second. Left running, it writes during a later test that has no
    database, and pytest-django refuses from a thread no one waits for: the test that built it must stop it
    (timings.disable)."""
    yield
    import threading

    left = [thread for thread in threading.enumerate() if thread.name == "workrail-timings"]
    for thread in left:
        thread.join(5)  # disable() wakes it at once; a second is its longest sleep
    assert not any(thread.is_alive() for thread in left), (
        "the tool-timings writer outlived its test: call timings.disable()"
    )
