"""End to end: `manage.py mcp` answers every request it read before stdin closed, then exits 0.

A client may pipe its requests and close stdin at once (`printf ... | manage.py mcp`). The SDK's
serving loop cancels the requests in flight at EOF; our tools run on worker threads and finished
anyway, so a start_workflow committed its session and its answer was dropped (runs/mcp/answers.py).
Here every request line is written in one go and stdin is closed straight after: each request must
get exactly one answer with its id, and every session created must have been announced to the client.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.processes import manage_command, server_env
from harness.stdio import INITIALIZED, initialize_message, spawn_mcp
from harness.stores import SharedStore, shared_store

EXIT_WITHIN = 90.0  # seconds; only a hang guard (start-up migrates a new store before the server exits)

HANDSHAKE: list[dict[str, Any]] = [
    initialize_message(client="pipe"),
    INITIALIZED,
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def start(request_id: int) -> dict[str, Any]:
    arguments = {"workflowId": "wr.evidence_first_bug_fix", "context": {"ticketId": f"PIPE-{request_id}"}}
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "start_workflow", "arguments": arguments},
    }


def pipe_and_close(work: Path, store: SharedStore, messages: list[Any]) -> tuple[int, list[dict[str, Any]], str]:
    """Writes every message, closes stdin, waits for the exit: (exit code, stdout messages, stderr)."""
    data = "".join(json.dumps(message) + "\n" for message in messages).encode()
    finished = subprocess.run(
        manage_command("mcp"),
        input=data,  # written in one go, then stdin is closed
        capture_output=True,
        cwd=work,
        env=server_env(store.home, **store.env),
        timeout=EXIT_WITHIN,
    )
    stderr = finished.stderr.decode(errors="replace")
    answers = [json.loads(line) for line in finished.stdout.decode().splitlines()]
    return finished.returncode, answers, stderr


def request_ids(messages: list[dict[str, Any]]) -> list[Any]:
    return [message["id"] for message in messages if "id" in message]


@pytest.mark.parametrize("starts", [1, 5])
def test_pipelined_requests_are_all_answered_before_the_exit(tmp_path, starts):
    messages = [*HANDSHAKE, *(start(10 + n) for n in range(starts))]
    with shared_store(tmp_path / "home") as store:
        returncode, answers, stderr = pipe_and_close(tmp_path, store, messages)
        sessions = store.rows("SELECT count(*) FROM runs_session")[0][0]

    assert returncode == 0, stderr[-3000:]
    assert sorted(request_ids(answers)) == sorted(request_ids(messages)), stderr[-3000:]
    by_id = {answer["id"]: answer for answer in answers}
    assert by_id[2]["result"]["tools"]
    started = [by_id[10 + n]["result"] for n in range(starts)]
    assert [result["isError"] for result in started] == [False] * starts
    assert len({result["structuredContent"]["stateToken"] for result in started}) == starts
    assert sessions == len(started)  # no session the client was not told about


def test_failing_and_unreadable_requests_are_answered_before_the_exit(tmp_path):
    unknown_tool = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}
    bad_start = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {"name": "start_workflow", "arguments": {"workflowId": "no.such_workflow"}},
    }
    unknown_method = {"jsonrpc": "2.0", "id": 5, "method": "no/such_method"}
    unreadable = {"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": [1]}
    messages = [*HANDSHAKE, unknown_tool, bad_start, unknown_method, unreadable]
    with shared_store(tmp_path / "home") as store:
        returncode, answers, stderr = pipe_and_close(tmp_path, store, messages)

    assert returncode == 0, stderr[-3000:]
    assert sorted(request_ids(answers)) == [1, 2, 3, 4, 5, 6], stderr[-3000:]
    by_id = {answer["id"]: answer for answer in answers}
    assert by_id[3]["result"]["isError"] is True
    assert by_id[4]["result"]["structuredContent"]["error"]["code"] == "WORKFLOW_NOT_FOUND"
    assert by_id[5]["error"]["code"] == -32601
    assert by_id[6]["error"]["code"] == -32602


@pytest.mark.parametrize(
    "messages",
    [[], [INITIALIZED]],
    ids=["nothing", "notifications-only"],
)
def test_stdin_closed_with_nothing_to_answer_ends_the_server(tmp_path, messages):
    with shared_store(tmp_path / "home") as store:
        returncode, answers, stderr = pipe_and_close(tmp_path, store, messages)

    assert returncode == 0, stderr[-3000:]
    assert answers == []


class HeldOpen:
    """`manage.py mcp` whose stdin the test keeps open (a client that is still there); its stdout is
    read on a thread, as a client reads it, so a large answer never blocks the server's writes."""

    def __init__(self, work: Path, store: SharedStore) -> None:
        self.log = work / "stderr.log"
        with self.log.open("wb") as log:
            self.process = spawn_mcp(server_env(store.home, **store.env), work, log)
        self.answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)

    def listen(self) -> None:
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(json.loads(line))
        self.answers.put(None)  # EOF: the server closed its stdout

    def send(self, *messages: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("".join(json.dumps(message) + "\n" for message in messages).encode())
        self.process.stdin.flush()

    def answer(self) -> dict[str, Any]:
        answer = self.answers.get(timeout=EXIT_WITHIN)
        assert answer is not None, self.stderr()
        return answer

    def rest(self) -> list[dict[str, Any]]:
        """The answers still to come, once the process has exited."""
        self.reader.join(timeout=EXIT_WITHIN)
        return [answer for answer in iter(self.answers.get_nowait, None)]

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def wait(self) -> int:
        try:
            return self.process.wait(timeout=EXIT_WITHIN)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            if self.process.stdin is not None:
                self.process.stdin.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_mid_request_stops_reading_and_answers_what_was_read(tmp_path, signum):
    with shared_store(tmp_path / "home") as store:
        server = HeldOpen(tmp_path, store)
        server.listen()
        server.send(HANDSHAKE[0])
        assert server.answer()["id"] == 1
        # The starts wait for the server's start-up (it migrates a new store); the ping is answered at
        # once, and lines are read in order: when it is answered, the starts have been read.
        server.send(*HANDSHAKE[1:], start(10), start(11), {"jsonrpc": "2.0", "id": 20, "method": "ping"})
        answers = [server.answer()]
        while answers[-1]["id"] != 20:
            answers.append(server.answer())
        server.process.send_signal(signum)
        returncode = server.wait()  # stdin is still open: the signal alone ends the server
        answers += server.rest()
        sessions = store.rows("SELECT count(*) FROM runs_session")[0][0]

    assert returncode == 0, server.stderr()
    assert sorted(request_ids(answers)) == [2, 10, 11, 20], server.stderr()
    assert sessions == 2
    assert "Traceback" not in server.stderr()


@pytest.mark.parametrize("stdin_open", [True, False], ids=["stdin-open", "stdin-closed"])
def test_stdout_closed_by_the_client_ends_the_server_quietly(tmp_path, stdin_open):
    with shared_store(tmp_path / "home") as store:
        server = HeldOpen(tmp_path, store)
        assert server.process.stdout is not None
        server.process.stdout.close()  # the client stops listening; the first answer meets EPIPE
        server.send(*HANDSHAKE, start(10))
        if not stdin_open:
            assert server.process.stdin is not None
            server.process.stdin.close()
        returncode = server.wait()

    assert returncode == 0, server.stderr()
    assert "Traceback" not in server.stderr()
