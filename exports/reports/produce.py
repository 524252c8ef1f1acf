"""Making a report file and recording it: what the command, the dashboard and the API all call."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from exports.records import ExportVia, digest_of, record_export
from exports.reports import html_report, markdown_report
from exports.reports.data import Report, build_report
from runs import ratelimit
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


def render(report: Report, report_format: ReportFormat) -> bytes:
    if report_format == "pdf":
        # Imported here: loading WeasyPrint takes a moment, and the dashboard or a command that never
        # makes a PDF should not pay for it at start.
        from exports.reports.pdf import render_pdf

        return render_pdf(html_report.render(report))
    return markdown_report.render(report).encode("utf-8")


def produce(
    session_id: str,
    report_format: ReportFormat,
    via: ExportVia,
    run_id: str | None = None,
    on_run: Callable[[], None] | None = None,
) -> Produced:
    """The report file of a session (or one of its runs), recorded in the session's log as exported.
    Unknown ids raise WorkRailError (NOT_FOUND); too many reports of a session, RATE_LIMITED."""
    report = build_report(session_id, run_id, on_run=on_run)
    # A PDF costs seconds of CPU: reports of one session share a bucket of the store's write limits
    # (their own, so reading a session out never spends what its agent may write).
    with write():
        ratelimit.take(f"report:{report.session.session_id}", what="reports of this session")
    data = render(report, report_format)
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
