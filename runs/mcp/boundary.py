"""Where a call from an MCP client meets the services, for tools and resources alike: a server that
could not read its configuration refuses with CONFIGURATION_ERROR, database work waits for start-up
and runs on fresh connections, and anything unexpected becomes INTERNAL_ERROR (logged to stderr),
never a traceback across the protocol."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import connections

from runs.contract.errors import ErrorCode, WorkRailError
from runs.mcp import readiness
from runs.store import call_notes

logger = logging.getLogger("workrail.mcp")


def guarded[T](what: str, work: Callable[[], T], *, uses_database: bool, changes: bool) -> T:
    """Runs `work` (a tool call or a resource read named `what`); raises only WorkRailError."""
    problem = readiness.configuration_problem()
    if problem is not None:
        raise WorkRailError(
            ErrorCode.CONFIGURATION_ERROR,
            f"The WorkRail server cannot work with its configuration: {problem}",
            "Fix the variable in the MCP server's environment (the 'env' of its entry in the client's MCP "
            "configuration, or the shell it starts from), then restart the server.",
        )
    try:
        return _with_database(work) if uses_database else work()
    except WorkRailError:
        raise
    except Exception as exc:
        logger.exception("%s failed", what)
        call_notes.failed_with(exc)  # its kind goes to the call's timing row; the answer stays the same
        unchanged = " Nothing stored was changed by this call." if changes else ""
        raise WorkRailError(
            ErrorCode.INTERNAL_ERROR,
            f"{what} failed unexpectedly; the details are in the server log (stderr).",
            f"Retry once; if it fails again, report the server log.{unchanged}",
            retryable=True,
        ) from None


def _with_database[T](work: Callable[[], T]) -> T:
    # Calls run on worker threads: drop connections that went stale between calls, before and after.
    readiness.wait_until_ready()
    _close_old_connections()
    try:
        return work()
    finally:
        _close_old_connections()


def _close_old_connections() -> None:
    """django.db.close_old_connections, except for a connection inside a caller's transaction (a test's,
    say): closing it there would break that transaction (on PostgreSQL; SQLite in memory never closes)."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close_if_unusable_or_obsolete()
