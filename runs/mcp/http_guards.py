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

import anyio
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
from runs.store import api_tokens
from runs.store.actors import Actor, Door, acting_as

logger = logging.getLogger("workrail.mcp.http")

DOCS = "docs/http.md"
MISSING = "The WorkRail MCP server over HTTP needs an API token with every request."
MISDIRECTED = 421  # the SDK's status for a Host header it was not told about


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
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = Headers(scope=scope).get("authorization")
        token = bearer.token_of(header)
        try:
            found = await anyio.to_thread.run_sync(_token_named, token) if token else None
        except WorkRailError as exc:  # the store could not be read: not the caller's fault
            await error_response(exc)(scope, receive, send)
            return
        if found is None or found.revoked_at is not None:
            error = bearer.refusal(header, revoked=found is not None, missing=MISSING, otherwise="", docs=DOCS)
            # The operator's only trace of a refused agent (the token itself is never logged).
            client = scope.get("client") or ("?", 0)
            logger.warning(
                "refused a request from %s: %s", client[0], "revoked token " + found.name if found else error.message
            )
            await error_response(error)(scope, receive, send)
            return
        with acting_as(Actor(owner=found.owner, door=Door.HTTP)):
            await self.app(scope, receive, send)


def _token_named(token: str) -> ApiToken | None:
    """The stored token `token` is (live or revoked), or None; one indexed lookup, on a worker thread."""
    return guarded("Checking the API token", lambda: api_tokens.use(token), uses_database=True, changes=False)
