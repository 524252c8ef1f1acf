"""Sessions: the list, one session, its event log, and changing its mode or preferences."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest
from ninja import Path, Query, Router

from runs.api.errors import described, responses
from runs.contract.dashboard import (
    EventPage,
    PreferencesChange,
    PreferencesChangeResult,
    SessionDetail,
    SessionGroup,
    SessionPage,
    SessionSort,
    SessionStatusName,
)
from runs.execution import session_actions
from runs.readmodels import overview

SessionIdPath = Annotated[str, Path(alias="sessionId", description="An id from GET /sessions (sessionId).")]
router = Router(tags=["sessions"])

MAX_SEQ = 2**63 - 1


@router.get(
    "/sessions",
    response=responses(SessionPage, 400),
    by_alias=True,
    summary="List sessions",
    description="Search, filter, sort and page the sessions, newest activity first by default.",
    openapi_extra=described(400),
)
def list_sessions(
    request: HttpRequest,
    q: Annotated[str, Query(max_length=overview.MAX_QUERY_CHARS, description="Words that must all match.")] = "",
    status: Annotated[SessionStatusName | None, Query(description="Only sessions shown with this status.")] = None,
    sort: Annotated[SessionSort, Query(description="A field; '-' first for descending.")] = "-activity",
    group: Annotated[SessionGroup, Query(description="Order by branch or workspace first, and report the groups.")] = (
        "none"
    ),
    page: Annotated[int, Query(ge=1, le=MAX_SEQ, description="Out-of-range pages give the last page.")] = 1,
    per_page: Annotated[int, Query(alias="perPage", ge=1, le=overview.PER_PAGE_MAX)] = overview.PER_PAGE_DEFAULT,
) -> SessionPage:
    return overview.list_sessions(query=q, status=status, sort=sort, group=group, page=page, per_page=per_page)


@router.get(
    "/sessions/{sessionId}",
    response=responses(SessionDetail, 403, 404),
    by_alias=True,
    summary="One session",
    description="The session with its runs, recent checkpoints and a timeline of its runs' nodes.",
    openapi_extra=described(403, 404),
)
def get_session(request: HttpRequest, session_id: SessionIdPath) -> SessionDetail:
    return overview.session_detail(session_id)


@router.get(
    "/sessions/{sessionId}/events",
    response=responses(EventPage, 400, 403, 404),
    by_alias=True,
    summary="A session's event log",
    description="Oldest first, a page at a time: pass the answer's nextAfter as `after` for the next page.",
    openapi_extra=described(400, 403, 404),
)
def session_events(
    request: HttpRequest,
    session_id: SessionIdPath,
    after: Annotated[int, Query(ge=0, le=MAX_SEQ, description="Only events after this seq (nextAfter).")] = 0,
    limit: Annotated[int, Query(ge=1, le=overview.EVENTS_PAGE_MAX, description="Events per page.")] = 100,
) -> EventPage:
    return overview.session_events(session_id, after=after, limit=limit)


@router.post(
    "/sessions/{sessionId}/preferences",
    response=responses(PreferencesChangeResult, 400, 403, 404, 429),
    by_alias=True,
    summary="Change a session's mode or preferences",
    description=(
        "Recorded as preferences_changed events: the session's baseline and every open tip of its unfinished "
        "runs take the new preferences at their next step."
    ),
    openapi_extra=described(400, 403, 404, 429),
)
def change_preferences(
    request: HttpRequest, session_id: SessionIdPath, change: PreferencesChange
) -> PreferencesChangeResult:
    return session_actions.change_preferences(session_id, change)
