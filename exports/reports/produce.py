"""Making a report file and recording it: what the command, the dashboard and the API all call."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from django.conf import settings

from exports.records import ExportVia, digest_of, record_export
from exports.reports import html_report, markdown_report
from exports.reports.data import Report, build_report
from exports.reports.limits import UNWATCHED, Checked, Refused, Stopped, Watch
from exports.reports.paper_budget import TooMuchText
from exports.reports.pdf import bounded_pdf
from exports.reports.pdf_support import PdfUnavailable
from exports.reports.refusals import refused, unavailable
from runs.models import Session
from runs.readmodels import naming
from runs.store import ratelimit
from runs.store.journal import write

logger = logging.getLogger("workrail.reports")

ReportFormat = Literal["md", "pdf"]
FORMATS: dict[str, tuple[Literal["markdown", "pdf"], str, str]] = {
    # format: (what the export record says, content type, file extension)
    "md": ("markdown", "text/markdown; charset=utf-8", "md"),
    "pdf": ("pdf", "application/pdf", "pdf"),
}


@dataclass(frozen=True)
class Produced:
    data: bytes
    content_type: str
    filename: str
    digest: str
    report: Report


def filename_for(report: Report, report_format: ReportFormat) -> str:
    """Named as people name the session (runs/readmodels/naming.py: its key, else its title, else its id):
    "MR-42-report.pdf"; a run's report adds the run's place in the session, "MR-42-run-2-report.pdf"."""
    session = report.session
    stem = naming.file_stem(session.session_key, session.title, session.session_id)
    if report.run_id:
        numbers = {run.run_id: number for number, run in enumerate(report.detail.runs, start=1)}
        stem += f"-run-{numbers.get(report.run_id, 1)}"
    return f"{stem}-report.{FORMATS[report_format][2]}"


def render(report: Report, report_format: ReportFormat, watch: Watch = UNWATCHED) -> bytes:
    """The report's file, within `watch` (a PDF also within its memory cap): raises what limits.Watch,
    paper_budget.fit and renderer.render raise when over a bound."""
    if report_format == "pdf":
        return bounded_pdf(html_report.render(report), watch)
    return markdown_report.render(report).encode("utf-8")


def watched(report: Report, watch: Watch) -> Report:
    """`report` with its branches' steps and session notes checking `watch` as they are formatted, one by one."""
    listed = {
        run_id: [dataclasses.replace(branch, steps=Checked(branch.steps, watch)) for branch in branches]
        for run_id, branches in report.sections.items()
    }
    return dataclasses.replace(report, sections=listed, session_notes=Checked(report.session_notes, watch))


def produce(
    session_id: str,
    report_format: ReportFormat,
    via: ExportVia,
    run_id: str | None = None,
    on_run: Callable[[], None] | None = None,
    abandoned: Callable[[], bool] = lambda: False,
) -> Produced:
    """The report file of a session (or one of its runs), recorded in the session's log as exported.
    Unknown ids raise WorkRailError (NOT_FOUND); too many reports of a session, RATE_LIMITED; a report
    over its bounds (settings.WORKRAIL_REPORT_SECONDS, a PDF's budget and memory cap), REPORT_TOO_LARGE;
    one nobody waits for any more (`abandoned()` turned true, or the dashboard is shutting down),
    REPORT_STOPPED; a PDF on a machine without Pango, PDF_UNAVAILABLE."""
    watch = Watch(settings.WORKRAIL_REPORT_SECONDS, abandoned)

    def each_run() -> None:
        watch.check()
        if on_run is not None:
            on_run()

    try:
        report = build_report(session_id, run_id, on_run=each_run)
        # A PDF costs seconds of CPU: reports of one session share a bucket of the store's write limits
        # (their own, so reading a session out never spends what its agent may write).
        with write():
            ratelimit.take(f"report:{report.session.session_id}", what="reports of this session")
        data = render(watched(report, watch), report_format, watch)
    except (TooMuchText, Refused, Stopped) as exc:
        spent = watch.seconds - watch.remaining()
        reason = getattr(exc, "reason", "text")
        subject = f"run {run_id}" if run_id else f"session {session_id}"
        logger.warning(
            "The %s report of %s was stopped after %.1f s (%s): %s.", report_format, subject, spent, reason, exc
        )
        raise refused(session_id, run_id, report_format, via, exc) from None
    except PdfUnavailable as exc:
        logger.warning("A PDF report was asked for, but this machine cannot make PDFs: %s", exc.problem)
        raise unavailable(session_id, run_id, via, exc) from None
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
