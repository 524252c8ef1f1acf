"""Request checks that must hold for every page and API endpoint alike."""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse

from runs.api.errors import error_response, not_found_path

API_PREFIX = "/api/"


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
