"""`manage.py mcp --http`: the MCP server for a team, over streamable HTTP, served by uvicorn (docs/http.md).

Unlike stdio, nobody waits on this process's start-up: Django is set up and the store migrated before
the port is opened (here for the migrations, once; then in each worker, runs/mcp/http_app.py). Only
runs/mcp/entry.py imports this module, and only for --http: the stdio server never loads uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import socket
import sys
from typing import Any

import django
import h11
import uvicorn
from django.conf import settings
from uvicorn.protocols.http.h11_impl import H11Protocol

from runs.mcp.http_options import DEFAULT_PORT, PATH, HttpOptions, is_loopback
from runs.store import refusals
from runs.store.actors import Actor, Door

logger = logging.getLogger("workrail.mcp")

__all__ = ["DEFAULT_PORT", "serve"]

FACTORY = "runs.mcp.http_app:create_app"
MAX_WORKERS = 64
HEADER_TIMEOUT_S = 10.0  # a request's headers, from the connection's start or its previous answer's end
WORKER_HEALTHCHECK_S = 120  # a worker's start-up (Django, migrations, the catalog) on a loaded machine


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, with two changes on every connection:

    - Nagle's algorithm off. asyncio turns it off only for sockets it knows to be TCP; a worker's listening
      socket comes from uvicorn's parent process and reads as protocol 0, so its connections kept it on: a
      keep-alive client then waited for its delayed ACK (40 ms) between an answer's headers and its body, on
      every request after the first.
    - A deadline for a request's headers (HEADER_TIMEOUT_S from the connection's start, or from the end of
      its previous answer). uvicorn has none: a client sending a header a byte at a time kept its connection
      (and its slot) open for ever. Past the deadline the connection is closed and the refusal recorded."""

    _header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        connection = transport.get_extra_info("socket")
        if connection is not None and connection.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)  # type: ignore[arg-type]
        self._await_headers()

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:  # a request's headers have all arrived
            self._cancel_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._await_headers()  # the next request on this keep-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        super().connection_lost(exc)

    def _await_headers(self) -> None:
        self._cancel_deadline()
        self._header_deadline = self.loop.call_later(HEADER_TIMEOUT_S, self._headers_too_slow)

    def _cancel_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_too_slow(self) -> None:
        self._header_deadline = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        client = self.client[0] if self.client else ""
        refusals.record(
            "HEADERS_TOO_SLOW",
            f"a request's headers not sent within {HEADER_TIMEOUT_S:g} s",
            Actor("", Door.HTTP, client=client),
        )
        self.transport.close()


def server_options(level: str) -> dict[str, Any]:
    """uvicorn's options for `manage.py mcp --http`, beyond where it listens."""
    forwarded_allow_ips: str = settings.WORKRAIL_MCP_FORWARDED_ALLOW_IPS
    options: dict[str, Any] = {
        "http": BoundedH11Protocol,
        # Behind a TLS reverse proxy: the client's address and scheme from X-Forwarded-*, believed only from
        # the proxies WORKRAIL_MCP_FORWARDED_ALLOW_IPS names; with none named, never (uvicorn would otherwise
        # believe any process on 127.0.0.1, which could then choose the address a refusal is recorded from).
        "proxy_headers": bool(forwarded_allow_ips),
        "forwarded_allow_ips": forwarded_allow_ips or None,
        "log_level": level.lower(),
        "access_log": level == "DEBUG",
        "server_header": False,
    }
    if "timeout_worker_healthcheck" in inspect.signature(uvicorn.Config).parameters:  # uvicorn 0.36 on
        # A worker answers uvicorn's health check once Django is set up and the store migrated (the app's
        # lifespan); 5 s, uvicorn's default, killed workers that started on a loaded machine.
        options["timeout_worker_healthcheck"] = WORKER_HEALTHCHECK_S
    return options


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
        **server_options(level),
    )
    return 0
