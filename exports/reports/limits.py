"""The bounds of one report: a deadline, whether anybody still waits for it, and whether the process is
shutting down. Every step of making a report checks its Watch (reading each run, formatting each step,
waiting for the PDF's child process), so work a request started ends soon after nobody needs it.

The in-process steps are checked between items (a run, a step): one item's work is bounded on its own
(runs/readmodels/markdown.py prices a note's slow paths, note_budget.py its tables), so a check comes at least
every half second or so. The PDF's layout, which is one long call into WeasyPrint, runs in a child
process that the waiting thread kills (renderer.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator

from workrail_site import shutdown


class Refused(Exception):
    """The report would cost more than its bounds: reason is "deadline" or "memory"."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


class Stopped(Exception):
    """Nobody waits for the report any more: reason is "client" or "shutdown"."""

    def __init__(self, reason: str) -> None:
        super().__init__("its client disconnected" if reason == "client" else "the process is shutting down")
        self.reason = reason


# Set once, when the process is told to stop (the dashboard's signal handler runs workrail_site/shutdown.py's hooks).
SHUTTING_DOWN = threading.Event()
shutdown.on_stop(SHUTTING_DOWN.set)


def _never() -> bool:
    return False


class Watch:
    def __init__(self, seconds: float, abandoned: Callable[[], bool] = _never) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.abandoned = abandoned

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def check(self) -> None:
        """Raises Stopped when the process is shutting down or the client left, Refused past the deadline."""
        if SHUTTING_DOWN.is_set():
            raise Stopped("shutdown")
        if self.abandoned():
            raise Stopped("client")
        if self.remaining() < 0:
            raise Refused("deadline", f"making it took longer than {self.seconds:g} s")


class Checked[T](list[T]):
    """A list that checks a Watch before each item it yields: a template's {% for %} over a run's steps,
    or a loop in markdown_report.py, stops between two steps when the report's bounds are reached."""

    def __init__(self, items: Iterable[T], watch: Watch) -> None:
        super().__init__(items)
        self.watch = watch

    def __iter__(self) -> Iterator[T]:
        for item in super().__iter__():
            self.watch.check()
            yield item


def same_watch[T](original: list[T], items: Iterable[T]) -> list[T]:
    """`items` as a list that checks the same Watch as `original`, when `original` checks one."""
    return Checked(items, original.watch) if isinstance(original, Checked) else list(items)


UNWATCHED = Watch(float("inf"))
