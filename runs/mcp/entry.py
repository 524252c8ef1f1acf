"""`python manage.py mcp`: the stdio MCP server an agent launches.

Start-up is on the agent's critical path, so the handshake is answered before Django loads its
apps: settings are read, the server starts, and Django's app
registry, pending migrations and the first catalog scan happen on a background thread. Tools that
need the database wait for that thread (runs/mcp/readiness.py). Settings that cannot be read do
not stop the server: it answers the handshake and every call returns CONFIGURATION_ERROR.

Only JSON-RPC reaches stdout: the SDK serves the protocol from a private copy of the descriptor and
points fd 1 at stderr while it runs, and everything we log goes to stderr. Every stdin line is checked
before the SDK reads it (runs/mcp/framing.py): a request it cannot parse gets a JSON-RPC error.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from runs.mcp import readiness, timings
from runs.mcp.server import WorkRailServer
from runs.store.actors import Actor, Door, acting_as

logger = logging.getLogger("workrail.mcp")


def main(argv: list[str], prog: str = "manage.py mcp") -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description="Run the WorkRail MCP server on stdio, or for a team over HTTP (--http)."
    )
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio (docs/http.md)")
    parser.add_argument("--host", help="with --http: the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="with --http: the port (default 8766)")
    parser.add_argument("--workers", type=int, help="with --http: worker processes (default 1)")
    options = parser.parse_args(argv)
    if options.http:
        from runs.mcp import http  # uvicorn, starlette's app, Django's apps: never on the stdio path

        return http.serve(options.host or "127.0.0.1", options.port or http.DEFAULT_PORT, options.workers or 1)
    if options.host is not None or options.port is not None or options.workers is not None:
        parser.error("--host, --port and --workers go with --http")

    try:
        level = settings.LOG_LEVEL  # reading one setting loads and validates them all
    except ImproperlyConfigured as exc:
        # Exiting here would leave the client with "Connection closed" and nothing to show. Answer the
        # handshake instead, and let every call say what is wrong (it is on stderr too).
        print(f"workrail: configuration error: {exc}", file=sys.stderr)
        readiness.refuse_all_calls(str(exc))
        level = "WARNING"
    logging.basicConfig(stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[dict[str, object]]:
        if readiness.configuration_problem() is not None:
            yield {}  # nothing to prepare: no call will reach the database
            return
        worker = readiness.start_background_setup()
        timings.enable()  # the dashboard's tool-timings page reads what this process records
        try:
            yield {}
        finally:
            worker.join(timeout=30)

    server = WorkRailServer(lifespan=lifespan)
    # Whoever runs this process on this machine acts: the events it records say so (door "stdio").
    with contextlib.suppress(KeyboardInterrupt), acting_as(Actor(owner="", door=Door.STDIO)):
        anyio.run(server.run_stdio_async)
    return 0
