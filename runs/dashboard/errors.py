"""One error page for the whole dashboard: a WorkRailError shown with its code, message and suggestion;
and, for the few dashboard URLs a script reads, the same error as the JSON body every door sends."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from runs.contract.errors import HTTP_STATUS, ErrorCode, WorkRailError
from runs.readmodels.lost import lost_help

View = Callable[..., HttpResponse]


# The error page's heading: a sentence for people by what the HTTP status means (the code stays on the
# page, small, for a report or a search).
_HEADINGS = {
    400: "That request could not be used",
    401: "Sign in first",
    403: "Not allowed here",
    404: "Nothing here by that name",
    409: "That clashes with what is stored",
    413: "That is too large",
    429: "Too many requests for now",
    503: "The store is busy",
}


def heading(status: int) -> str:
    return _HEADINGS.get(status, "Something went wrong on the server")


def error_page(request: HttpRequest, error: WorkRailError, status: int | None = None) -> HttpResponse:
    status = status or HTTP_STATUS.get(error.code, 400)
    context: dict[str, object] = {"error": error, "status": status, "heading": heading(status)}
    route = request.resolver_match
    if status == 404 and route is not None:  # where to look instead, for what the link named
        context["lost"] = lost_help(route.url_name or "", route.kwargs, request.GET.get("tip", ""))
    return render(request, "dashboard/error.html", context, status=status)


def error_json(error: WorkRailError, status: int | None = None) -> JsonResponse:
    """`{"error": {code, message, retryable, suggestion, details?}}`, as the API and the MCP tools answer,
    with the code's HTTP status unless told otherwise."""
    return JsonResponse({"error": error.as_dict()}, status=status or HTTP_STATUS.get(error.code, 400))


def invalid(message: str, suggestion: str) -> WorkRailError:
    return WorkRailError(ErrorCode.INVALID_INPUT, message, suggestion)


def shows_errors(view: View) -> View:
    """Decorates a view: a WorkRailError it raises becomes the error page with the code's HTTP status."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except WorkRailError as error:
            return error_page(request, error)

    return wrapped
