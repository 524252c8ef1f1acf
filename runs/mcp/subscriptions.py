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

A URI that names nothing subscribable, a run or session that does not exist, or one another owner started
(runs/store/ownership.py, asked on every subscription, even to a URI watched already for someone else), is
refused as resources/read refuses it: a JSON-RPC error whose data is {uri, error: {code, message, ...}}.

Subscriptions belong to the MCP connection that made them (one per MCP session over HTTP): an unsubscribe
ends only its own, and they all end with the connection (its teardown stack). What one owner holds at once,
over all its connections, is bounded (MAX_SUBSCRIPTIONS_PER_OWNER, MAX_LISTEN_STREAMS_PER_OWNER, MAX_URI_CHARS;
docs/security.md), and each refusal is recorded (runs/store/refusals.py). A connection's notifications go out
on a task of its own, so a client that does not read its stream delays nobody else's.

This module is imported at start-up: it must stay light. The read models load on first subscription.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup
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
from runs.store import actors, refusals

logger = logging.getLogger("workrail.mcp")

_SUBSCRIBABLE = re.compile(
    r"workrail://(?:runs/(?P<run>[^/?#]+)(?:/notes(?:\?[^#]*)?)?|sessions/(?P<session>[^/?#]+)(?:/artifacts)?)"
)
SUBSCRIBABLE_TEMPLATES = (
    "workrail://runs/{runId}, workrail://runs/{runId}/notes, "
    "workrail://sessions/{sessionId} and workrail://sessions/{sessionId}/artifacts"
)
_CALLER_ERRORS = {ErrorCode.INVALID_INPUT, ErrorCode.NOT_FOUND, ErrorCode.NOT_YOUR_SESSION}

# Bounds: what one owner may hold at once, over all its connections (docs/security.md).
MAX_URI_CHARS = 1024  # a run's notes URI with a stateToken and a cursor is under 200
MAX_SUBSCRIPTIONS_PER_OWNER = 200
MAX_LISTEN_STREAMS_PER_OWNER = 16
SEND_TIMEOUT_S = 5.0  # a client that does not take a notification in this time loses it


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


class _Subscriber:
    """One MCP connection's resources/subscribe subscriptions (a plain class, as _Watch). Its notifications
    are sent by a task of its own, so a client that stops reading holds up nobody else's; while a send is
    pending, further changes to its URIs are coalesced (`pending` holds each URI once)."""

    __slots__ = ("owner", "pending", "sending", "session", "uris")

    def __init__(self, owner: str, session: ServerSession) -> None:
        self.owner = owner
        self.session = session  # a request's channel: notifications go on its connection's standalone stream
        self.uris: set[str] = set()
        self.pending: set[str] = set()
        self.sending = False


class _Watch:
    """One watched URI. (A plain class: a dataclass costs the handshake's import path half a millisecond.)"""

    __slots__ = ("session_pk", "streams", "subscribers", "version")

    def __init__(self, session_pk: int, version: int | None) -> None:
        self.session_pk = session_pk
        self.version = version  # the newest event's seq when last read; None once the session is gone
        self.subscribers: set[_Subscriber] = set()  # the connections subscribed (resources/subscribe)
        self.streams = 0  # open subscriptions/listen streams that name this URI

    def wanted(self) -> bool:
        return bool(self.subscribers) or self.streams > 0


class ResourceWatcher:
    """The subscriptions of one server and the task that watches the store for them."""

    def __init__(self, bus: SubscriptionBus, *, poll_interval_s: Callable[[], float] | None = None) -> None:
        self._bus = bus
        self._listen = ListenHandler(bus)
        self._interval = poll_interval_s or _configured_interval
        self._watches: dict[str, _Watch] = {}
        self._subscribers: dict[object, _Subscriber] = {}  # by connection
        self._held: Counter[str] = Counter()  # by owner: URIs subscribed, on every connection and listen stream
        self._streams: Counter[str] = Counter()  # by owner: open listen streams
        self._senders: TaskGroup | None = None  # while run() runs
        self._wanted = anyio.Event()  # set while anything is watched
        self._reading_ended = False

    def watched(self) -> list[str]:
        return sorted(self._watches)

    def held(self, owner: str) -> int:
        """How many subscriptions `owner` holds now, over all its connections and listen streams."""
        return self._held[owner]

    # --- the request handlers (the SDK's lowlevel server calls them) -------------------------------

    async def subscribe(self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> EmptyResult:
        uri = _bounded(str(params.uri))
        subscriber = self._subscriber(ctx)
        if uri in subscriber.uris:
            return EmptyResult()
        self._take(subscriber.owner, 1, uri)
        try:
            watch = await self._watch(uri)
        except BaseException:
            self._held[subscriber.owner] -= 1
            raise
        if self._subscribers.get(_connection_of(ctx)) is not subscriber:  # the connection ended meanwhile
            self._held[subscriber.owner] -= 1
            self._forget_if_unwanted(uri, watch)
            return EmptyResult()
        watch.subscribers.add(subscriber)
        subscriber.uris.add(uri)
        return EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> EmptyResult:
        """Ends this connection's subscription to the URI, and only this connection's."""
        uri = str(params.uri)
        subscriber = self._subscribers.get(_connection_of(ctx))
        if subscriber is None or uri not in subscriber.uris:
            # Not subscribed: nothing to stop, but a URI that could never be subscribed is a mistake.
            if _SUBSCRIBABLE.fullmatch(uri) is None:
                await _resolve(_bounded(uri))
            return EmptyResult()
        self._release(subscriber, uri)
        return EmptyResult()

    async def listen(
        self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        """The SDK's listen stream, with the URIs it names watched for as long as it is open."""
        uris = list(dict.fromkeys(_bounded(str(uri)) for uri in params.notifications.resource_subscriptions or ()))
        owner = actors.current().owner
        if self._streams[owner] >= MAX_LISTEN_STREAMS_PER_OWNER:
            raise _refused(
                WorkRailError(
                    ErrorCode.RATE_LIMITED,
                    f"This owner has {MAX_LISTEN_STREAMS_PER_OWNER} subscriptions/listen streams open already.",
                    "Name every URI in one stream, or close a stream before opening another.",
                    retryable=True,
                ),
                f"a listen stream past {MAX_LISTEN_STREAMS_PER_OWNER}",
            )
        self._take(owner, len(uris), f"{len(uris)} URIs of a listen stream")
        self._streams[owner] += 1
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
            self._streams[owner] -= 1
            self._held[owner] -= len(uris)
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
        async with anyio.create_task_group() as senders:
            self._senders = senders
            try:
                while True:
                    if not self._watches:
                        if polled:  # the last subscription ended: let go of the connection the polls used
                            await anyio.to_thread.run_sync(close_connections)
                            polled = False
                        self._wanted = anyio.Event()
                        await self._wanted.wait()
                    await anyio.sleep(self._interval())
                    polled = await self.check() or polled
            finally:
                self._senders = None

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
        moved: set[_Subscriber] = set()
        for uri, watch in watching.items():
            now = current.get(watch.session_pk)
            if now == watch.version or self._watches.get(uri) is not watch:
                continue
            watch.version = now
            for subscriber in watch.subscribers:
                subscriber.pending.add(uri)
                moved.add(subscriber)
            if watch.streams:
                await self._bus.publish(ResourceUpdated(uri=uri))  # buffered per stream, never awaited
        waiting = [subscriber for subscriber in moved if not subscriber.sending]
        for subscriber in waiting:
            subscriber.sending = True
        if self._senders is not None:
            for subscriber in waiting:
                self._senders.start_soon(self._send, subscriber)
        else:  # a look taken by hand (outside run()): delivered before it returns, each on its own
            async with anyio.create_task_group() as senders:
                for subscriber in waiting:
                    senders.start_soon(self._send, subscriber)
        return True

    async def _send(self, subscriber: _Subscriber) -> None:
        """Sends a connection's pending notifications, one at a time, each within SEND_TIMEOUT_S: a client
        that does not read its stream loses its own notifications (it reads the resource again), nobody
        else's."""
        try:
            while subscriber.pending:
                uri = subscriber.pending.pop()
                with anyio.move_on_after(SEND_TIMEOUT_S) as waited:
                    await subscriber.session.send_resource_updated(uri)
                if waited.cancelled_caught:
                    logger.info("a client did not take notifications/resources/updated for %s in time", uri[:200])
                    subscriber.pending.clear()
        except Exception:  # the client went away: nothing left to tell
            logger.debug("could not send notifications/resources/updated", exc_info=True)
            subscriber.pending.clear()
        finally:
            subscriber.sending = False

    # --- who holds what -----------------------------------------------------------------------------

    def _subscriber(self, ctx: ServerRequestContext[Any, Any]) -> _Subscriber:
        """The connection's subscriber, made on its first subscription and dropped when the connection ends
        (its teardown stack), with every subscription it held."""
        connection = _connection_of(ctx)
        subscriber = self._subscribers.get(connection)
        if subscriber is None:
            subscriber = self._subscribers[connection] = _Subscriber(actors.current().owner, ctx.session)
            connection.exit_stack.callback(self._drop, connection)
        return subscriber

    def _drop(self, connection: object) -> None:
        subscriber = self._subscribers.pop(connection, None)
        if subscriber is None:
            return
        for uri in list(subscriber.uris):
            self._release(subscriber, uri)
        subscriber.pending.clear()

    def _release(self, subscriber: _Subscriber, uri: str) -> None:
        subscriber.uris.discard(uri)
        self._held[subscriber.owner] -= 1
        watch = self._watches.get(uri)
        if watch is not None:
            watch.subscribers.discard(subscriber)
            self._forget_if_unwanted(uri, watch)

    def _take(self, owner: str, count: int, what: str) -> None:
        """Counts `count` more subscriptions for `owner`, or refuses them past MAX_SUBSCRIPTIONS_PER_OWNER."""
        if self._held[owner] + count > MAX_SUBSCRIPTIONS_PER_OWNER:
            raise _refused(
                WorkRailError(
                    ErrorCode.RATE_LIMITED,
                    f"This owner holds {self._held[owner]} subscriptions; at most {MAX_SUBSCRIPTIONS_PER_OWNER} are "
                    "kept at once, over all its connections.",
                    "Unsubscribe from resources you no longer follow (or end the connections that hold them), "
                    "then subscribe again.",
                    retryable=True,
                ),
                f"subscription {what[:200]} past {MAX_SUBSCRIPTIONS_PER_OWNER}",
            )
        self._held[owner] += count

    async def _watch(self, uri: str) -> _Watch:
        watch = self._watches.get(uri)
        if watch is None:
            session_pk, version = await _resolve(uri)
            watch = self._watches.get(uri)  # another request may have added it meanwhile
            if watch is None:
                watch = self._watches[uri] = _Watch(session_pk, version)
                self._wanted.set()
        else:
            await _resolve(uri)  # watched for someone else: this request's owner is checked all the same
        return watch

    def _forget_if_unwanted(self, uri: str, watch: _Watch) -> None:
        if not watch.wanted() and self._watches.get(uri) is watch:
            del self._watches[uri]


def _connection_of(ctx: ServerRequestContext[Any, Any]) -> Any:
    """The MCP connection (one per MCP session) a request came on. The SDK builds a ServerSession per request
    and keeps the connection private; tests/runs/mcp/test_http_doors.py fails if this stops working."""
    return ctx.session._connection


def _bounded(uri: str) -> str:
    if len(uri) > MAX_URI_CHARS:
        raise _refused(
            WorkRailError(
                ErrorCode.INVALID_INPUT,
                f"A subscribed URI has at most {MAX_URI_CHARS} characters; this one has {len(uri)}.",
                f"Subscribe to {SUBSCRIBABLE_TEMPLATES}, with ids from an execution answer.",
            ),
            f"a URI of {len(uri)} characters",
        )
    return uri


def _refused(error: WorkRailError, what: str) -> MCPError:
    refusals.record(error.code, what)
    return MCPError(code=INVALID_PARAMS, message=f"{error.message} {error.suggestion}", data={"error": error.as_dict()})


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
