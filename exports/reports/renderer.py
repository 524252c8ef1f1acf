"""PDFs made in a child process, so that a request's PDF is bounded and can be stopped.

WeasyPrint runs in Python in the thread that asked: a thread cannot be stopped from outside, and its
memory stays with the dashboard. So each PDF is laid out by a child process (pdf_child.py), which the
thread waiting for it kills when any of these comes first (the report's Watch, limits.py):

* the report's deadline (settings.WORKRAIL_REPORT_SECONDS) passes: Refused("deadline");
* the child runs out of its address space (settings.WORKRAIL_REPORT_PDF_MAX_MB): Refused("memory");
* nobody waits any more (the dashboard's client disconnected): Stopped("client");
* the process is shutting down (stop_all(), from the dashboard's signal handler): Stopped("shutdown").

Children come from multiprocessing's fork server where there is one (Linux, macOS): it is started once,
has WeasyPrint loaded, and forks a renderer in milliseconds. Elsewhere they are spawned (about half a
second more per PDF). Either way the child imports the program's main module again, as multiprocessing
does: a script that makes PDFs needs the `if __name__ == "__main__":` guard (manage.py, pytest and the
bench scripts have it).
"""

from __future__ import annotations

import math
import multiprocessing
import signal
import struct
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from exports.reports import pdf_child
from exports.reports.limits import SHUTTING_DOWN, Refused, Stopped, Watch
from workrail_site import shutdown

CHILD_MODULE = "exports.reports.pdf_child"
_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
# Typed Any: typeshed's BaseContext has no Process (each concrete context has its own).
_CONTEXT: Any = multiprocessing.get_context(_METHOD)
if _METHOD == "forkserver":
    _CONTEXT.set_forkserver_preload([*pdf_child.PRELOAD, CHILD_MODULE])

POLL_SECONDS = 0.1  # how often the waiting thread looks at the clock, the client and the shutdown flag
MAX_PDF_BYTES = 512 * 1024 * 1024  # far past any PDF the budget lets through; a larger answer is refused
# The child's CPU-time cap is this much past the deadline (and never more than MAX_CPU_SECONDS): only
# reached if its parent never stops it.
CPU_GRACE_SECONDS = 5
MAX_CPU_SECONDS = 3600

_live: set[BaseProcess] = set()
_live_lock = threading.Lock()


@dataclass(frozen=True)
class Rendered:
    pdf: bytes
    seconds: float  # from asking for a child to its answer
    peak_bytes: int  # the child's peak resident memory


class RendererFailed(RuntimeError):
    """WeasyPrint raised something other than MemoryError in the child: a bug, with the child's message."""


def render(html: str, stylesheets: list[str], *, watch: Watch, memory_mb: int) -> Rendered:
    """The PDF of `html` with `stylesheets` (CSS texts), laid out in a child process within what is left
    of `watch`'s time and `memory_mb` of address space. Raises Refused or Stopped (limits.py), or
    RendererFailed; the child is gone (killed and reaped) when this returns or raises."""
    watch.check()
    receiver: Connection
    sender: Connection
    receiver, sender = _CONTEXT.Pipe(duplex=False)
    cpu_seconds = math.ceil(min(watch.remaining(), MAX_CPU_SECONDS)) + CPU_GRACE_SECONDS
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
        pdf, peak = _answer(_wait(receiver, watch), child)
        return Rendered(pdf, time.monotonic() - started, peak)
    finally:
        _end(child)
        receiver.close()


def _wait(receiver: Connection, watch: Watch) -> bytes | None:
    """The child's message, or None if it ended without one."""
    while True:
        if receiver.poll(POLL_SECONDS):
            try:
                return receiver.recv_bytes(MAX_PDF_BYTES)
            except EOFError:
                return None
            except OSError as exc:  # longer than MAX_PDF_BYTES
                raise Refused("memory", f"the PDF is larger than {MAX_PDF_BYTES // (1024 * 1024)} MB") from exc
        watch.check()


def _answer(message: bytes | None, child: BaseProcess) -> tuple[bytes, int]:
    """The PDF and the child's peak memory, from its message."""
    if message is None:
        if SHUTTING_DOWN.is_set():
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
        (peak,) = struct.unpack("!Q", body[:8])
        return body[8:], peak
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
    SHUTTING_DOWN.set()  # limits.py sets it too; here as well, for a caller other than workrail_site/shutdown.py
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
