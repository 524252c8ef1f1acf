"""Dashboard downloads of a session's (or a run's) report, Markdown or PDF.

Like every dashboard page, they need no login: the dashboard answers only on loopback (see
docs/security.md). An unknown id gets the dashboard's error page (404 with what to do), as elsewhere;
so does a PDF over its bounds (REPORT_TOO_LARGE, 422, pointing to the Markdown report).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from exports.reports.produce import Produced, ReportFormat, produce
from runs.dashboard.errors import shows_errors

MAX_ID_CHARS = 80  # ids are far shorter; a longer value is cut before it reaches the services


def download(data: bytes, content_type: str, filename: str) -> HttpResponse:
    """A file as a download, never cached (a report or a bundle is a snapshot of a session that moves on)."""
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)
    response["Cache-Control"] = "no-store"
    return response


def attachment(produced: Produced) -> HttpResponse:
    return download(produced.data, produced.content_type, produced.filename)


def _still_there() -> bool:
    return False


def client_gone(request: HttpRequest) -> Callable[[], bool]:
    """Whether the client that sent `request` has disconnected: waitress's own check, which it offers when
    it reads ahead on a connection (channel_request_lookahead, set by `manage.py dashboard`). Elsewhere
    (the test client, another server) the answer is always no."""
    check = request.META.get("waitress.client_disconnected")
    return check if callable(check) else _still_there


def _report(request: HttpRequest, session_id: str, report_format: ReportFormat) -> HttpResponse:
    run_id = (request.GET.get("run") or "")[:MAX_ID_CHARS] or None
    return attachment(produce(session_id, report_format, "dashboard", run_id=run_id, abandoned=client_gone(request)))


@require_GET
@shows_errors
def session_report_md(request: HttpRequest, session_id: str) -> HttpResponse:
    return _report(request, session_id, "md")


@require_GET
@shows_errors
def session_report_pdf(request: HttpRequest, session_id: str) -> HttpResponse:
    return _report(request, session_id, "pdf")
