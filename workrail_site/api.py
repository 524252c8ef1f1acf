"""The HTTP API under /api/v1/: a thin door over the read services and actions the dashboard uses.

Every answer is one of the typed models of runs/contract (camelCase on the wire, as on the MCP
boundary), every error the WorkRail error body (runs/api/errors.py), and every endpoint but /health
needs an API token or a staff login session (runs/api/auth.py). docs/api.md describes it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, URLResolver, re_path
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI
from ninja.openapi.docs import Swagger
from ninja.operation import Operation
from ninja.renderers import BaseRenderer
from pydantic.alias_generators import to_camel
from pydantic_core import to_json

from exports.api import router as exports_router
from exports.api_bundles import router as bundles_router
from runs.api import errors, routes_catalog, routes_fork, routes_misc, routes_runs, routes_sessions
from runs.api.auth import AUTH, acting_as_caller, authenticated, docs_guard
from runs.contract.errors import ErrorCode, WorkRailError
from workrail_site.version import VERSION

DESCRIPTION = (
    "The sessions, runs, nodes, workflows and tool timings the WorkRail dashboard shows, as JSON. "
    "Authenticate with `Authorization: Bearer <token>` (create one with `manage.py create_api_token`) or, "
    'in a browser, a staff login session (/admin/). Errors are `{"error": {code, message, retryable, '
    "suggestion, details?}}` with the codes of docs/errors.md."
)


class JsonRenderer(BaseRenderer):
    """JSON as pydantic writes it (datetimes with microseconds and 'Z'), like the MCP boundary."""

    media_type = "application/json"

    def render(self, request: HttpRequest, data: Any, *, response_status: int) -> Any:
        return to_json(data, by_alias=True)


class LocalSwagger(Swagger):
    """The docs page with Swagger UI from ninja's own static files, never from a CDN (ninja falls back to
    a CDN when "ninja" is not in INSTALLED_APPS; this refuses to)."""

    def render_page(self, request: HttpRequest, api: NinjaAPI, **kwargs: Any) -> HttpResponse:
        self.settings["url"] = self.get_openapi_url(api, kwargs)
        context = {"swagger_settings": to_json(self.settings).decode(), "api": api, "add_csrf": True}
        return render(request, self.template, context)


class WorkRailAPI(NinjaAPI):
    def get_openapi_operation_id(self, operation: Operation) -> str:
        """camelCase operation ids from the view names (listSessions, getRun...)."""
        return to_camel(operation.view_func.__name__)


api = WorkRailAPI(
    title="WorkRail API",
    version=VERSION,
    description=DESCRIPTION,
    urls_namespace="workrail-api",
    auth=AUTH,
    renderer=JsonRenderer(),
    docs=LocalSwagger(),
    docs_decorator=docs_guard,
)
errors.install(api)
api.add_decorator(acting_as_caller)  # each endpoint acts for its caller: the events it records say who
api.add_router("", routes_misc.router)
api.add_router("", routes_sessions.router)
api.add_router("", routes_runs.router)
api.add_router("", routes_fork.router)
api.add_router("", routes_catalog.router)
# The exports app's routes (reports, bundles): this project-level API mounts every app's routers.
api.add_router("", exports_router)
api.add_router("", bundles_router)


def _json_405(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Ninja answers a method an endpoint does not have with a bare 405: give it the error body too."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if response.status_code != 405 or response.get("Content-Type", "").startswith("application/json"):
            return response
        allowed = response.get("Allow", "")
        answer = errors.error_response(
            WorkRailError(
                ErrorCode.INVALID_INPUT,
                f"{request.method} is not a method of {request.path[:200]}.",
                f"Use {allowed or 'another method'} (see /api/v1/openapi.json).",
                details={"allowed": [m.strip() for m in allowed.split(",") if m.strip()]},
            ),
            status=405,
        )
        answer["Allow"] = allowed
        return answer

    return wrapped


@csrf_exempt  # the API's auth checks the CSRF token of session callers itself
def _not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """A path under /api/v1/ that no endpoint has (the root included): the error body, not an HTML page;
    and, as everywhere but /health, 401 to a caller without credentials."""
    try:
        allowed = authenticated(request)
    except WorkRailError as error:
        return errors.error_response(error)
    if not allowed:
        return errors.error_response(errors.unauthenticated(request))
    return errors.error_response(errors.not_found_path(request))


def api_urls() -> tuple[list[URLPattern | URLResolver], str, str]:
    """What workrail_site/urls.py mounts at api/v1/: ninja's URLs, with JSON answers for a wrong method,
    the root and any path no endpoint has."""
    patterns, app_name, namespace = api.urls
    for pattern in patterns:
        if isinstance(pattern, URLPattern):
            pattern.callback = _json_405(pattern.callback)
    return [re_path(r"^$", _not_found), *patterns, re_path(r"^(?P<rest>.+)$", _not_found)], app_name, namespace
