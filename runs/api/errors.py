"""Errors of the HTTP API: the same body and codes as the MCP tools ({"error": WorkRailError.as_dict()}),
with the HTTP status that goes with the code. Nothing leaves as a traceback or as ninja's own shapes."""

from __future__ import annotations

import logging
import math
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.db import OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from pydantic_core import to_json

from runs.contract import bearer
from runs.contract.errors import HTTP_STATUS, ErrorCode, ErrorResult, WorkRailError
from runs.store import refusals
from runs.store.actors import Actor, Door
from workflows_app.engine.jsontypes import JsonObject

logger = logging.getLogger("workrail.api")


# What each documented error status means, for the OpenAPI document.
MEANING: dict[int, str] = {
    400: "INVALID_INPUT: a parameter or the body does not fit (details.pointer says which).",
    401: "UNAUTHENTICATED: no valid Bearer token and no staff login session.",
    403: "CSRF_FAILED: a POST with the login session but without its CSRF token. NOT_YOUR_SESSION: a Bearer "
    "token's owner may read and change only the sessions it started (or nobody's).",
    404: "NOT_FOUND (or WORKFLOW_NOT_FOUND): no such id in this store.",
    409: "WORKFLOW_INVALID: the workflow file exists but cannot run (details.diagnostics). "
    "(BUNDLE_ALREADY_IMPORTED: the bundle's session is here already, details.sessionId; copy=true imports a copy.)",
    413: "BUNDLE_TOO_LARGE: the uploaded bundle is larger than WORKRAIL_BUNDLE_MAX_MB.",
    422: "REPORT_TOO_LARGE: the PDF would take longer or more memory than its budget; the Markdown report has it all.",
    429: "RATE_LIMITED: too many writes in a short time (details.retryAfterMs).",
    500: "INTERNAL_ERROR: a bug or an environment failure; the server log has the details.",
    503: "STORE_BUSY: the database stayed locked; retry. "
    "(REPORT_STOPPED: a report stopped by the dashboard shutting down.)",
}

STAFF_LOGIN = ", or log in at /admin/ as a staff user"
UNAUTHENTICATED_FIX = bearer.fix(otherwise=STAFF_LOGIN, docs="docs/api.md")
REVOKED_FIX = bearer.fix(otherwise=STAFF_LOGIN, docs="docs/api.md", revoked=True)


def error_statuses(*statuses: int) -> list[int]:
    """The error statuses an operation documents: 400, 401, 500 and 503 always, and `statuses`."""
    return sorted({400, 401, 500, 503, *statuses})


def error_results(*statuses: int) -> dict[int, Any]:
    """ErrorResult for each error status an operation can give (a `response=` for an operation whose
    success is not a model, e.g. a download)."""
    return {status: ErrorResult for status in error_statuses(*statuses)}


def responses(ok: Any, *statuses: int) -> dict[int, Any]:
    """An operation's `response=`: its answer, and ErrorResult for each error status it can give."""
    return {200: ok, **error_results(*statuses)}


def described(*statuses: int, ok: JsonObject | None = None) -> JsonObject:
    """openapi_extra (a fragment of the OpenAPI document, JSON) giving each documented error status its
    meaning, and (`ok`) the 200 answer when the operation's success is not a model."""
    errors = {status: {"description": MEANING[status]} for status in error_statuses(*statuses)}
    return {"responses": {200: ok, **errors} if ok is not None else errors}


def error_response(error: WorkRailError, status: int | None = None) -> HttpResponse:
    status = status or HTTP_STATUS.get(error.code, 500)
    response = HttpResponse(
        to_json({"error": error.as_dict()}), status=status, content_type="application/json; charset=utf-8"
    )
    if status == 401:
        response["WWW-Authenticate"] = bearer.CHALLENGE
    if error.code == ErrorCode.RATE_LIMITED:
        wait_ms = error.details.get("retryAfterMs")
        response["Retry-After"] = str(max(1, math.ceil(wait_ms / 1000))) if isinstance(wait_ms, int) else "1"
    elif error.code == ErrorCode.STORE_BUSY:
        response["Retry-After"] = "1"
    return response


def unauthenticated(request: HttpRequest, *, revoked: bool = False) -> WorkRailError:
    """Why this request is not authenticated, as precisely as can be told without revealing anything.
    `revoked`: the Bearer token was one of ours, revoked since (only its holder learns that)."""
    header = request.headers.get("Authorization")
    user = getattr(request, "user", None)
    who = Actor("", Door.API, client=request.META.get("REMOTE_ADDR", ""))
    asked = f"[{request.method} {request.path[:200]}]"
    if not header and user is not None and user.is_authenticated:
        refusals.record(ErrorCode.UNAUTHENTICATED, f"a login that is not an active staff user's {asked}", who)
        return WorkRailError(
            ErrorCode.UNAUTHENTICATED,
            "The logged-in user is not staff (or not active); the API is for staff users and API tokens.",
            UNAUTHENTICATED_FIX,
        )
    refusals.record(ErrorCode.UNAUTHENTICATED, f"{'a revoked token' if revoked else 'no valid token'} {asked}", who)
    missing = "This endpoint needs an API token or a staff login session."
    return bearer.refusal(header, revoked=revoked, missing=missing, otherwise=STAFF_LOGIN, docs="docs/api.md")


def invalid_input(errors: list[dict[str, Any]]) -> WorkRailError:
    """Ninja's request validation errors (pydantic's error dicts, typed by ninja as DictStrAny) as
    INVALID_INPUT, pointing at the first bad parameter."""
    first = errors[0] if errors else {"loc": (), "msg": "The request does not fit the API."}
    location = [str(part) for part in first.get("loc", ())]
    where = location[0] if location else "request"
    parts = location[1:]
    if where == "body" and len(parts) >= 1:
        parts = parts[1:]  # the view's argument name, not part of what was sent
    pointer = "".join(f"/{part}" for part in parts)
    msg = str(first.get("msg", "invalid"))
    if where == "body":
        subject = f"in the body at {pointer}" if pointer else "the body"
    else:
        subject = f"the {where} parameter '{parts[0]}'" if parts else f"the {where}"
    details: JsonObject = {"in": where, "pointer": pointer, "problems": len(errors)}
    if where != "body" and parts:
        details["parameter"] = parts[0]
    return WorkRailError(
        ErrorCode.INVALID_INPUT,
        f"{subject[:1].upper()}{subject[1:]}: {msg[:1].lower()}{msg[1:]}.",
        "Fix the request to match the operation in the OpenAPI document (/api/v1/openapi.json).",
        details=details,
    )


_HTTP_ERROR_CODES = {
    400: ErrorCode.INVALID_INPUT,
    401: ErrorCode.UNAUTHENTICATED,
    403: ErrorCode.CSRF_FAILED,
    404: ErrorCode.NOT_FOUND,
    429: ErrorCode.RATE_LIMITED,
}


def install(api: NinjaAPI) -> None:
    """Replaces ninja's default exception handlers with ones that answer the WorkRail error body. (Each
    handler gets an instance of the class it is registered for; ninja's annotation admits the class too.)"""

    def on_workrail_error(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(exc)

    def on_validation_error(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(invalid_input(list(exc.errors)))

    def on_authentication_error(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(unauthenticated(request))

    def on_http_error(request: HttpRequest, exc: Any) -> HttpResponse:
        code = _HTTP_ERROR_CODES.get(exc.status_code)
        if code is None:
            code = ErrorCode.INVALID_INPUT if exc.status_code < 500 else ErrorCode.INTERNAL_ERROR
        if code == ErrorCode.UNAUTHENTICATED:
            return error_response(unauthenticated(request))
        fix = {
            ErrorCode.INVALID_INPUT: "Send a JSON body that matches the operation in /api/v1/openapi.json.",
            ErrorCode.CSRF_FAILED: "Send the csrftoken cookie's value in an X-CSRFToken header, or use a Bearer token.",
            ErrorCode.NOT_FOUND: "Use an id the API listed.",
            ErrorCode.RATE_LIMITED: "Wait a moment, then send the request again.",
        }.get(code, "Retry once; if it fails again, report the dashboard's log.")
        return error_response(WorkRailError(code, f"{exc.message}.".replace("..", "."), fix), status=exc.status_code)

    def on_too_large(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(request_too_large())

    def on_not_found(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(not_found_path(request))

    def on_unexpected(request: HttpRequest, exc: Any) -> HttpResponse:
        if isinstance(exc, OperationalError) and "locked" in str(exc):
            return error_response(
                WorkRailError(
                    ErrorCode.STORE_BUSY,
                    "The WorkRail database is busy.",
                    "Retry the same request in a moment; nothing was recorded.",
                    retryable=True,
                )
            )
        logger.exception("%s %s failed", request.method, request.path)
        return error_response(
            WorkRailError(
                ErrorCode.INTERNAL_ERROR,
                f"{request.method} {request.path[:200]} failed unexpectedly; the details are in the dashboard's log.",
                "Retry once; if it fails again, report the log. Nothing stored was changed by a failed request.",
                retryable=True,
            )
        )

    api.add_exception_handler(WorkRailError, on_workrail_error)
    api.add_exception_handler(ValidationError, on_validation_error)
    api.add_exception_handler(AuthenticationError, on_authentication_error)
    api.add_exception_handler(HttpError, on_http_error)
    api.add_exception_handler(Http404, on_not_found)
    api.add_exception_handler(RequestDataTooBig, on_too_large)
    api.add_exception_handler(Exception, on_unexpected)


def request_too_large() -> WorkRailError:
    """A body over Django's DATA_UPLOAD_MAX_MEMORY_SIZE: Django stops reading it (RequestDataTooBig)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return WorkRailError(
        ErrorCode.REQUEST_TOO_LARGE,
        f"The request body is larger than {limit} bytes, the most this server reads for a form or a JSON body. "
        "Nothing was recorded.",
        "Send a smaller body; a bundle goes to POST /api/v1/bundles, which has its own limit.",
        details={"limitBytes": limit},
    )


def not_found_path(request: HttpRequest) -> WorkRailError:
    return WorkRailError(
        ErrorCode.NOT_FOUND,
        f"The API has no endpoint at {request.path[:200]}.",
        "See the endpoints in the OpenAPI document (/api/v1/openapi.json) or docs/api.md.",
    )


def unreadable_request(request: HttpRequest, exception: Exception | None) -> WorkRailError:
    """A request Django refused to read (SuspiciousOperation): a Host header it does not serve, or a
    malformed one, and the like. Said as an error with a code, for the API's JSON and the dashboard's page."""
    if isinstance(exception, DisallowedHost):
        host = str(request.META.get("HTTP_HOST", ""))[:200]
        return WorkRailError(
            ErrorCode.ORIGIN_REFUSED,
            f"This WorkRail server does not answer to the host name '{host}'. Nothing was read or changed.",
            "Reach it as 127.0.0.1 or localhost: the dashboard and its API answer only to loopback names "
            "(docs/configuration.md).",
            details={"host": host},
        )
    return WorkRailError(
        ErrorCode.INVALID_INPUT,
        "The request could not be read (its headers or query string are malformed). Nothing was read or changed.",
        "Send the request again with well-formed headers and query string.",
    )
