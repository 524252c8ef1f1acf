"""A progress bar for management commands doing long work (export, import, cleanup, reports).

rich draws it on stderr when stderr is a terminal and stays quiet otherwise (cron, pipes, tests), so
a command's standard output holds only its result and its final counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from io import TextIOBase
from typing import IO, cast

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn


class Bar:
    """What a long job reports to: `advance` by some units done; `total` may be set once it is known."""

    def __init__(self, progress: Progress | None, task: TaskID | None) -> None:
        self._progress = progress
        self._task = task

    def advance(self, units: int = 1) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, units)

    def at(self, done: int, total: int) -> None:
        """Where the job stands: `done` of `total` units (for callbacks that report both)."""
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=done, total=total)

    def total(self, units: int) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, total=units)


@contextmanager
def progress_bar(description: str, total: int | None, stream: IO[str] | TextIOBase) -> Iterator[Bar]:
    """`stream` is a command's self.stderr or any text stream. Django's OutputWrapper ends every write
    with a newline, which would break rich's redraws of one line: rich gets the stream it wraps."""
    console = Console(file=cast(IO[str], getattr(stream, "_out", stream)), stderr=True)
    if not console.is_terminal:
        yield Bar(None, None)
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        yield Bar(progress, progress.add_task(description, total=total))
