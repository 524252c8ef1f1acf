"""How far the recorded work behind a run or session resource has come: what the MCP server compares to
tell a subscriber that a resource changed, whichever process recorded the change (another MCP server,
the dashboard, the HTTP API, an import, a cleanup).

Every change to recorded work is an event, and every event moves its session's `last_seq`
(runs/store/journal.py). So one number per session, read by primary key, covers every run in it and
every event kind, including kinds added later. A run's version is its session's: a run resource shows
things recorded beside it (checkpoints on its path, the session's key), so a change anywhere in the
session may change it. A session that is gone (cleanup, retention) has no version.
"""

from __future__ import annotations

from collections.abc import Collection

from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Run, Session
from runs.store import ownership
from runs.store.staged import visible_sessions

MAX_ID_LENGTH = 40  # public ids are far shorter; a longer one names nothing


def run_not_found(run_id: str) -> WorkRailError:
    """NOT_FOUND for a run id this store does not hold (or hides), echoing at most MAX_ID_LENGTH of it."""
    return WorkRailError(
        ErrorCode.NOT_FOUND,
        f"No run has the id '{run_id[:MAX_ID_LENGTH]}'.",
        "Use the runId from a start_workflow or continue_workflow answer (session.runId).",
    )


def session_of_run(run_id: str) -> int:
    """The primary key of the session that holds run `run_id`; NOT_FOUND when no visible session does,
    NOT_YOUR_SESSION when another owner's does."""
    run = (
        Run.objects.filter(public_id=run_id[:MAX_ID_LENGTH], session__importing=False)
        .select_related("session")
        .only("session__id", "session__public_id", "session__owner")
        .first()
    )
    if run is None:
        raise run_not_found(run_id)
    ownership.require_mine(run.session)
    return run.session.pk


def session_pk(session_id: str) -> int:
    """The primary key of session `session_id`; NOT_FOUND when there is no such visible session,
    NOT_YOUR_SESSION when another owner started it."""
    found = visible_sessions().filter(public_id=session_id[:MAX_ID_LENGTH]).only("id", "public_id", "owner").first()
    if found is None:
        raise WorkRailError(
            ErrorCode.NOT_FOUND,
            f"No session has the id '{session_id[:MAX_ID_LENGTH]}'.",
            "Use the sessionId from an execution answer (session.sessionId).",
        )
    ownership.require_mine(found)
    return found.pk


def versions(session_pks: Collection[int]) -> dict[int, int]:
    """The newest event's seq of each session in `session_pks` that still exists: one query on the
    primary key, however many resources are watched."""
    return dict(Session.objects.filter(pk__in=list(session_pks)).values_list("pk", "last_seq"))
