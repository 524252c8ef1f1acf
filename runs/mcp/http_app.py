"""The ASGI application of `manage.py mcp --http`: the SDK's streamable HTTP transport serving the same
WorkRailServer as stdio (the same tools, resources, prompts, answers and error bodies), behind the Origin
and token checks of runs/mcp/http_guards.py.

uvicorn calls `create_app` in each worker process (it imports this module by name), so the module itself
imports nothing that needs Django's apps: they are set up, and the store migrated, inside the factory,
before the first request is accepted. With several workers every request stands alone (HttpOptions.stateless):
the subscription handlers are taken away, so the server does not offer what it could not keep; clients read
the resource again instead. With one worker, sessions and subscriptions work as on stdio.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import django
from starlette.applications import Starlette
from starlette.middleware import Middleware

from runs.mcp import deferred, readiness, timings
from runs.mcp.http_options import HttpOptions
from runs.mcp.server import WorkRailServer

logger = logging.getLogger("workrail.mcp")

SUBSCRIPTION_METHODS = ("resources/subscribe", "resources/unsubscribe", "subscriptions/listen")


def create_app() -> Starlette:
    """uvicorn's factory (called on its event loop: nothing here touches the database)."""
    django.setup()
    return build_app(WorkRailServer(), HttpOptions.published())


def prepare() -> None:
    """The start-up the stdio server does on its background thread, done here before the first request
    (uvicorn accepts none until the lifespan has started): pending migrations (one process at a time), the
    tool registry and the catalog. On a worker thread: Django refuses database work on an event loop."""
    applied = deferred.service("prepare")()
    if applied:
        logger.info("applied %d migrations", applied)
    timings.enable()  # the dashboard's tool-timings page reads what this process records


def build_app(server: WorkRailServer, options: HttpOptions) -> Starlette:
    from runs.mcp.http_guards import (  # the store's models: only once Django is ready
        BearerGuard,
        OriginGuard,
        SessionCensus,
    )

    security = options.security()
    if options.stateless:
        _stop_offering_subscriptions(server)
    transport = server.streamable_http_app(
        stateless_http=options.stateless,
        json_response=options.stateless,  # a lone request needs no event stream for its one answer
        transport_security=security,
        host=options.host,
    )
    census = None if options.stateless else SessionCensus(server.session_manager)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await anyio.to_thread.run_sync(prepare)
        # A workflow repository never pinned is fetched off the serving path, as on stdio (each worker may
        # try; the repositories' lock lets one fetch and the others find it pinned).
        threading.Thread(target=readiness.fetch_unpinned_repos, name="workrail-repos", daemon=True).start()
        async with server.session_manager.run(), anyio.create_task_group() as background:
            if census is not None:
                background.start_soon(server.watcher.run)  # idle until something is subscribed
                background.start_soon(census.watch_revocations)  # a revoked token's open sessions end
            try:
                yield
            finally:
                server.watcher.close_streams()
                background.cancel_scope.cancel()

    return Starlette(
        routes=transport.routes,  # the SDK's transport endpoint at /mcp
        middleware=[Middleware(OriginGuard, security=security), Middleware(BearerGuard, sessions=census)],
        lifespan=lifespan,
    )


def _stop_offering_subscriptions(server: WorkRailServer) -> None:
    # The SDK advertises resources.subscribe from whether these methods are served, and has no public way
    # to take a handler back: tests/runs/mcp/test_http_app.py fails if this stops working.
    handlers = server._lowlevel_server._request_handlers
    for method in SUBSCRIPTION_METHODS:
        handlers.pop(method, None)
