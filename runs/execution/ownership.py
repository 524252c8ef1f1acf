"""Whose sessions a request may use. A team shares one store, not its sessions: a request that acts for an
owner (an API token's, over `manage.py mcp --http` or the HTTP API) may use its own sessions and those
nobody owns (made on a machine's own stdio server, or before owners were recorded). A local process
(owner "") may use every session, as before owners existed; so may the dashboard, whose people see
everything on the store.

The execution use cases ask here wherever a token or a sessionKey leads to a session (loading.py, a
checkpoint's sessionToken, a start that joins a session by key), before anything is recorded."""

from __future__ import annotations

from django.db.models import Q

from runs.contract import features
from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.features import Feature
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


def require_mine(session: Session, *, joining_key: str | None = None) -> None:
    """Refuses (NOT_YOUR_SESSION, nothing recorded) a session another owner started. `joining_key`: the
    sessionKey (or ticketId) a start would join the session by, which the refusal then names."""
    if may_use(session):
        return
    take_over = (
        f"To take over {session.owner}'s work, ask them (or whoever runs the server) for an exported bundle of "
        "the session, imported as a copy."
    )
    if joining_key is not None:
        raise WorkRailError(
            ErrorCode.NOT_YOUR_SESSION,
            f"The key '{joining_key}' (sessionKey or ticketId) names a session {session.owner} started, and this "
            f"request acts for {_acting_owner()}: a start joins the session of its key, and a session is used only "
            "by the one who started it. Nothing was recorded.",
            "Start again with a sessionKey of your own (for example your name and the ticket), or without a "
            f"sessionKey and ticketId for a new session. {take_over}",
            details={"owner": session.owner, "sessionKey": joining_key},
        )
    raise WorkRailError(
        ErrorCode.NOT_YOUR_SESSION,
        f"This session was started by {session.owner}, and this request acts for {_acting_owner()}: "
        "a session is used only by the one who started it. Nothing was recorded.",
        f"Continue your own sessions{_how_to_find()} or start one with start_workflow. {take_over}",
        details={"owner": session.owner},
    )


def _how_to_find() -> str:
    """The tool that finds one's own sessions, named only where this server offers it."""
    return " (resume_session finds them)" if features.enabled(Feature.RESUME_SESSION) else ""


def visible(prefix: str = "") -> Q:
    """The rows (of Session, or through `prefix`, e.g. "session__") this request may use."""
    me = _acting_owner()
    if not me:
        return Q()
    return Q(**{f"{prefix}owner__in": ["", me]})
