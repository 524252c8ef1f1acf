"""The API's report download: GET /api/v1/sessions/{sessionId}/report?format=md|pdf[&run=RUN_ID].

A ninja Router that workrail_site/api.py mounts when the API's URLs are built (see api_urls() there): the
API lives in runs, but reports live here, and imports point one way, exports -> runs.
"""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path, Query, Router

from exports.reports.produce import ReportFormat, produce
from exports.views import attachment, client_gone
from runs.api.errors import described, error_results

MAX_RUN_ID_CHARS = 80

router = Router(tags=["sessions"])

FILE_ANSWER: dict[str, Any] = {
    "description": "The report as a download (Content-Disposition: attachment).",
    "content": {
        "text/markdown": {"schema": {"type": "string"}},
        "application/pdf": {"schema": {"type": "string", "format": "binary"}},
    },
}


@router.get(
    "/sessions/{sessionId}/report",
    response=error_results(403, 404, 422, 429),
    by_alias=True,
    summary="A report of a session or of one of its runs",
    description=(
        "The session's report (or, with `run`, one run's), as Markdown or PDF: header, runs, branch graph, "
        "steps with their notes, artifact tables, gaps, warnings and synthesis. Each download is recorded "
        "in the session's log as a session_exported event (not activity). A PDF is bounded in time and memory: "
        "one over its bounds answers REPORT_TOO_LARGE (422), whose details.markdownReport is where to get the "
        "same report as Markdown."
    ),
    openapi_extra=described(403, 404, 422, 429, ok=FILE_ANSWER),
)
def session_report(
    request: HttpRequest,
    session_id: Annotated[str, Path(alias="sessionId", description="An id from GET /sessions (sessionId).")],
    format: Annotated[ReportFormat, Query(description="md (text/markdown) or pdf (application/pdf).")] = "md",
    run: Annotated[
        str | None, Query(max_length=MAX_RUN_ID_CHARS, description="A runId of the session: that run only.")
    ] = None,
) -> HttpResponse:
    return attachment(produce(session_id, format, "api", run_id=run or None, abandoned=client_gone(request)))
