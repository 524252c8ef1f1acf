"""Whose sessions a request may use, decided here for every door, and the record of every refusal.

A team shares one store, not its sessions: a request that acts for an owner (an API token's, over
`manage.py mcp --http` or the HTTP API) may use its own sessions and those nobody owns (made on a machine's
own stdio server, or before owners were recorded). A local process (owner "") may use every session, as
before owners existed; so may the dashboard's people (its pages, a staff login through the HTTP API), who
see and manage the whole store (Actor.sees_everything).

"Use" is reading as much as changing: whatever leads from an id, a token or a sessionKey to a session asks
here before anything is read or recorded. The tools (runs/execution: loading.py, checkpoints, starts that
join a session by key), the resources and subscriptions (runs/readmodels: resources.py, versions.py), the
HTTP API's reads and writes, and bundle export and reports (overview.get_session, run_view) all call
`require_mine` on the session they found, and lists filter with `visible`.

Every refusal here is recorded for the operator (runs/store/refusals.py) before it is raised.
"""

from __future__ import annotations

from django.db.models import Q

from runs.contract import features
from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.features import Feature
from runs.models import Session
from runs.store import actors, refusals


def acting_owner() -> str:
    """The owner whose sessions alone this request may use; "" when it may use every session."""
    actor = actors.current()
    return "" if actor.sees_everything or actor.door == actors.Door.DASHBOARD else actor.owner


def may_use(session_owner: str) -> bool:
    """Whether this request may use a session `session_owner` started ("" for nobody)."""
    me = acting_owner()
    return not me or not session_owner or session_owner == me


def require_mine(session: Session, *, joining_key: str | None = None) -> None:
    """Refuses (NOT_YOUR_SESSION, nothing recorded but the refusal) a session another owner started.
    `joining_key`: the sessionKey (or ticketId) a start would join the session by. Keys are chosen by
    people and easy to guess, so that refusal does not say whose the session is: probing keys tells nobody
    who works on what."""
    if may_use(session.owner):
        return
    take_over = (
        "To take over another owner's work, ask them (or whoever runs the server) for an exported bundle of the "
        "session, imported as a copy."
    )
    if joining_key is not None:
        error = WorkRailError(
            ErrorCode.NOT_YOUR_SESSION,
            f"The key '{joining_key}' (sessionKey or ticketId) names a session another owner started, and this "
            f"request acts for {acting_owner()}: a start joins the session of its key, and a session is used only "
            "by the one who started it. Nothing was recorded.",
            "Start again with a sessionKey of your own (for example your name and the ticket), or without a "
            f"sessionKey and ticketId for a new session. {take_over}",
            details={"sessionKey": joining_key},
        )
        refusals.record(
            error.code, f"session key '{joining_key[:80]}' of session {session.public_id} ({session.owner}'s)"
        )
        raise error
    error = WorkRailError(
        ErrorCode.NOT_YOUR_SESSION,
        f"This session was started by {session.owner}, and this request acts for {acting_owner()}: "
        "a session is used only by the one who started it. Nothing was read or recorded.",
        f"Use your own sessions{_how_to_find()} or start one with start_workflow. {take_over}",
        details={"owner": session.owner},
    )
    refusals.record(error.code, f"session {session.public_id} ({session.owner}'s)")
    raise error


def _how_to_find() -> str:
    """The tool that finds one's own sessions, named only where this server offers it."""
    return " (resume_session finds them)" if features.enabled(Feature.RESUME_SESSION) else ""


def visible(prefix: str = "") -> Q:
    """The rows (of Session, or through `prefix`, e.g. "session__") this request may use."""
    me = acting_owner()
    if not me:
        return Q()
    return Q(**{f"{prefix}owner__in": ["", me]})
