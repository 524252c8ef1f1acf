"""What the stdio server waits for before it lets EOF reach the SDK (runs/mcp/answers.py)."""

from __future__ import annotations

import os

import anyio
import pytest
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from runs.mcp.answers import AnsweringWrites, OpenRequests
from runs.mcp.stdin_reader import StdinLines


def request(request_id: int | str) -> JSONRPCRequest:
    return JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call", params={"name": "x"})


def result(request_id: int | str) -> JSONRPCResponse:
    return JSONRPCResponse(jsonrpc="2.0", id=request_id, result={})


def cancelled(request_id: object) -> JSONRPCNotification:
    return JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params={"requestId": request_id})


def test_a_request_is_open_until_answered_by_a_result_or_an_error():
    requests = OpenRequests()
    requests.received(request(1))
    requests.received(request("b"))
    requests.received(JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized"))
    assert requests.unanswered() == [1, "b"]
    requests.answered(result(1))
    requests.answered(JSONRPCError(jsonrpc="2.0", id="b", error=ErrorData(code=-32601, message="no")))
    assert requests.unanswered() == []


def test_an_id_sent_twice_is_waited_for_twice_and_stray_answers_change_nothing():
    requests = OpenRequests()
    requests.received(request(7))
    requests.received(request(7))
    requests.answered(result(8))  # an answer to nothing read (a rejected line's, say)
    requests.answered(JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=-32700, message="parse")))
    requests.answered(result(7))
    assert requests.unanswered() == [7]
    requests.answered(result("7"))  # the SDK correlates "7" with 7
    requests.answered(result(7))
    assert requests.unanswered() == []


@pytest.mark.parametrize("request_id", [3, "3"])
def test_a_request_the_client_cancelled_is_not_waited_for(request_id):
    # The SDK never answers a cancelled request: waiting for it would hold the exit for DRAIN_LIMIT_S.
    requests = OpenRequests()
    requests.received(request(3))
    requests.received(cancelled(True))  # not an id: ignored
    assert requests.unanswered() == [3]
    requests.received(cancelled(request_id))
    assert requests.unanswered() == []


def test_all_answered_returns_when_the_last_answer_is_written():
    requests = OpenRequests()
    requests.received(request(1))
    requests.received(request(2))
    order: list[str] = []

    async def main() -> None:
        async def answer_later() -> None:
            for request_id in (1, 2):
                await anyio.sleep(0)
                order.append(f"answer {request_id}")
                requests.answered(result(request_id))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(answer_later)
            await requests.all_answered()
            order.append("EOF")

    anyio.run(main)
    assert order == ["answer 1", "answer 2", "EOF"]


def test_a_broken_write_side_or_the_limit_ends_the_wait(caplog):
    requests = OpenRequests()
    requests.received(request(1))
    anyio.run(requests.all_answered, 0.01)  # given up: the call is stuck
    assert "gave up waiting for the answers to requests [1]" in caplog.text
    requests.write_side_gone()  # stdout is gone: nothing more can be answered
    assert requests.unanswered() == []
    anyio.run(requests.all_answered)


def test_answering_writes_notes_each_answer_it_carries_and_a_closed_stream():
    requests = OpenRequests()
    requests.received(request(1))
    requests.received(request(2))

    async def main() -> list[SessionMessage]:
        send, receive = anyio.create_memory_object_stream[SessionMessage](10)
        writes = AnsweringWrites(send, requests)
        await writes.send(SessionMessage(result(1)))
        assert requests.unanswered() == [2]
        async with writes:
            pass  # closes the SDK's stream
        with pytest.raises(anyio.ClosedResourceError):
            await writes.send(SessionMessage(result(2)))
        assert requests.unanswered() == []
        with receive:
            return [receive.receive_nowait()]

    assert [message.message for message in anyio.run(main)] == [result(1)]


def test_stdin_lines_end_at_eof_or_at_once_when_stopped_while_stdin_stays_silent():
    # anyio's own file reading cannot abandon a read: a stop would wait for the client's next line.
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "r") as wire, os.fdopen(write_fd, "w") as client:
        client.write("one\ntwo\n")
        client.flush()
        lines = StdinLines(wire)
        seen: list[str] = []

        async def main() -> None:
            async def read() -> None:
                async for line in lines:
                    seen.append(line)

            with anyio.fail_after(30):  # a hang guard only
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(read)
                    while len(seen) < 2:
                        await anyio.sleep(0.01)
                    lines.stop()  # the client is still there, silent

        anyio.run(main)
        assert seen == ["one\n", "two\n"]

    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "r") as wire:
        with os.fdopen(write_fd, "w") as client:
            client.write("last\n")

        async def until_eof() -> list[str]:
            return [line async for line in StdinLines(wire)]

        assert anyio.run(until_eof) == ["last\n"]
