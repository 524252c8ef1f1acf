"""Write a report of a session, or of one of its runs, as Markdown or PDF."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from exports.management.output import write_file, write_stdout
from exports.reports.produce import Produced, ReportFormat, produce
from runs.contract.errors import ErrorCode, WorkRailError
from runs.management.acting import RecordingCommand
from runs.management.progress import progress_bar
from runs.models import Run, Session

FORMAT_NAMES = {"md": "Markdown", "pdf": "PDF"}


class Command(RecordingCommand):
    help = (
        "Write a report of a session (or, with --run, of one of its runs) as Markdown or PDF: header, runs, "
        "branch graph, steps with notes, artifact tables, warnings, gaps and synthesis. '-' writes to stdout."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("session_id", help="The session's id (ses_...), as the dashboard shows it.")
        parser.add_argument("--run", dest="run_id", help="A run of the session (run_...): report that run only.")
        parser.add_argument("--format", choices=sorted(FORMAT_NAMES), required=True, help="md or pdf.")
        parser.add_argument("--output", "-o", required=True, help="The file to write, or '-' for standard output.")

    def handle(self, *args: Any, **options: Any) -> None:
        session_id: str = options["session_id"]
        run_id: str | None = options["run_id"]
        report_format: ReportFormat = options["format"]
        output: str = options["output"]
        runs = 1 if run_id else Run.objects.filter(session__public_id=session_id[:40]).count()
        # One unit per run read, one for the rendering (the long part of a PDF).
        with progress_bar(f"{FORMAT_NAMES[report_format]} report", runs + 1, self.stderr) as bar:
            try:
                produced = produce(session_id, report_format, "command", run_id=run_id, on_run=bar.advance)
            except WorkRailError as exc:
                raise CommandError(_what_to_do(exc, session_id)) from None
            bar.advance()
        if output == "-":
            self._to_stdout(produced, report_format)
        else:
            write_file(Path(output), produced.data)
        report = produced.report
        subject = (
            f"run {report.run_id} of session {report.session.session_id}"
            if report.run_id
            else (f"session {report.session.session_id}")
        )
        self.stderr.write(
            f"Wrote a {FORMAT_NAMES[report_format]} report of {subject}: {len(report.runs)} run(s), "
            f"{report.step_count} step(s), {len(produced.data):,} bytes ({produced.digest}) to "
            f"{'standard output' if output == '-' else output}."
        )

    def _to_stdout(self, produced: Produced, report_format: ReportFormat) -> None:
        if report_format == "md":
            self.stdout.write(produced.data.decode("utf-8"), ending="")
        else:
            write_stdout(self.stdout, produced.data)


def _what_to_do(error: WorkRailError, session_id: str) -> str:
    if error.code != ErrorCode.NOT_FOUND:
        return f"{error.message} {error.suggestion}"
    if not Session.objects.filter(public_id=session_id[:40]).exists():
        return (
            f"No session has the id '{session_id[:80]}'. List the sessions on the dashboard (manage.py dashboard, "
            "then /sessions/) or with GET /api/v1/sessions, and pass one of their ids (ses_...)."
        )
    return f"{error.message} {error.suggestion}"
