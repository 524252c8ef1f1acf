"""The write queue: SQLite write transactions take their turn in the order they asked, across processes.

Why: several `manage.py mcp` processes (and the dashboard) write to one SQLite file. SQLite lets one
writer in at a time; the others wait in its busy handler, which sleeps with growing back-off (1, 2,
5, ... up to 100 ms a sleep) and tries again. A writer that has waited a while sleeps 100 ms at a
time, and whoever happens to ask during the gaps gets the lock first: with 8 processes some writers
waited 1-2 s (p99) while the store was never idle.

How: before `BEGIN IMMEDIATE`, a connection takes an exclusive `flock` on a file beside the database
(`<database>.write-lock`, created 0600 like the database's other files) and lets go of it right after
COMMIT or ROLLBACK. A waiter blocks in the kernel, which wakes it as soon as the lock is let go: no
sleeping in back-off, so SQLite's lock passes from one writer to the next without gaps or starvation.
The lock is only advisory, for fairness: SQLite's own lock still does the excluding, so a writer
that does not queue (another tool, a write outside a transaction) is still safe, it merely waits as
before. Letting go of the queue early (say a COMMIT that failed and is rolled back next) is safe too.

What takes it: the outermost transaction only (Django's `atomic()` begins one in
`_start_transaction_under_autocommit`; nested blocks are savepoints inside it, and taking the queue
twice is a no-op), and only when BEGIN takes SQLite's write lock up front (transaction_mode IMMEDIATE
or EXCLUSIVE, as settings set it): with DEFERRED a transaction may only read, and readers must not
queue. Never for an in-memory database (the tests' store) or a `file:` URI name, and not where there
is no fcntl (Windows). It is let go after COMMIT and ROLLBACK whether they succeed or raise, when
BEGIN raises, and when the connection is closed; a process that dies holding it loses it with its
file descriptors (flock), so a killed server never blocks the others.

Time-out: a writer waits at most the busy timeout (the OPTIONS "timeout", 20 s in settings) for its
turn, and then fails the way SQLite fails when its lock stays taken, with OperationalError("database
is locked"), which the services turn into STORE_BUSY. flock itself cannot time out (only a signal
interrupts it, and signal handlers run only on the main thread while the MCP server queries from
worker threads), and polling it with LOCK_NB would bring the back-off back. So: a first try with
LOCK_NB (the lock is free: no thread, two syscalls), and otherwise a short-lived helper thread blocks
in flock while the writer waits on an Event with the time-out. The helper owns its own descriptor of
the lock file; a writer that gave up leaves it behind, and the helper lets go of the lock as soon as
it gets it. The wait plus BEGIN can exceed the busy timeout only when a writer that does not queue
holds SQLite's lock after our turn came.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from workrail_site.storage import create_private_file

try:
    import fcntl
except ImportError:  # Windows: no flock, no queue
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = ".write-lock"


class QueueTimeout(Exception):
    """The writer's turn did not come within the time-out."""


class WriteQueue:
    """One connection's place in the write queue of the database at `database` (a file path)."""

    def __init__(self, database: str, timeout: float) -> None:
        self.path = database + LOCK_SUFFIX
        self.timeout = timeout
        self._descriptor: int | None = None  # open, and holding the lock, while it is our turn

    @property
    def held(self) -> bool:
        return self._descriptor is not None

    def acquire(self) -> None:
        """Waits for our turn (at most `timeout` seconds, else QueueTimeout); a no-op when it is ours already."""
        if self._descriptor is not None or fcntl is None:
            return
        descriptor = _open(self.path)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # taken: wait below
        except BaseException:
            os.close(descriptor)
            raise
        else:
            self._descriptor = descriptor
            return
        self._descriptor = _wait(descriptor, self.timeout)

    def release(self) -> None:
        """Lets the next writer in (closing the descriptor lets go of the lock); a no-op when not ours."""
        descriptor, self._descriptor = self._descriptor, None
        if descriptor is not None:
            os.close(descriptor)


def create_lock_file(database: str) -> None:
    """Creates the lock file beside `database` 0600 when missing (see workrail_site.storage)."""
    create_private_file(Path(database + LOCK_SUFFIX))


def _open(path: str) -> int:
    # Read-only is enough for flock; O_CREAT in case it went away since the connection made it.
    return os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)


def _wait(descriptor: int, timeout: float) -> int:
    """Blocks in flock on `descriptor` in a helper thread, at most `timeout` seconds. Returns the
    descriptor, holding the lock; or raises QueueTimeout (or flock's error), the helper then owning
    the descriptor and closing it once flock returns."""
    assert fcntl is not None
    granted = threading.Event()
    guard = threading.Lock()
    outcome: dict[str, object] = {}

    def block() -> None:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError as exc:
            outcome["error"] = exc
        with guard:
            if outcome.get("abandoned"):
                os.close(descriptor)  # the writer gave up: let the next one in at once
                return
            granted.set()

    threading.Thread(target=block, name="workrail-write-queue", daemon=True).start()
    try:
        granted.wait(timeout)
    except BaseException:  # interrupted (KeyboardInterrupt on the main thread): give up our place
        with guard:
            if granted.is_set():
                os.close(descriptor)
            else:
                outcome["abandoned"] = True
        raise
    with guard:
        if not granted.is_set():
            outcome["abandoned"] = True
            raise QueueTimeout(f"no turn to write within {timeout:g} s")
    error = outcome.get("error")
    if isinstance(error, OSError):
        os.close(descriptor)
        raise error
    return descriptor
