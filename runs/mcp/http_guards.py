"""The two checks every request to `manage.py mcp --http` passes before the SDK's transport sees it, as
plain ASGI middlewares (no buffering: the transport's event streams pass straight through):

- OriginGuard: the MCP transport's DNS-rebinding rule, decided by the SDK's own TransportSecurityMiddleware
  with our TransportSecuritySettings (loopback, plus the names a team configured). The SDK applies the same
  settings again inside its transport; this guard only runs first so that a refusal is our error body
  (ORIGIN_REFUSED) rather than the SDK's plain text, and so that a foreign web page learns nothing, not
  even whether its token would be good.
- BearerGuard: an API token of this store (runs/store/api_tokens.py) in `Authorization: Bearer`, and the
  request then runs as that token's owner (runs/store/actors.py), so every event it records says who.

Why not the SDK's TokenVerifier and RequireAuthMiddleware: they answer a refusal with OAuth's body
({"error": "invalid_token"}), cannot tell a revoked token from a mistyped one, and need AuthSettings that
describe an OAuth authorization server (issuer and resource URLs) we do not have. A refusal here is the
same UNAUTHENTICATED body, words and WWW-Authenticate header as the HTTP API's (runs/contract/bearer.py).

The actor is set around the rest of the request, in the request's task: the SDK carries the sender's
context with each message to the task that handles it (mcp.shared._context_streams), and anyio's
to_thread copies it to the worker thread where the tool runs.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import DEFAULT_SESSION_IDLE_TIMEOUT, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from pydantic_core import to_json
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from runs.contract import bearer
from runs.contract.errors import HTTP_STATUS, ErrorCode, WorkRailError
from runs.mcp.boundary import guarded
from runs.models import ApiToken
from runs.store import api_tokens, refusals
from runs.store.actors import Actor, Door, acting_as

logger = logging.getLogger("workrail.mcp.http")

DOCS = "docs/http.md"
MISSING = "The WorkRail MCP server over HTTP needs an API token with every request."
MISDIRECTED = 421  # the SDK's status for a Host header it was not told about
# Bounds of a server that keeps sessions (one worker): docs/security.md.
MAX_SESSIONS_PER_OWNER = 32  # the SDK's own cap (10,000) is for the whole server: one owner reaches it first
REVOCATION_CHECK_S = 5.0  # how soon a revoked token's open sessions end


def error_response(error: WorkRailError, status: int | None = None) -> Response:
    """The error body every door sends ({"error": {code, message, retryable, suggestion, details?}})."""
    status = status or HTTP_STATUS.get(error.code, 500)
    headers = {"WWW-Authenticate": bearer.CHALLENGE} if status == 401 else None
    body = to_json({"error": error.as_dict()})
    return Response(body, status_code=status, media_type="application/json", headers=headers)


class OriginGuard:
    def __init__(self, app: ASGIApp, security: TransportSecuritySettings) -> None:
        self.app = app
        self._check = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refused = await self._check.validate_request(request)
        if refused is None:
            await self.app(scope, receive, send)
            return
        if refused.status_code == MISDIRECTED:
            error = _host_refused(request.headers.get("host", ""))
        else:
            error = _origin_refused(request.headers.get("origin", ""))
        await error_response(error, status=refused.status_code)(scope, receive, send)


def _origin_refused(origin: str) -> WorkRailError:
    return WorkRailError(
        ErrorCode.ORIGIN_REFUSED,
        f"Requests from the web origin '{origin[:200]}' are refused: a web page must not reach this WorkRail "
        "server (the MCP transport's DNS-rebinding rule). Nothing was read or changed.",
        "A client that is not a browser sends no Origin header. If this origin is your team's reverse proxy, "
        f"add it to WORKRAIL_MCP_ALLOWED_ORIGINS and restart the server ({DOCS}).",
        details={"origin": origin[:200]},
    )


def _host_refused(host: str) -> WorkRailError:
    return WorkRailError(
        ErrorCode.ORIGIN_REFUSED,
        f"This WorkRail server does not answer to the host name '{host[:200]}' (the MCP transport's "
        "DNS-rebinding rule). Nothing was read or changed.",
        "Reach it as 127.0.0.1 or localhost, or, if this is your team's name for it, add the name to "
        f"WORKRAIL_MCP_ALLOWED_HOSTS and restart the server ({DOCS}).",
        details={"host": host[:200]},
    )


class BearerGuard:
    """The token check, then the request runs as the token's owner. The SDK is told who it is too
    (scope["user"], its AuthenticatedUser): its session manager binds each MCP session to the credential that
    opened it and answers any other token's use of that Mcp-Session-Id (a POST, the GET stream, a DELETE) as
    if the session did not exist. `sessions` (when the server keeps sessions) bounds how many one owner opens."""

    def __init__(self, app: ASGIApp, sessions: SessionCensus | None = None) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        header = headers.get("authorization")
        token = bearer.token_of(header)
        client = (scope.get("client") or ("", 0))[0]  # uvicorn's, after any trusted proxy's word
        try:
            found = await anyio.to_thread.run_sync(_token_named, token) if token else None
        except WorkRailError as exc:  # the store could not be read: not the caller's fault
            await error_response(exc)(scope, receive, send)
            return
        if found is None or found.revoked_at is not None:
            error = bearer.refusal(header, revoked=found is not None, missing=MISSING, otherwise="", docs=DOCS)
            who = Actor(found.owner if found else "", Door.HTTP, client=client, token=found.name if found else "")
            refusals.record(error.code, "a revoked token" if found else "a request without a valid token", who)
            await error_response(error)(scope, receive, send)
            return
        actor = Actor(owner=found.owner, door=Door.HTTP, client=client, token=found.name)
        scope["user"] = AuthenticatedUser(
            AccessToken(token=found.name, client_id=found.name, scopes=[], subject=found.owner)
        )
        opening = self.sessions is not None and scope["method"] == "POST" and MCP_SESSION_ID_HEADER not in headers
        with acting_as(actor):
            if not opening or self.sessions is None:
                await self.app(scope, receive, send)
                return
            with self.sessions.opening(found.owner) as admitted:
                if admitted:
                    await self.app(scope, receive, send)
                    return
            error = _too_many_sessions()
            refusals.record(error.code, f"an MCP session past {MAX_SESSIONS_PER_OWNER}")
            await error_response(error)(scope, receive, send)


def _too_many_sessions() -> WorkRailError:
    return WorkRailError(
        ErrorCode.RATE_LIMITED,
        f"This owner has {MAX_SESSIONS_PER_OWNER} MCP sessions open on this server already; no more are opened "
        "for it until one ends. Other owners are not affected.",
        "End sessions you no longer use (an MCP client does when it closes), or wait: an idle session ends after "
        f"{int(DEFAULT_SESSION_IDLE_TIMEOUT) // 60} minutes.",
        retryable=True,
    )


class SessionCensus:
    """Which MCP sessions each owner and token holds on this server (the SDK's session manager knows each
    session's credential), and the end of every session whose token was revoked."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self._manager = manager
        self._opening: Counter[str] = Counter()  # by owner: opening requests in flight, not yet admitted

    def held(self) -> dict[str, tuple[str, str]]:
        """Every open session: its id -> (token name, owner). The SDK keeps them privately;
        tests/runs/mcp/test_http_doors.py fails if this stops working."""
        owners = self._manager._session_owners
        return {sid: (who["client_id"], who["subject"] or "") for sid, who in owners.items()}

    @contextmanager
    def opening(self, owner: str) -> Iterator[bool]:
        """Whether `owner` may open one more session (counting those being opened), held while it opens."""
        open_now = sum(1 for _, holder in self.held().values() if holder == owner)
        admitted = open_now + self._opening[owner] < MAX_SESSIONS_PER_OWNER
        if admitted:
            self._opening[owner] += 1
        try:
            yield admitted
        finally:
            if admitted:
                self._opening[owner] -= 1
                if not self._opening[owner]:
                    del self._opening[owner]

    async def end_revoked(self) -> int:
        """Ends every open session whose token was revoked since it opened (its streams close, its
        subscriptions go with it); returns how many."""
        held = self.held()
        if not held:
            return 0
        names = {name for name, _ in held.values()}
        revoked: set[str] = await anyio.to_thread.run_sync(_revoked_among, names)
        ended = 0
        for sid, (name, owner) in held.items():
            transport = self._manager._server_instances.get(sid) if name in revoked else None
            if transport is not None:
                refusals.record(
                    ErrorCode.UNAUTHENTICATED,
                    f"MCP session {sid[:12]}… ended: its token was revoked",
                    Actor(owner, Door.HTTP, token=name),
                )
                await transport.terminate()
                ended += 1
        return ended

    async def watch_revocations(self) -> None:
        while True:
            await anyio.sleep(REVOCATION_CHECK_S)
            try:
                await self.end_revoked()
            except Exception:
                logger.warning("could not check the open MCP sessions' tokens; retrying", exc_info=True)


def _token_named(token: str) -> ApiToken | None:
    """The stored token `token` is (live or revoked), or None; one indexed lookup, on a worker thread."""
    return guarded("Checking the API token", lambda: api_tokens.use(token), uses_database=True, changes=False)


def _revoked_among(names: set[str]) -> set[str]:
    """Which of the tokens named `names` are revoked now: one query, on a worker thread."""

    def work() -> set[str]:
        return set(api_tokens.revoked_among(names))

    return guarded("Checking the open sessions' tokens", work, uses_database=True, changes=False)
