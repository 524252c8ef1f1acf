"""The real dashboard (`manage.py dashboard`, waitress) stops a PDF's renderer when nobody waits for it:
when the client disconnects, and when the dashboard gets SIGTERM mid-render (issue 18: it used to keep
rendering, and SIGTERM waited for the render).

A PDF is laid out by a child of multiprocessing's fork server, itself a child of the dashboard: the
renderer is the dashboard's grandchild, found through /proc by the fork server's command line.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.plugins.store_template import seed_home
from tests.support.processes import gone, run_manage, running_dashboard

pytestmark = [
    pytest.mark.pdf,
    pytest.mark.subprocess,  # the dashboard and a command, as processes
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the renderer through /proc"),
]

# Three steps and three checkpoints of prose: about 330,000 characters, several seconds of layout (under
# the PDF's text budget, so it is laid out, not refused).
BUILD_SLOW_SESSION = """
from tests.support.mcp_calls import checkpoint_workflow, continue_workflow, start_workflow
prose = ("lorem ipsum dolor sit amet " * 400 + "\\n\\n") * 5
answer = start_workflow("wr.routine-focused_plan", context={"sessionKey": "SLOW-PDF"})
session_id = answer["session"]["sessionId"]
while not answer.get("isComplete"):
    saved = checkpoint_workflow(stateToken=answer["stateToken"], output={"notesMarkdown": prose})
    answer = continue_workflow(stateToken=saved["stateToken"], ackToken=saved["ackToken"],
                               output={"notesMarkdown": prose})
print(session_id)
"""


FORK_SERVER = "multiprocessing.forkserver"


def parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(") ", 1)[1].split()[1])
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return None


def command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read().replace(b"\0", b" ").decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):  # the process ended between listing and reading
        return ""


def renderers(pid: int) -> set[int]:
    """The processes the fork server started for `pid`: they keep its command line (forked, not run).
    Other grandchildren (a compiler ctypes runs to find a library, say) are not renderers."""
    pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    forked = {other for other in pids if FORK_SERVER in command_line(other)}
    servers = {child for child in forked if parent_of(child) == pid}
    return {grandchild for grandchild in forked if parent_of(grandchild) in servers}


def wait_for(condition: object, timeout: float, what: str) -> None:
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {timeout} s")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def slow_home(tmp_path_factory: pytest.TempPathFactory, migrated_store: Path) -> tuple[Path, str]:
    """A WORKRAIL_HOME (under the returned directory) holding a session whose PDF takes seconds, in a copy of
    an up-to-date store (tests/plugins/store_template.py)."""
    root = tmp_path_factory.mktemp("slow-pdf")
    seed_home(root / "home", migrated_store)
    built = run_manage(root, "shell", "-c", BUILD_SLOW_SESSION)
    assert built.returncode == 0, built.stderr
    return root, built.stdout.strip().splitlines()[-1]


@pytest.fixture
def dashboard(slow_home: tuple[Path, str]) -> Iterator[tuple[subprocess.Popen[str], int, str]]:
    root, session_id = slow_home
    with running_dashboard(root) as (process, port):
        yield process, port, session_id


def renderer_of(process: subprocess.Popen[str]) -> int:
    """The pid of the dashboard's PDF renderer, once it runs: a process that still looks like one a
    moment later (the fork server also forks to run a compiler while it loads WeasyPrint, for an instant
    before that child becomes the compiler)."""
    seen: set[int] = set()
    found: set[int] = set()

    def running() -> bool:
        now = renderers(process.pid)
        found.update(now & seen)
        seen.clear()
        seen.update(now)
        time.sleep(0.2)
        return bool(found)

    wait_for(running, 120, "a PDF renderer starting")
    return found.pop()


def test_sigterm_mid_render_stops_the_renderer_and_the_dashboard_at_once(dashboard):
    process, port, session_id = dashboard
    answers: list[object] = []

    def download() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            connection.request("GET", f"/sessions/{session_id}/report.pdf")
            answers.append(connection.getresponse().status)
        except (OSError, http.client.HTTPException) as exc:
            answers.append(exc)

    client = threading.Thread(target=download, daemon=True)
    client.start()
    renderer = renderer_of(process)

    process.send_signal(signal.SIGTERM)
    _out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "(shutdown): the process is shutting down" in err  # the renderer was stopped, not waited for
    assert "thread(s) still running" not in err  # waitress did not have to give up on a busy thread
    assert "Traceback" not in err
    wait_for(lambda: gone(renderer), 5, "the renderer ending")
    client.join(10)
    assert answers and answers[0] != 200


def test_a_client_that_leaves_mid_render_stops_its_renderer(dashboard):
    process, port, session_id = dashboard
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(f"GET /sessions/{session_id}/report.pdf HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        renderer = renderer_of(process)
    wait_for(lambda: gone(renderer), 30, "the renderer ending")
    assert process.poll() is None  # the dashboard serves on

    process.send_signal(signal.SIGTERM)
    _out, err = process.communicate(timeout=30)
    assert "(client): its client disconnected" in err, err
