"""Making a report file and recording it: what the command, the dashboard and the API all call."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from django.conf import settings

from exports.records import ExportVia, digest_of, record_export
from exports.reports import html_report, markdown_report
from exports.reports.data import Report, build_report
from exports.reports.paper_budget import TooMuchText
from exports.reports.renderer import Refused, Stopped
from runs import ratelimit
from runs.errors import ErrorCode, WorkRailError
from runs.models import Session
from runs.services.nodes import write

ReportFormat = Literal["md", "pdf"]
FORMATS: dict[str, tuple[Literal["markdown", "pdf"], str, str]] = {
    # format: (what the export record says, content type, file extension)
    "md": ("markdown", "text/markdown; charset=utf-8", "md"),
    "pdf": ("pdf", "application/pdf", "pdf"),
}
_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class Produced:
    data: bytes
    content_type: str
    filename: str
    digest: str
    report: Report


def filename_for(report: Report, report_format: ReportFormat) -> str:
    subject = f"run-{report.run_id}" if report.run_id else f"session-{report.session.session_id}"
    return f"workrail-{_UNSAFE_IN_NAME.sub('_', subject)[:80]}.{FORMATS[report_format][2]}"


def render(report: Report, report_format: ReportFormat, abandoned: Callable[[], bool] = lambda: False) -> bytes:
    """The report's file. A PDF is bounded (pdf.bounded_pdf) and raises what that raises."""
    if report_format == "pdf":
        from exports.reports.pdf import bounded_pdf

        return bounded_pdf(html_report.render(report), abandoned)
    return markdown_report.render(report).encode("utf-8")


def markdown_instead(report: Report, via: ExportVia) -> str:
    """Where the same report is to be had as Markdown, through the door the PDF was asked from."""
    session_id, run_id = report.session.session_id, report.run_id
    if via == "dashboard":
        return f"/sessions/{session_id}/report.md" + (f"?run={run_id}" if run_id else "")
    if via == "api":
        return f"/api/v1/sessions/{session_id}/report?format=md" + (f"&run={run_id}" if run_id else "")
    return f"manage.py export_report {session_id}" + (f" --run {run_id}" if run_id else "") + " --format md -o -"


def pdf_refused(report: Report, via: ExportVia, exc: Exception) -> WorkRailError:
    """What a PDF stopped by its bounds (or by nobody waiting for it) answers."""
    markdown = markdown_instead(report, via)
    if isinstance(exc, Stopped):
        why = "its client disconnected" if exc.reason == "client" else "the dashboard is shutting down"
        return WorkRailError(
            ErrorCode.REPORT_STOPPED,
            f"The PDF report was stopped before it was finished: {why}.",
            "Ask for it again once the dashboard is running.",
            retryable=True,
            details={"reason": exc.reason},
        )
    details: dict[str, object] = {"markdownReport": markdown}
    if isinstance(exc, TooMuchText):
        details.update(reason="text", textChars=exc.chars, limitChars=exc.limit)
        why = f"its text ({exc.chars:,} characters) is more than a PDF lays out in time ({exc.limit:,})"
    elif isinstance(exc, Refused) and exc.reason == "deadline":
        details.update(reason="deadline", limitSeconds=settings.WORKRAIL_REPORT_PDF_SECONDS)
        why = f"laying it out took longer than {settings.WORKRAIL_REPORT_PDF_SECONDS} s (WORKRAIL_REPORT_PDF_SECONDS)"
    else:
        details.update(reason="memory", limitMb=settings.WORKRAIL_REPORT_PDF_MAX_MB)
        why = f"laying it out needed more than {settings.WORKRAIL_REPORT_PDF_MAX_MB} MB (WORKRAIL_REPORT_PDF_MAX_MB)"
    subject = f"run {report.run_id}" if report.run_id else f"session {report.session.session_id}"
    return WorkRailError(
        ErrorCode.REPORT_TOO_LARGE,
        f"The report of {subject} is too large for a PDF: {why}.",
        f"Get the same report as Markdown, which has no such bound: {markdown}"
        + ("" if report.run_id else "; or make a PDF of one run at a time (run=RUN_ID)")
        + ".",
        details=details,
    )


def produce(
    session_id: str,
    report_format: ReportFormat,
    via: ExportVia,
    run_id: str | None = None,
    on_run: Callable[[], None] | None = None,
    abandoned: Callable[[], bool] = lambda: False,
) -> Produced:
    """The report file of a session (or one of its runs), recorded in the session's log as exported.
    Unknown ids raise WorkRailError (NOT_FOUND); too many reports of a session, RATE_LIMITED; a PDF over
    its bounds, REPORT_TOO_LARGE; one nobody waits for any more (`abandoned()` turned true, or the
    dashboard is shutting down), REPORT_STOPPED."""
    report = build_report(session_id, run_id, on_run=on_run)
    # A PDF costs seconds of CPU: reports of one session share a bucket of the store's write limits
    # (their own, so reading a session out never spends what its agent may write).
    with write():
        ratelimit.take(f"report:{report.session.session_id}", what="reports of this session")
    try:
        data = render(report, report_format, abandoned)
    except (TooMuchText, Refused, Stopped) as exc:
        raise pdf_refused(report, via, exc) from None
    digest = digest_of(data)
    # A session deleted meanwhile (by cleanup) is not kept: there is no log left to record the export in.
    with contextlib.suppress(Session.DoesNotExist):
        record_export(report.stored, FORMATS[report_format][0], digest, via, run_id=report.run_id)
    return Produced(
        data=data,
        content_type=FORMATS[report_format][1],
        filename=filename_for(report, report_format),
        digest=digest,
        report=report,
    )
