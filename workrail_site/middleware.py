"""Request checks that must hold for every page and API endpoint alike."""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse

from runs.api.errors import error_response, not_found_path
from runs.store import actors
from runs.store.actors import Actor, Door

API_PREFIX = "/api/"


class HeadWithoutBodyMiddleware:
    """HEAD answers as GET would (status and headers, Content-Length included) without the body.

    Views that allow GET allow HEAD too (require_safe), and Django runs them alike; stripping the body is
    the server's job, which Django's test client and runserver do but waitress does not (it sends what
    the application returns). First in the list, so that it sees the response every other one made."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method == "HEAD":
            if isinstance(response, StreamingHttpResponse):
                response.streaming_content = []
            else:
                if not response.has_header("Content-Length"):
                    response["Content-Length"] = str(len(response.content))
                response.content = b""
        return response


class NulPathNotFoundMiddleware:
    """A URL path holding U+0000 (`%00`) names nothing: 404 before any view looks it up.

    Every id in a path (sessions, runs, nodes, workflows) is looked up in the database, and PostgreSQL
    refuses NUL in text outright (an error, not "no row"), so without this such a path is a 500 there
    while SQLite answers 404. Answering here keeps both backends, and every future route, the same."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path:
            if request.path.startswith(API_PREFIX):
                return error_response(not_found_path(request))
            raise Http404("No page has a NUL character in its path.")
        return self.get_response(request)


class DashboardActorMiddleware:
    """What a person does in the dashboard (a fork, a cancel, a mode change, an import) is recorded as made
    in the dashboard, by the logged-in user when there is one; the dashboard has no login of its own, so
    on this machine that is usually nobody in particular (""). The API sets its caller itself, after its
    authentication (runs/api/auth.py). After AuthenticationMiddleware: it reads `request.user`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(API_PREFIX):
            return self.get_response(request)
        with actors.acting_as(_dashboard_user(request)):
            return self.get_response(request)


def _dashboard_user(request: HttpRequest) -> Actor:
    user = getattr(request, "user", None)
    name = user.get_username() if user is not None and user.is_authenticated else ""
    return Actor(name[: actors.OWNER_MAX_CHARS], Door.DASHBOARD)
