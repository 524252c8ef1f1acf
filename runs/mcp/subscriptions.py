"""Subscriptions to run and session resources: `notifications/resources/updated` whenever any process
changes what they show (another `manage.py mcp`, the dashboard, the HTTP API, an import, a cleanup).

Clients subscribe in either protocol era, both served by the SDK: `resources/subscribe` and
`resources/unsubscribe` (up to 2025-11-25), or a `subscriptions/listen` stream naming the URIs
(2026-07-28; the SDK's ListenHandler serves the stream, fed through the server's SubscriptionBus).
Subscribable are the resources of recorded work:

    workrail://runs/{runId}, workrail://runs/{runId}/notes[?...]           watched through the run's session
    workrail://sessions/{sessionId}, workrail://sessions/{sessionId}/artifacts

Other processes write to the store directly, so changes are found by looking, not by being told: one
watcher task per server, which while anything is subscribed reads one number per watched session (the
seq of its newest event, runs/readmodels/versions.py) in one primary-key query every
WORKRAIL_SUBSCRIPTION_POLL_MS, and notifies each URI whose session moved (or went away). With nothing
subscribed it waits on an event and reads nothing. The query runs on a worker thread; the task ends with
the server (stdin EOF, a signal), and when reading ends the listen streams are closed gracefully, so
their requests are answered before the server exits (runs/mcp/answers.py).

A URI that names nothing subscribable, or a run or session that does not exist, is refused as
resources/read refuses it: a JSON-RPC error whose data is {uri, error: {code, message, ...}}.

This module is imported at start-up: it must stay light. The read models load on first subscription.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import anyio
from django.conf import settings
from django.db import connections
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import SUBSCRIPTION_ID_META_KEY, ListenHandler, ResourceUpdated, SubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    EmptyResult,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    UnsubscribeRequestParams,
)

from runs.contract.errors import ErrorCode, WorkRailError
from runs.mcp import deferred, readiness
from runs.mcp.boundary import guarded

logger = logging.getLogger("workrail.mcp")

_SUBSCRIBABLE = re.compile(
    r"workrail://(?:runs/(?P<run>[^/?#]+)(?:/notes(?:\?[^#]*)?)?|sessions/(?P<session>[^/?#]+)(?:/artifacts)?)"
)
SUBSCRIBABLE_TEMPLATES = (
    "workrail://runs/{runId}, workrail://runs/{runId}/notes, "
    "workrail://sessions/{sessionId} and workrail://sessions/{sessionId}/artifacts"
)
_CALLER_ERRORS = {ErrorCode.INVALID_INPUT, ErrorCode.NOT_FOUND}


def watched_session(uri: str) -> int:
    """The primary key of the session whose events change the resource `uri`; WorkRailError when `uri`
    names no resource that can be subscribed, or a run or session that does not exist. Database work."""
    found = _SUBSCRIBABLE.fullmatch(uri)
    if found is None:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"'{uri[:200]}' is not a resource that can be subscribed: only runs and sessions change.",
            f"Subscribe to {SUBSCRIBABLE_TEMPLATES}, with ids from an execution answer (session.runId, "
            "session.sessionId). Read the workflow resources again when you need them.",
        )
    if found["run"] is not None:
        pk: int = deferred.service("session_of_run")(found["run"])
    else:
        pk = deferred.service("session_pk")(found["session"])
    return pk


class _Watch:
    """One watched URI. (A plain class: a dataclass costs the handshake's import path half a millisecond.)"""

    __slots__ = ("session", "session_pk", "streams", "version")

    def __init__(self, session_pk: int, version: int | None) -> None:
        self.session_pk = session_pk
        self.version = version  # the newest event's seq when last read; None once the session is gone
        self.session: ServerSession | None = None  # the connection's channel, while subscribed (resources/subscribe)
        self.streams = 0  # open subscriptions/listen streams that name this URI

    def wanted(self) -> bool:
        return self.session is not None or self.streams > 0


class ResourceWatcher:
    """The subscriptions of one server and the task that watches the store for them."""

    def __init__(self, bus: SubscriptionBus, *, poll_interval_s: Callable[[], float] | None = None) -> None:
        self._bus = bus
        self._listen = ListenHandler(bus)
        self._interval = poll_interval_s or _configured_interval
        self._watches: dict[str, _Watch] = {}
        self._wanted = anyio.Event()  # set while anything is watched
        self._reading_ended = False

    def watched(self) -> list[str]:
        return sorted(self._watches)

    # --- the request handlers (the SDK's lowlevel server calls them) -------------------------------

    async def subscribe(self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> EmptyResult:
        watch = await self._watch(str(params.uri))
        watch.session = ctx.session  # stdio has one connection: the newest request's channel reaches it
        return EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> EmptyResult:
        uri = str(params.uri)
        watch = self._watches.get(uri)
        if watch is None:
            # Not subscribed: nothing to stop, but a URI that could never be subscribed is a mistake.
            if _SUBSCRIBABLE.fullmatch(uri) is None:
                await _resolve(uri)
            return EmptyResult()
        watch.session = None
        self._forget_if_unwanted(uri, watch)
        return EmptyResult()

    async def listen(
        self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        """The SDK's listen stream, with the URIs it names watched for as long as it is open."""
        uris = list(params.notifications.resource_subscriptions or ())
        named: list[str] = []
        try:
            for uri in uris:
                watch = await self._watch(uri)
                watch.streams += 1
                named.append(uri)
            if self._reading_ended:
                # Read just before stdin ended, after the streams were closed: ended at once, like them.
                return SubscriptionsListenResult(_meta={SUBSCRIPTION_ID_META_KEY: ctx.request_id})
            # The SDK's handler registers its stream before its first await: close_streams reaches it.
            return await self._listen(ctx, params)
        finally:
            for uri in named:
                watch = self._watches[uri]
                watch.streams -= 1
                self._forget_if_unwanted(uri, watch)

    def close_streams(self) -> None:
        """Ends every listen stream gracefully (each answers its request): reading has ended."""
        self._reading_ended = True
        self._listen.close()

    # --- the watcher --------------------------------------------------------------------------------

    async def run(self) -> None:
        """Watches the store for as long as the server runs; idle (no query) while nothing is watched."""
        polled = False
        while True:
            if not self._watches:
                if polled:  # the last subscription ended: let go of the connection the polls used
                    await anyio.to_thread.run_sync(close_connections)
                    polled = False
                self._wanted = anyio.Event()
                await self._wanted.wait()
            await anyio.sleep(self._interval())
            polled = await self.check() or polled

    async def check(self) -> bool:
        """One look at the store (False: nothing to look for): notifies every watched URI whose session
        moved or went away."""
        watching = dict(self._watches)  # a URI subscribed while the query runs has a fresher version
        if not watching:
            return False
        pks = {watch.session_pk for watch in watching.values()}
        try:
            current: dict[int, int] = await anyio.to_thread.run_sync(_versions, pks)
        except Exception:
            logger.warning("could not read the store for resource subscriptions; retrying", exc_info=True)
            return True
        for uri, watch in watching.items():
            now = current.get(watch.session_pk)
            if now == watch.version or self._watches.get(uri) is not watch:
                continue
            watch.version = now
            await self._notify(uri, watch)
        return True

    async def _notify(self, uri: str, watch: _Watch) -> None:
        if watch.session is not None:
            try:
                await watch.session.send_resource_updated(uri)
            except Exception:  # the client went away: nothing left to tell
                logger.debug("could not send notifications/resources/updated for %s", uri, exc_info=True)
        if watch.streams:
            await self._bus.publish(ResourceUpdated(uri=uri))

    async def _watch(self, uri: str) -> _Watch:
        watch = self._watches.get(uri)
        if watch is None:
            session_pk, version = await _resolve(uri)
            watch = self._watches.get(uri)  # another request may have added it meanwhile
            if watch is None:
                watch = self._watches[uri] = _Watch(session_pk, version)
                self._wanted.set()
        return watch

    def _forget_if_unwanted(self, uri: str, watch: _Watch) -> None:
        if not watch.wanted() and self._watches.get(uri) is watch:
            del self._watches[uri]


async def _resolve(uri: str) -> tuple[int, int | None]:
    """The session `uri` is watched through and its version now, or the MCP error that refuses `uri`."""
    try:
        found: tuple[int, int | None] = await anyio.to_thread.run_sync(_resolve_sync, uri)
    except WorkRailError as exc:
        code = INVALID_PARAMS if exc.code in _CALLER_ERRORS else INTERNAL_ERROR
        raise MCPError(
            code=code, message=f"{exc.message} {exc.suggestion}", data={"uri": uri, "error": exc.as_dict()}
        ) from None
    return found


def _resolve_sync(uri: str) -> tuple[int, int | None]:
    def work() -> tuple[int, int | None]:
        session_pk = watched_session(uri)
        return session_pk, _read_versions({session_pk}).get(session_pk)

    return guarded(f"Subscribing to {uri}", work, uses_database=True, changes=False)


def _versions(session_pks: set[int]) -> dict[int, int]:
    """The poll: one query on a worker thread. The thread's connection is kept between polls (no health
    check query each time, unlike a tool call's boundary), closed if a query fails, so the next poll
    reconnects, and when nothing is watched any more."""
    readiness.wait_until_ready()
    try:
        return _read_versions(session_pks)
    except Exception:
        close_connections()
        raise


def close_connections() -> None:
    """Closes this thread's database connections (anyio hands work to the thread that finished last, so
    after a poll that is the one the polls used)."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


def _read_versions(session_pks: set[int]) -> dict[int, int]:
    found: dict[int, int] = deferred.service("session_versions")(session_pks)
    return found


def _configured_interval() -> float:
    interval_ms: int = settings.WORKRAIL_SUBSCRIPTION_POLL_MS
    return interval_ms / 1000
