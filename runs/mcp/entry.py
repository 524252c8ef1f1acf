"""`python manage.py mcp`: the stdio MCP server an agent launches.

Start-up is on the agent's critical path, so the handshake is answered before Django loads its
apps: settings are read (and rejected early if malformed), the server starts, and Django's app
registry, pending migrations and the first catalog scan happen on a background thread. Tools that
need the database wait for that thread (runs/mcp/readiness.py).

Only JSON-RPC reaches stdout: the SDK serves the protocol from a private copy of the descriptor and
points fd 1 at stderr while it runs, and everything we log goes to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

logger = logging.getLogger("workrail.mcp")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="manage.py mcp", description="Run the WorkRail MCP server on stdio.")
    parser.parse_args(argv)

    from django.conf import settings

    settings.WORKRAIL_HOME  # noqa: B018 - reading one setting loads and validates them all
    logging.basicConfig(
        stream=sys.stderr, level=settings.LOG_LEVEL, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )

    import anyio

    from runs.mcp import readiness
    from runs.mcp.server import WorkRailServer

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[dict[str, Any]]:
        worker = readiness.start_background_setup()
        try:
            yield {}
        finally:
            worker.join(timeout=30)

    server = WorkRailServer(lifespan=lifespan)
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(server.run_stdio_async)
    return 0
