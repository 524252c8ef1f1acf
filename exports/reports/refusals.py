"""What a report over its bounds answers, through the door it was asked from: REPORT_TOO_LARGE with
where to get something smaller or cheaper (the Markdown report for a PDF; one run, or the session's
bundle, for a Markdown report), or REPORT_STOPPED when nobody waits for it any more."""

from __future__ import annotations

from typing import Any, Literal

from django.conf import settings

from exports.records import ExportVia
from exports.reports.limits import Refused, Stopped
from exports.reports.paper_budget import TooMuchText
from exports.reports.pdf_support import INSTALL, PdfUnavailable
from runs.contract.errors import ErrorCode, WorkRailError

OverBounds = TooMuchText | Refused | Stopped


def markdown_instead(session_id: str, run_id: str | None, via: ExportVia) -> str:
    """Where the same report is to be had as Markdown, through `via`."""
    if via == "dashboard":
        return f"/sessions/{session_id}/report.md" + (f"?run={run_id}" if run_id else "")
    if via == "api":
        return f"/api/v1/sessions/{session_id}/report?format=md" + (f"&run={run_id}" if run_id else "")
    return f"manage.py export_report {session_id}" + (f" --run {run_id}" if run_id else "") + " --format md -o -"


def bundle_instead(session_id: str, via: ExportVia) -> str:
    """Where the session's bundle (every event, as JSON: no formatting to pay for) is to be had."""
    if via == "dashboard":
        return f"/sessions/{session_id}/bundle.json"
    if via == "api":
        return f"/api/v1/sessions/{session_id}/bundle"
    return f"manage.py export_session {session_id}"


def unavailable(session_id: str, run_id: str | None, via: ExportVia, exc: PdfUnavailable) -> WorkRailError:
    """PDF_UNAVAILABLE: what to install for PDFs, and where the same report is as Markdown meanwhile."""
    markdown = markdown_instead(session_id, run_id, via)
    install = "; ".join(f"{system}: {command}" for system, command in INSTALL.items())
    return WorkRailError(
        ErrorCode.PDF_UNAVAILABLE,
        f"This machine cannot make PDFs: WeasyPrint needs the Pango library, which is missing ({exc.problem}).",
        f"Install Pango ({install}), then ask again; the same report as Markdown works now: {markdown}.",
        retryable=False,
        details={"install": dict(INSTALL), "markdownReport": markdown, "problem": exc.problem},
    )


def _why(exc: TooMuchText | Refused) -> tuple[str, dict[str, Any]]:
    if isinstance(exc, TooMuchText):
        why = f"its text ({exc.chars:,} characters) is more than a PDF lays out in time ({exc.limit:,})"
        return why, {"reason": "text", "textChars": exc.chars, "limitChars": exc.limit}
    if exc.reason == "deadline":
        seconds = settings.WORKRAIL_REPORT_SECONDS
        return f"making it took longer than {seconds} s (WORKRAIL_REPORT_SECONDS)", {
            "reason": "deadline",
            "limitSeconds": seconds,
        }
    megabytes = settings.WORKRAIL_REPORT_PDF_MAX_MB
    return f"laying it out needed more than {megabytes} MB (WORKRAIL_REPORT_PDF_MAX_MB)", {
        "reason": "memory",
        "limitMb": megabytes,
    }


def refused(
    session_id: str, run_id: str | None, report_format: Literal["md", "pdf"], via: ExportVia, exc: OverBounds
) -> WorkRailError:
    if isinstance(exc, Stopped):
        who = "its client disconnected" if exc.reason == "client" else "the dashboard is shutting down"
        return WorkRailError(
            ErrorCode.REPORT_STOPPED,
            f"The report was stopped before it was finished: {who}.",
            "Ask for it again once the dashboard is running.",
            retryable=True,
            details={"reason": exc.reason},
        )
    why, details = _why(exc)
    subject = f"run {run_id}" if run_id else f"session {session_id}"
    one_run = "" if run_id else "; or one run at a time (run=RUN_ID)"
    if report_format == "pdf":
        markdown = markdown_instead(session_id, run_id, via)
        details["markdownReport"] = markdown
        message = f"The report of {subject} is too large for a PDF: {why}."
        suggestion = f"Get the same report as Markdown, which costs far less: {markdown}{one_run}."
    else:
        bundle = bundle_instead(session_id, via)
        details["bundle"] = bundle
        message = f"The Markdown report of {subject} is too large to make in time: {why}."
        suggestion = f"Report one run at a time (run=RUN_ID), or get the session's bundle: {bundle}."
        if run_id:
            suggestion = f"Get the session's bundle, which holds everything unformatted: {bundle}."
    return WorkRailError(ErrorCode.REPORT_TOO_LARGE, message, suggestion, details=details)
