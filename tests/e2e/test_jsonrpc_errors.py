"""End to end: lines the SDK cannot parse are answered with JSON-RPC errors, and the server lives on.

A raw client writes to `manage.py mcp`'s stdin and reads its stdout (as in test_mcp_stdio.py's raw
test). Each bad line is followed by a probe with its own id (a `ping` after the initialize handshake;
on the 2026-07-28 protocol, which has no ping, a `tools/list` carrying the per-request envelope): the
bad line gets exactly the error it deserves (or nothing, for a notification or a response), the
probe is still answered, and every stdout line is a JSON-RPC message. A read waits at most HANG_AFTER
seconds: a dropped request is never answered, and the wait turns that into a failure instead of a hung
suite (how fast answers come is bench/'s business, not these tests'). Both protocol eras run every case;
on the 2026-07-28 one the very first line is a bad one, so it is answered before the connection's era is
even decided.
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.processes import server_env
from harness.stdio import INITIALIZED, initialize_message, spawn_mcp

HANG_AFTER = 30.0  # seconds without an answer: a dropped request, not a slow one
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


LEGACY, MODERN = "2025-11-25", "2026-07-28"
ENVELOPE = {  # what every 2026-07-28 request carries in params._meta instead of a handshake
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "raw-errors", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def enveloped(era: str, params: dict[str, Any]) -> dict[str, Any]:
    """`params` as a request of `era` sends them: with the per-request envelope on 2026-07-28."""
    return {**params, "_meta": ENVELOPE} if era == MODERN else params


class RawServer:
    """`manage.py mcp` over pipes, with stdout read on a thread so that every wait is bounded."""

    def __init__(self, work: Path, era: str) -> None:
        self.era = era
        self.log = (work / "stderr.log").open("wb")
        self.process = spawn_mcp(server_env(work / "home"), work, self.log)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.pings = itertools.count(1)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message).encode() + b"\n")

    def next_message(self, timeout: float) -> dict[str, Any]:
        raw = self.lines.get(timeout=timeout)
        message = json.loads(raw.decode("utf-8"))  # one JSON-RPC message per line, nothing else
        assert raw.endswith(b"\n") and raw.count(b"\n") == 1
        assert isinstance(message, dict) and message["jsonrpc"] == "2.0", message
        assert "id" in message and (("result" in message) != ("error" in message)), message
        return message

    def handshake(self) -> None:
        """The initialize handshake; the 2026-07-28 era has none (its first request decides the era)."""
        if self.era == MODERN:
            return
        self.send(initialize_message(request_id="init", client="raw-errors"))
        assert self.next_message(timeout=60)["id"] == "init"
        self.send(INITIALIZED)

    def exchange(self, line: bytes, wanted_ids: Iterable[Any] = (), within: float = HANG_AFTER) -> list[dict[str, Any]]:
        """Sends `line` then a probe; returns every message up to the probe's answer (and the answers to
        `wanted_ids`, which the SDK may send after it), failing the test when one never comes."""
        ping_id = f"ping-{next(self.pings)}"
        self.write(line + b"\n")
        if self.era == MODERN:
            self.send({"jsonrpc": "2.0", "id": ping_id, "method": "tools/list", "params": enveloped(MODERN, {})})
        else:
            self.send({"jsonrpc": "2.0", "id": ping_id, "method": "ping"})
        received: list[dict[str, Any]] = []
        waiting = {ping_id, *wanted_ids}
        while waiting:
            try:
                message = self.next_message(timeout=within)
            except queue.Empty:
                pytest.fail(f"no answer within {within}s to {line[:200]!r} (waiting for {waiting})")
            if message["id"] == ping_id:
                probed = message["result"] if self.era == LEGACY else message["result"]["tools"] and {}
                assert probed == {}, message
            else:
                received.append(message)
            waiting.discard(message["id"])
        return received

    def close(self) -> tuple[int, str]:
        assert self.process.stdin is not None
        self.process.stdin.close()
        # A clean exit, not a quick one (bench/stdio_shutdown.py measures how soon): a loaded machine took >30 s.
        code = self.process.wait(timeout=120)
        self.log.close()
        return code, Path(self.log.name).read_text(errors="replace")


@pytest.fixture(scope="module", params=[LEGACY, MODERN])
def server(request, tmp_path_factory):
    raw = RawServer(tmp_path_factory.mktemp("jsonrpc-errors"), request.param)
    raw.handshake()
    if raw.era == MODERN:  # before any request has decided the era: answered all the same
        (answer,) = raw.exchange(b"not json", within=60)  # the probe waits for the server's start-up
        assert (answer["id"], answer["error"]["code"]) == (None, PARSE_ERROR)
    yield raw
    code, stderr = raw.close()
    assert code == 0, stderr
    assert raw.lines.empty()  # nothing stray after the last answer


def request(**fields: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **fields}).encode()


DEEP = b"[" * 300 + b"]" * 300
ABYSS = b"[" * 100_000 + b"]" * 100_000  # deeper than Python's own json module reads

# (line, the errors it must get as (id, code); an empty list means no answer is due)
CASES: dict[str, tuple[bytes, list[tuple[Any, int]]]] = {
    "not json": (b"not json", [(None, PARSE_ERROR)]),
    "truncated object": (b'{"jsonrpc": "2.0", "id": 1, "method": "pi', [(None, PARSE_ERROR)]),
    "invalid utf-8 bytes": (b"\xff\xfe\x80{", [(None, PARSE_ERROR)]),
    "nested too deep to read": (ABYSS, [(None, PARSE_ERROR)]),
    "lone surrogate in params": (
        b'{"jsonrpc": "2.0", "id": 11, "method": "ping", "params": {"x": "\\ud800"}}',
        [(11, INVALID_PARAMS)],
    ),
    "lone surrogate in tool arguments": (
        b'{"jsonrpc": "2.0", "id": 12, "method": "tools/call",'
        b' "params": {"name": "list_workflows", "arguments": {"kind": "\\udc00"}}}',
        [(12, INVALID_PARAMS)],
    ),
    "lone surrogate in the id": (b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}', [(None, INVALID_REQUEST)]),
    "lone surrogate in the method": (b'{"jsonrpc": "2.0", "id": 13, "method": "p\\ud800"}', [(13, INVALID_REQUEST)]),
    "nesting past 200 levels": (
        b'{"jsonrpc": "2.0", "id": "deep", "method": "tools/call", "params": {"name": "list_workflows",'
        b' "arguments": {"kind": ' + DEEP + b"}}}",
        [("deep", INVALID_PARAMS)],
    ),
    "params is an array": (request(id=21, method="tools/call", params=[1, 2]), [(21, INVALID_PARAMS)]),
    "params is a string": (request(id=22, method="tools/list", params="all"), [(22, INVALID_PARAMS)]),
    "params is an array, unknown method": (request(id=23, method="no/such", params=[]), [(23, METHOD_NOT_FOUND)]),
    "a number": (b"42", [(None, INVALID_REQUEST)]),
    "a string": (b'"ping"', [(None, INVALID_REQUEST)]),
    "null": (b"null", [(None, INVALID_REQUEST)]),
    "a batch": (b"[" + request(id=31, method="ping") + b"]", [(None, INVALID_REQUEST)]),
    "an empty batch": (b"[]", [(None, INVALID_REQUEST)]),
    "an empty object": (b"{}", [(None, INVALID_REQUEST)]),
    "method is a number": (request(id=41, method=5), [(41, INVALID_REQUEST)]),
    "method is missing": (request(id="m"), [("m", INVALID_REQUEST)]),
    "wrong jsonrpc version": (
        json.dumps({"jsonrpc": "1.0", "id": 42, "method": "ping"}).encode(),
        [(42, INVALID_REQUEST)],
    ),
    "no jsonrpc member": (json.dumps({"id": 43, "method": "ping"}).encode(), [(43, INVALID_REQUEST)]),
    "id is null": (request(id=None, method="ping"), [(None, INVALID_REQUEST)]),
    "id is a fraction": (request(id=1.5, method="ping"), [(None, INVALID_REQUEST)]),
    "id is a boolean": (request(id=True, method="ping"), [(None, INVALID_REQUEST)]),
    "id is an object": (request(id={"a": 1}, method="ping", params=[]), [(None, INVALID_REQUEST)]),
    "no id and method is not a string": (request(method=1, params="bar"), [(None, INVALID_REQUEST)]),
    # Notifications and responses are never answered, however malformed; the server just goes on.
    "notification with params an array": (request(method="notifications/cancelled", params=[1]), []),
    "notification with a lone surrogate": (
        b'{"jsonrpc": "2.0", "method": "notifications/x", "params": {"a": "\\udfff"}}',
        [],
    ),
    "notification nested too deep": (
        b'{"jsonrpc": "2.0", "method": "notifications/x", "params": {"a": ' + DEEP + b"}}",
        [],
    ),
    "malformed response": (request(id=99, result=[1]), []),
    "blank line": (b"   ", []),
}
# Requests the SDK reads still get its own answers, exactly once (with the envelope on 2026-07-28).
SDK_CASES: dict[str, tuple[int, str, dict[str, Any], int]] = {
    "unknown method": (51, "no/such", {}, METHOD_NOT_FOUND),
    "wrong tool name type": (52, "tools/call", {"name": 5}, INVALID_PARAMS),
}


def case(era: str, name: str) -> tuple[bytes, list[tuple[Any, int]]]:
    if name in CASES:
        return CASES[name]
    request_id, method, params, code = SDK_CASES[name]
    return request(id=request_id, method=method, params=enveloped(era, params)), [(request_id, code)]


@pytest.mark.parametrize("name", [*CASES, *SDK_CASES])
def test_each_unreadable_line_gets_its_answer_and_the_server_goes_on(server, name):
    line, expected = case(server.era, name)
    wanted = {request_id for request_id, _ in expected if request_id is not None}
    received = server.exchange(line, wanted)
    assert [(message["id"], message.get("error", {}).get("code")) for message in received] == expected, received
    for message in received:
        assert isinstance(message["error"]["message"], str) and message["error"]["message"]


def test_a_request_nested_199_levels_is_served(server):
    arguments = b'{"kind": ' + b"[" * 195 + b"]" * 195 + b"}"
    meta = b', "_meta": ' + json.dumps(ENVELOPE).encode() if server.era == MODERN else b""
    line = (
        b'{"jsonrpc": "2.0", "id": "d199", "method": "tools/call", "params": {"name": "list_workflows",'
        b' "arguments": ' + arguments + meta + b"}}"
    )
    (answer,) = server.exchange(line, {"d199"})
    assert answer["id"] == "d199"
    assert answer["result"]["isError"] is True  # our own argument check answers, not a dropped line
    assert answer["result"]["structuredContent"]["error"]["code"] == "INVALID_INPUT"


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters() | st.integers(0xD800, 0xDFFF).map(chr), max_size=8),  # lone surrogates too
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)
request_ids = st.integers() | st.text(max_size=6).filter(lambda text: not text.startswith("ping-")) | json_values
methods = st.sampled_from(["ping", "tools/call", "tools/list", "prompts/get", "resources/read", "no/such"]) | st.text(
    max_size=8
)


def _usable(request_id: Any) -> bool:
    if isinstance(request_id, bool):
        return False
    if isinstance(request_id, str):
        return request_id.encode("utf-8", "surrogatepass").decode("utf-8", "replace") == request_id
    return isinstance(request_id, int)


FUZZ = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(value=json_values)
def test_any_json_value_leaves_the_server_answering(server, value):
    server.exchange(json.dumps(value).encode())  # whatever comes back is JSON-RPC; the ping is answered


@FUZZ
@given(data=st.binary(max_size=64))
def test_any_bytes_leave_the_server_answering(server, data):
    server.exchange(data.replace(b"\n", b" "))


@FUZZ
@given(request_id=request_ids, method=methods, params=st.none() | json_values, extra=json_values)
def test_every_request_with_a_usable_id_is_answered_once(server, request_id, method, params, extra):
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params, "x": extra}
    usable = _usable(request_id)
    received = server.exchange(json.dumps(message).encode(), {request_id} if usable else set())
    if usable:
        assert [answer["id"] for answer in received] == [request_id], received
    else:
        assert all(answer["id"] is None for answer in received), received
