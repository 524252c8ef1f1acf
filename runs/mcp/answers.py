"""Every request read before stdin closes is answered before the server exits.

The SDK ends its serving loop on stdin EOF by cancelling every request still in flight
(`JSONRPCDispatcher.run`). Our tools run on worker threads that a cancellation cannot stop, so a
pipelined `start_workflow` still committed its session; the cancellation then landed on the write of
its answer, and the client got nothing (not even "Connection closed": the SDK sends that only when
no answer write had started). Piping five starts and closing stdin made five sessions and no answers.

So EOF (or the end of reading on SIGTERM or SIGINT, runs/mcp/server.py) reaches the SDK only once
every request it was given has been answered: `OpenRequests` counts the requests passed on
(runs/mcp/framing.py) and the answers written through `AnsweringWrites`, the write stream the SDK
serves with. A request the client cancelled (`notifications/cancelled`) is no longer waited for: the
SDK never answers it. If the write stream breaks (stdout closed by the client), nothing more can be
answered and nothing is waited for. A request still unanswered DRAIN_LIMIT_S after EOF is given up,
so a stuck call cannot keep the process alive for ever.
"""

from __future__ import annotations

import logging
from collections import Counter
from types import TracebackType
from typing import Protocol, Self

import anyio
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse, RequestId

logger = logging.getLogger("workrail.mcp")

DRAIN_LIMIT_S = 120.0
"""How long after stdin EOF the answers to the requests in flight are waited for (a tool call waits
up to 60 s for start-up to finish, then runs)."""


class WriteSide(Protocol):
    """What AnsweringWrites needs of the SDK's write stream."""

    async def send(self, item: SessionMessage, /) -> None: ...

    async def aclose(self) -> None: ...


class OpenRequests:
    """The requests handed to the SDK and not yet answered. Used from the event loop only."""

    def __init__(self) -> None:
        self._open: Counter[RequestId] = Counter()  # an id sent twice is answered twice
        self._changed = anyio.Event()
        self._write_side_gone = False

    def received(self, message: JSONRPCMessage) -> None:
        if isinstance(message, JSONRPCRequest):
            self._open[coerce_request_id(message.id)] += 1
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            request_id = (message.params or {}).get("requestId")
            if isinstance(request_id, int | str) and not isinstance(request_id, bool):
                self._settle(request_id)  # the SDK must not answer a request its client cancelled

    def answered(self, message: JSONRPCMessage) -> None:
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            self._settle(message.id)

    def write_side_gone(self) -> None:
        self._write_side_gone = True
        self._changed.set()

    def unanswered(self) -> list[RequestId]:
        return [] if self._write_side_gone else sorted(self._open, key=str)

    async def all_answered(self, limit: float = DRAIN_LIMIT_S) -> None:
        """Returns once nothing is left to answer, or after `limit` seconds (logged)."""
        with anyio.move_on_after(limit):
            while self.unanswered():
                self._changed = anyio.Event()
                await self._changed.wait()
        if self.unanswered():
            logger.warning("stdin closed; gave up waiting for the answers to requests %s", self.unanswered())

    def _settle(self, request_id: RequestId) -> None:
        key = coerce_request_id(request_id)
        if self._open[key] <= 0:
            return
        self._open[key] -= 1
        if not self._open[key]:
            del self._open[key]
        self._changed.set()


class AnsweringWrites:
    """The SDK's write stream, noting in `requests` each answer it carries."""

    def __init__(self, inner: WriteSide, requests: OpenRequests) -> None:
        self._inner = inner
        self._requests = requests

    async def send(self, item: SessionMessage, /) -> None:
        try:
            await self._inner.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._requests.write_side_gone()
            raise
        finally:
            # An answer whose write started counts as given (even if cancelled: it may have been
            # delivered), as in the SDK: it never writes a second answer for that id.
            self._requests.answered(item.message)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
