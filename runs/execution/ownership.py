"""Whose sessions a request may use. A team shares one store, not its sessions: a request that acts for an
owner (an API token's, over `manage.py mcp --http` or the HTTP API) may use its own sessions and those
nobody owns (made on a machine's own stdio server, or before owners were recorded). A local process
(owner "") may use every session, as before owners existed; so may the dashboard, whose people see
everything on the store.

The execution use cases ask here wherever a token or a sessionKey leads to a session (loading.py, a
checkpoint's sessionToken, a start that joins a session by key), before anything is recorded."""

from __future__ import annotations

from django.db.models import Q

from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Session
from runs.store import actors
from runs.store.actors import Door


def _acting_owner() -> str:
    """The owner whose sessions alone this request may use; "" when it may use every session."""
    actor = actors.current()
    return "" if actor.door == Door.DASHBOARD else actor.owner


def may_use(session: Session) -> bool:
    me = _acting_owner()
    return not me or not session.owner or session.owner == me


def require_mine(session: Session) -> None:
    """Refuses (NOT_YOUR_SESSION, nothing recorded) a session another owner started."""
    if may_use(session):
        return
    raise WorkRailError(
        ErrorCode.NOT_YOUR_SESSION,
        f"This session was started by {session.owner}, and this request acts for {_acting_owner()}: "
        "a session is used only by the one who started it. Nothing was recorded.",
        "Continue your own sessions (resume_session finds them) or start one with start_workflow. To take over "
        f"{session.owner}'s work, ask them for an exported bundle of the session and import it as a copy.",
        details={"owner": session.owner},
    )


def visible(prefix: str = "") -> Q:
    """The rows (of Session, or through `prefix`, e.g. "session__") this request may use."""
    me = _acting_owner()
    if not me:
        return Q()
    return Q(**{f"{prefix}owner__in": ["", me]})
