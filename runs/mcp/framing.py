"""JSON-RPC framing at the stdio boundary: every request line gets an answer, even one the SDK cannot read.

The SDK's stdio transport parses each stdin line with `jsonrpc_message_adapter.validate_json` and,
when that fails, hands the exception to its dispatcher, which logs it at DEBUG and drops it: a
client that sent a request the SDK cannot parse (not JSON, lone surrogates, nesting past 200 levels,
`params` that is not an object, a wrong `id` or `method` type, a batch) waits for its timeout. A
request with an `id` the SDK does not accept (null, a fraction, a boolean) is worse: it parses as a
notification and is silently run. See docs/upstream/mcp-python-sdk.md.

So the lines reach the SDK through `CheckedLines`: each line is validated first, with the SDK's own
adapter (the same parser and limits, so a line passes here exactly when the SDK can read it; about
7 us for a typical call), and a good line is passed on unchanged. A bad line is not passed on; it
is answered with a JSON-RPC error through the SDK's own write stream (its single stdout writer, so
no bytes interleave): -32700 with id null for text that is not JSON or is nested too deep to read,
-32600 for a JSON value that is not a valid request (with its id when the id is a string or an
integer), -32602 for a known method whose params are not an object or cannot be read, -32601 for an
unknown method whose params are not an object. A malformed notification (no id, a string method)
and a malformed response get no answer, as JSON-RPC requires; blank lines are skipped. Only the
rejected lines are examined further (`json.loads`, a walk for depth and surrogates).
"""

from __future__ import annotations

import io
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    RequestId,
    jsonrpc_message_adapter,
)
from mcp_types.methods import SPEC_CLIENT_METHODS

from runs.mcp.answers import AnsweringWrites, OpenRequests, WriteSide
from runs.mcp.stdin_reader import StdinLines

logger = logging.getLogger("workrail.mcp.framing")

MAX_DEPTH = 200
"""Nesting the SDK's JSON parser (pydantic-core's jiter) reads; a deeper line never reaches the SDK."""


@dataclass(frozen=True)
class Rejection:
    """Why a line does not reach the SDK, and the error that answers it (`answer` False: none is due)."""

    code: int
    message: str
    id: RequestId | None = None
    answer: bool = True

    def response(self) -> SessionMessage:
        error = ErrorData(code=self.code, message=self.message)
        return SessionMessage(JSONRPCError(jsonrpc="2.0", id=self.id, error=error))


def read_line(line: str) -> JSONRPCMessage | Rejection:
    """The message the SDK will read in `line`, or the rejection that answers a line it cannot read."""
    if not line.strip():
        return Rejection(INVALID_REQUEST, "blank line", answer=False)
    try:
        message: JSONRPCMessage = jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:  # the SDK would drop the line: find out why, and whom to answer
        return diagnose(line)
    if isinstance(message, JSONRPCNotification):
        # The SDK ignores an `id` it does not accept ("id": null, 1.5, true) and runs the request as a
        # notification. Notifications are rare and small, so reading the line again costs nothing.
        value = _loads(line)
        if isinstance(value, dict) and "id" in value:
            return Rejection(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    return message


def diagnose(line: str) -> Rejection:
    """The answer to a line the SDK's parser rejected: read it leniently and say what is wrong."""
    try:
        value = _loads(line)
    except RecursionError:
        return Rejection(PARSE_ERROR, "Parse error: nested too deeply to read")
    except ValueError:
        return Rejection(PARSE_ERROR, "Parse error: not valid JSON")
    if isinstance(value, list):
        return Rejection(INVALID_REQUEST, "Invalid Request: batches are not supported; send one object per line")
    if not isinstance(value, dict):
        return Rejection(INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
    method = value.get("method")
    is_response = "method" not in value and ("result" in value or "error" in value)
    if is_response:  # a client's malformed answer to one of our requests: nothing to reply to
        return Rejection(INVALID_REQUEST, "malformed response", answer=False)
    if "id" not in value:
        if isinstance(method, str):  # a notification: JSON-RPC forbids answering it
            return Rejection(INVALID_REQUEST, "malformed notification", answer=False)
        return Rejection(INVALID_REQUEST, "Invalid Request: method must be a string")
    request_id = value["id"]
    if not _usable_id(request_id):
        return Rejection(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    if value.get("jsonrpc") != "2.0":
        return Rejection(INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"', request_id)
    if not isinstance(method, str) or _unreadable(method, 0) is not None:
        return Rejection(INVALID_REQUEST, "Invalid Request: method must be a string of Unicode text", request_id)
    known = method in SPEC_CLIENT_METHODS
    params = value.get("params")
    if params is not None and not isinstance(params, dict):
        if not known:
            return Rejection(METHOD_NOT_FOUND, "Method not found", request_id)
        return Rejection(INVALID_PARAMS, "Invalid params: params must be an object", request_id)
    problem = _unreadable(params, 1)
    if problem is not None:
        return Rejection(INVALID_PARAMS if known else INVALID_REQUEST, f"Invalid params: {problem}", request_id)
    problem = _unreadable(value, 0)
    return Rejection(INVALID_REQUEST, f"Invalid Request: {problem or 'not a valid JSON-RPC request'}", request_id)


def _loads(line: str) -> Any:
    return json.loads(line)  # NaN and Infinity included, as the SDK's parser reads them


def _usable_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and _readable_text(value))


def _readable_text(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no Unicode text, and no UTF-8 to answer with
        return False
    return True


def _unreadable(value: Any, depth: int) -> str | None:
    """What in `value` (at nesting `depth`, the message itself at 0) the SDK cannot read: too deep, or
    not Unicode."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str):
            if not _readable_text(item):
                return "a string holds a lone surrogate, which is not Unicode text"
        elif isinstance(item, dict | list):
            if level > MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels"
            if isinstance(item, dict):
                stack.extend((key, level) for key in item)
                stack.extend((child, level + 1) for child in item.values())
            else:
                stack.extend((child, level + 1) for child in item)
    return None


class ResponseStream(Protocol):
    async def send(self, item: SessionMessage, /) -> None: ...


class _UnownedText(io.TextIOWrapper):
    """Closing (or collecting) it never closes the wire's buffer, which is not ours to close."""

    def close(self) -> None:
        with suppress(ValueError):
            self.detach()


class CheckedLines(anyio.AsyncFile[str]):
    """The stdin the SDK's `stdio_server` reads: only lines it can read reach it; the rest are answered.
    At EOF, or when told to stop reading, it ends only once every request it passed on has been answered
    (runs/mcp/answers.py). Lines are read on a daemon thread (runs/mcp/stdin_reader.py)."""

    def __init__(self, wire: BinaryIO) -> None:
        # The same text layer the SDK puts on stdin, so a good line reaches it unchanged.
        super().__init__(_UnownedText(wire, encoding="utf-8", errors="replace"))
        self._lines = StdinLines(self.wrapped)
        self._responses: ResponseStream | None = None
        self._attached = anyio.Event()
        self._open = OpenRequests()
        self._at_end: list[Callable[[], None]] = []

    def when_reading_ends(self, callback: Callable[[], None]) -> None:
        """Run `callback` when reading ends (EOF or a stop), before the requests in flight are waited for:
        what would keep a request open for ever (a subscriptions/listen stream) closes there."""
        self._at_end.append(callback)

    def stop_reading(self) -> None:
        """Take no further request: the server ends once those already read are answered."""
        self._lines.stop()

    def answer_through(self, responses: WriteSide) -> AnsweringWrites:
        """Rejections are written through `responses`, the write stream `stdio_server` yields; the SDK
        must be served with the stream returned, which notes the answers EOF waits for."""
        self._responses = responses  # a rejection answers no request the SDK was given
        self._attached.set()
        return AnsweringWrites(responses, self._open)

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._lines:
            try:
                checked = read_line(line)
            except Exception:  # never take the transport down: the SDK gets the line as before
                logger.exception("could not check an incoming line; passing it on")
                yield line
                continue
            if not isinstance(checked, Rejection):
                self._open.received(checked)
                yield line
                continue
            if not checked.answer:
                if checked.message != "blank line":
                    logger.warning("ignored an incoming message (%s)", checked.message)
                continue
            logger.warning("answered an unreadable request with %d: %s", checked.code, checked.message)
            await self._answer(checked)
        for callback in self._at_end:
            try:
                callback()
            except Exception:
                logger.exception("could not close what was open when reading ended")
        await self._open.all_answered()  # EOF (or a stop): the SDK would cancel the requests in flight

    async def _answer(self, rejection: Rejection) -> None:
        if self._responses is None:
            await self._attached.wait()
        assert self._responses is not None
        try:
            await self._responses.send(rejection.response())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.debug("the write stream is closed; the rejection is not sent")


@contextmanager
def wire_stdin() -> Iterator[BinaryIO]:
    """fd 0's byte stream, claimed the way the SDK claims it when it opens stdin itself: served from a
    private duplicate while fd 0 points at the null device, so neither our code nor a child process
    can read (and steal) the client's bytes; fd 0 is restored on exit. Where that cannot be done, the
    buffer of sys.stdin is served in place."""
    stdin = sys.stdin
    try:
        if sys.platform == "win32" or stdin.buffer.fileno() != 0:
            raise OSError("stdin is not fd 0")
        import fcntl

        wire_fd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except (AttributeError, OSError, ValueError):
        yield stdin.buffer
        return
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
    except OSError:
        os.close(wire_fd)
        yield stdin.buffer
        return
    try:
        # closefd=False, as in the SDK: a worker thread may still block reading it after we return.
        yield os.fdopen(wire_fd, "rb", closefd=False)
    finally:
        with suppress(OSError):
            os.dup2(wire_fd, 0)
