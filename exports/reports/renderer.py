"""PDFs made in a child process, so that a request's PDF is bounded and can be stopped.

WeasyPrint runs in Python in the thread that asked: a thread cannot be stopped from outside, and its
memory stays with the dashboard. So each PDF is laid out by a child process (pdf_child.py), which the
thread waiting for it kills when any of these comes first:

* the deadline (settings.WORKRAIL_REPORT_PDF_SECONDS) passes: Refused("deadline");
* the child runs out of its address space (settings.WORKRAIL_REPORT_PDF_MAX_MB): Refused("memory");
* `abandoned()` says nobody waits any more (the dashboard's client disconnected): Stopped("client");
* the process is shutting down (stop_all(), from the dashboard's SIGTERM handler): Stopped("shutdown").

Children come from multiprocessing's fork server where there is one (Linux, macOS): it is started once,
has WeasyPrint loaded, and forks a renderer in milliseconds. Elsewhere they are spawned (about half a
second more per PDF). Either way the child imports the program's main module again, as multiprocessing
does: a script that makes PDFs needs the `if __name__ == "__main__":` guard (manage.py, pytest and the
bench scripts have it).
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from exports.reports import pdf_child
from runs import shutdown

logger = logging.getLogger("workrail.reports")

CHILD_MODULE = "exports.reports.pdf_child"
_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
# Typed Any: typeshed's BaseContext has no Process (each concrete context has its own).
_CONTEXT: Any = multiprocessing.get_context(_METHOD)
if _METHOD == "forkserver":
    _CONTEXT.set_forkserver_preload([*pdf_child.PRELOAD, CHILD_MODULE])

POLL_SECONDS = 0.1  # how often the waiting thread looks at the clock, the client and the shutdown flag
MAX_PDF_BYTES = 512 * 1024 * 1024  # far past any PDF the budget lets through; a larger answer is refused
# The child's CPU-time cap is this much past the deadline: only reached if its parent never stops it.
CPU_GRACE_SECONDS = 5

_live: set[BaseProcess] = set()
_live_lock = threading.Lock()
_stopping = threading.Event()


class Refused(Exception):
    """The PDF would cost more than its bounds: reason is "deadline" or "memory"."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


class Stopped(Exception):
    """Nobody waits for the PDF any more: reason is "client" or "shutdown"."""

    def __init__(self, reason: str) -> None:
        super().__init__("its client disconnected" if reason == "client" else "the process is shutting down")
        self.reason = reason


class RendererFailed(RuntimeError):
    """WeasyPrint raised something other than MemoryError in the child: a bug, with the child's message."""


def _never() -> bool:
    return False


def render(
    html: str,
    stylesheets: list[str],
    *,
    seconds: float,
    memory_mb: int,
    abandoned: Callable[[], bool] = _never,
) -> bytes:
    """The PDF of `html` with `stylesheets` (CSS texts), laid out in a child process within `seconds`
    and `memory_mb` of address space. Raises Refused, Stopped or RendererFailed; the child is gone
    (killed and reaped) when this returns or raises."""
    if _stopping.is_set():
        raise Stopped("shutdown")
    receiver: Connection
    sender: Connection
    receiver, sender = _CONTEXT.Pipe(duplex=False)
    cpu_seconds = math.ceil(seconds) + CPU_GRACE_SECONDS
    child: BaseProcess = _CONTEXT.Process(
        target=pdf_child.main,
        args=(sender, html, stylesheets, memory_mb * 1024 * 1024, cpu_seconds),
        name="workrail-pdf",
        daemon=True,
    )
    started = time.monotonic()
    try:
        with _live_lock:
            _live.add(child)
        child.start()
        sender.close()  # ours: the child's end is its own now, so its exit reads as end of file here
        return _answer(_wait(receiver, started + seconds, seconds, abandoned), child)
    except (Refused, Stopped) as exc:
        logger.warning("A PDF renderer was stopped after %.1f s (%s): %s.", time.monotonic() - started, exc.reason, exc)
        raise
    finally:
        _end(child)
        receiver.close()


def _wait(receiver: Connection, deadline: float, seconds: float, abandoned: Callable[[], bool]) -> bytes | None:
    """The child's message, or None if it ended without one."""
    while True:
        if receiver.poll(POLL_SECONDS):
            try:
                return receiver.recv_bytes(MAX_PDF_BYTES)
            except EOFError:
                return None
            except OSError as exc:  # longer than MAX_PDF_BYTES
                raise Refused("memory", f"the PDF is larger than {MAX_PDF_BYTES // (1024 * 1024)} MB") from exc
        if _stopping.is_set():
            raise Stopped("shutdown")
        if abandoned():
            raise Stopped("client")
        if time.monotonic() > deadline:
            raise Refused("deadline", f"laying the PDF out took longer than {seconds:g} s")


def _answer(message: bytes | None, child: BaseProcess) -> bytes:
    if message is None:
        if _stopping.is_set():
            raise Stopped("shutdown")
        child.join(1)  # it has closed its end: it is exiting, and its exit code says how
        code = child.exitcode
        if code == -signal.SIGXCPU:
            raise Refused("deadline", "the renderer used up its CPU time")
        if code is not None and code < 0:
            # Killed by a signal: the kernel's out-of-memory killer, or a crash in C code whose allocation
            # failed under the memory cap.
            raise Refused("memory", f"the renderer was stopped by signal {-code} without an answer")
        raise RendererFailed(f"the renderer exited with code {code} without an answer (see the log above)")
    kind, body = message[:1], message[1:]
    if kind == pdf_child.PDF:
        return body
    if kind == pdf_child.OUT_OF_MEMORY:
        raise Refused("memory", body.decode("utf-8", "replace"))
    raise RendererFailed(body.decode("utf-8", "replace"))


def _end(child: BaseProcess) -> None:
    """Kills the child if it still runs, and reaps it (no zombie left behind)."""
    try:
        if child.is_alive():
            child.kill()
        child.join(5)
    except (AssertionError, ValueError):  # never started (start() failed): nothing to end
        pass
    finally:
        with _live_lock:
            _live.discard(child)


def stop_all() -> int:
    """Kills every renderer of this process, and refuses new ones from now on: for a server shutting
    down. Safe in a signal handler: no lock, no logging, no waiting (the threads that wait for the
    children reap them). Returns how many it signalled."""
    _stopping.set()
    signalled = 0
    for child in list(_live):
        try:
            child.kill()  # SIGKILL, unless the child was already reaped
        except (AttributeError, ValueError, OSError):  # not started yet, or closed
            continue
        signalled += 1
    return signalled


shutdown.on_stop(stop_all)


def live_renderers() -> list[int]:
    """Process ids of this process's renderers (for tests and the benchmark)."""
    return [child.pid for child in list(_live) if child.pid is not None]
