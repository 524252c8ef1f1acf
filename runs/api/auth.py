"""Who may use the API: a caller with a local API token (`Authorization: Bearer <token>`, see
runs/store/api_tokens.py), or a staff user logged in through /admin/ (the browser, the docs page).

A request that comes with the login session and an unsafe method must also carry the CSRF token, as
with ninja's django_auth; a Bearer token needs none (a browser never sends it on its own). Every
refusal is an UNAUTHENTICATED (401) or CSRF_FAILED (403) error body.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from ninja.security import APIKeyCookie, HttpBearer
from ninja.utils import check_csrf

from runs.api.errors import error_response, unauthenticated
from runs.contract.errors import ErrorCode, WorkRailError
from runs.store import actors, api_tokens
from runs.store.actors import Actor, Door

SAFE_METHODS = {"GET", "HEAD", "OPTIONS", "TRACE"}


class ApiToken(HttpBearer):
    """`Authorization: Bearer <token>` with a token made by `manage.py create_api_token`."""

    def authenticate(self, request: HttpRequest, token: str) -> Actor | None:
        stored = api_tokens.use(token.strip())
        if stored is None or stored.revoked_at is not None:
            # A token was sent and is wrong: say so, rather than falling back to the login session.
            raise unauthenticated(request, revoked=stored is not None)
        # `request.auth`: whom the request acts for
        return Actor(stored.owner, Door.API, client=request.META.get("REMOTE_ADDR", ""), token=stored.name)


class StaffSession(APIKeyCookie):
    """The Django admin login session of an active staff user."""

    param_name: str = settings.SESSION_COOKIE_NAME

    def __init__(self) -> None:
        super().__init__(csrf=True)  # `csrf` makes the docs page send the CSRF token with its requests

    def _get_key(self, request: HttpRequest) -> str | None:
        # The CSRF check comes after the user is known (authenticate): a caller without a session gets
        # 401, not 403.
        return request.COOKIES.get(self.param_name)

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        user = getattr(request, "user", None)
        if user is None or not (user.is_authenticated and user.is_active and user.is_staff):
            return None
        unsafe = request.method not in SAFE_METHODS and not getattr(request, "_ninja_csrf_exempt", False)
        if unsafe and check_csrf(request) is not None:
            raise WorkRailError(
                ErrorCode.CSRF_FAILED,
                f"{request.method} with the login session needs the CSRF token; nothing was changed.",
                "Send the csrftoken cookie's value in an X-CSRFToken header (the API docs page does), or "
                "use 'Authorization: Bearer <token>' instead of the session.",
            )
        return user


API_TOKEN = ApiToken()
STAFF_SESSION = StaffSession()
AUTH = [API_TOKEN, STAFF_SESSION]


def caller(request: HttpRequest) -> Actor:
    """Whom an authenticated API request acts for: its token's owner, or the staff user's name. A staff user
    is one of the dashboard's people, who see and manage the whole store (runs/store/ownership.py)."""
    auth = getattr(request, "auth", None)
    if isinstance(auth, Actor):
        return auth
    user = getattr(request, "user", None)
    name = user.get_username() if user is not None and user.is_authenticated else ""
    return Actor(
        name[: actors.OWNER_MAX_CHARS], Door.API, sees_everything=True, client=request.META.get("REMOTE_ADDR", "")
    )


def acting_as_caller[V: Callable[..., Any]](view: V) -> V:
    """Every endpoint runs as its caller (after authentication), so each event it records says who made it.
    Applied once to the whole API (workrail_site/api.py), not per endpoint."""

    @wraps(view)
    def acting(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        with actors.acting_as(caller(request)), actors.asking(f"{request.method} {request.path}"):
            return view(request, *args, **kwargs)

    return acting  # type: ignore[return-value]


def authenticated(request: HttpRequest) -> bool:
    """Whether a GET `request` passes the API's auth (raises WorkRailError on a bad token)."""
    return any(method(request) for method in AUTH)


def docs_guard[V: Callable[..., HttpResponse]](view: V) -> V:
    """The OpenAPI document and the docs page need the same auth as the API. The docs page, opened by a
    browser without a session, sends the user to the admin login and back."""
    is_page = getattr(getattr(view, "func", None), "__name__", "") == "openapi_view"

    @csrf_exempt  # it only reads (GET); any other method is refused below
    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET"])
        try:
            allowed = authenticated(request)
        except WorkRailError as error:
            return error_response(error)
        if allowed:
            return view(request, *args, **kwargs)
        if is_page and "Authorization" not in request.headers:
            login = reverse("admin:login")
            return HttpResponseRedirect(f"{login}?{urlencode({'next': request.get_full_path()})}")
        return error_response(unauthenticated(request))

    return guarded  # type: ignore[return-value]
