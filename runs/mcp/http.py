"""`manage.py mcp --http`: the MCP server for a team, over streamable HTTP, served by uvicorn (docs/http.md).

Unlike stdio, nobody waits on this process's start-up: Django is set up and the store migrated before
the port is opened (here for the migrations, once; then in each worker, runs/mcp/http_app.py). Only
runs/mcp/entry.py imports this module, and only for --http: the stdio server never loads uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sys

import django
import uvicorn
from django.conf import settings
from uvicorn.protocols.http.h11_impl import H11Protocol

from runs.mcp.http_options import DEFAULT_PORT, PATH, HttpOptions, is_loopback

logger = logging.getLogger("workrail.mcp")

__all__ = ["DEFAULT_PORT", "serve"]

FACTORY = "runs.mcp.http_app:create_app"
MAX_WORKERS = 64


class NoDelayH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, with Nagle's algorithm off on every connection. asyncio turns it off only for
    sockets it knows to be TCP; a worker's listening socket comes from uvicorn's parent process and reads
    as protocol 0, so its connections kept it on: a keep-alive client then waited for its delayed ACK
    (40 ms) between an answer's headers and its body, on every request after the first."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        connection = transport.get_extra_info("socket")
        if connection is not None and connection.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)  # type: ignore[arg-type]


class RefusedToServe(Exception):
    """The options would serve something unsafe or impossible; the message says what to change."""


def options_for(host: str, port: int, workers: int) -> HttpOptions:
    """The options of a server on `host`:`port` with `workers` processes, or RefusedToServe."""
    if not 1 <= workers <= MAX_WORKERS:
        raise RefusedToServe(f"--workers {workers}: use 1 to {MAX_WORKERS}.")
    if not 1 <= port <= 65535:
        raise RefusedToServe(f"--port {port}: use 1 to 65535.")
    allowed_hosts: list[str] = settings.WORKRAIL_MCP_ALLOWED_HOSTS
    allowed_origins: list[str] = settings.WORKRAIL_MCP_ALLOWED_ORIGINS
    if not is_loopback(host) and not allowed_hosts:
        raise RefusedToServe(
            f"Refusing to serve on --host {host}: it is not a loopback address, so other machines can reach it, "
            "and WORKRAIL_MCP_ALLOWED_HOSTS does not say which host names they will use. Set it to the names "
            "clients reach this server by (e.g. WORKRAIL_MCP_ALLOWED_HOSTS=workrail.example.com), or serve on "
            "127.0.0.1 behind a TLS reverse proxy (docs/http.md)."
        )
    return HttpOptions(host, port, workers, tuple(allowed_hosts), tuple(allowed_origins))


def serve(host: str, port: int, workers: int) -> int:
    level: str = settings.LOG_LEVEL  # reading one setting loads and validates them all (manage.py reports errors)
    try:
        options = options_for(host, port, workers)
    except RefusedToServe as exc:
        print(f"workrail: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    django.setup()
    from runs.store.setup import ensure_migrated  # the ORM: only once Django's apps are ready

    applied = ensure_migrated()  # once, before the workers start (each checks again, and finds nothing to do)
    if applied:
        logger.info("applied %d migrations", applied)
    options.publish()
    print(
        f"workrail: MCP over streamable HTTP at http://{host}:{port}{PATH} ({workers} worker"
        f"{'s, stateless' if options.stateless else ''}); every request needs 'Authorization: Bearer <token>'.",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(
        FACTORY,
        factory=True,
        host=host,
        port=port,
        workers=workers if workers > 1 else None,
        http=NoDelayH11Protocol,
        # Behind a TLS reverse proxy: the client's address and scheme from X-Forwarded-*, believed only
        # from the proxies WORKRAIL_MCP_FORWARDED_ALLOW_IPS names.
        proxy_headers=True,
        forwarded_allow_ips=settings.WORKRAIL_MCP_FORWARDED_ALLOW_IPS,
        log_level=level.lower(),
        access_log=level == "DEBUG",
        server_header=False,
    )
    return 0
