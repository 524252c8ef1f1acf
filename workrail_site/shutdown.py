"""What a server does with the work its requests started when it is told to stop (SIGTERM, Ctrl+C).

A request may be waiting on work that outlives a thread's polite end: a PDF laid out by a child process
(exports/reports/renderer.py registers its stop here). `manage.py dashboard` calls `stopping()` from its
signal handler, before waitress waits for its threads, so that they come back at once instead of after
the work is done. Hooks run in a signal handler: they must not take locks, log or wait.
"""

from __future__ import annotations

from collections.abc import Callable

_hooks: list[Callable[[], object]] = []


def on_stop(hook: Callable[[], object]) -> None:
    """Runs `hook` when the process is told to stop (once per registration)."""
    _hooks.append(hook)


def stopping() -> None:
    """Runs every hook; one that raises does not keep the others from running."""
    for hook in list(_hooks):
        try:
            hook()
        except Exception:  # in a signal handler: nothing to report to, and the next hook matters more
            continue
