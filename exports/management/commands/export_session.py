"""Write a session's bundle: a file another WorkRail store can import and carry on from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from exports.bundles import export_session_bundle
from exports.management.output import write_file, write_stdout
from runs.contract.errors import WorkRailError
from runs.management.acting import RecordingCommand
from runs.management.progress import progress_bar
from runs.store.setup import ensure_migrated


class Command(RecordingCommand):
    help = "Export a session as a bundle (JSON) that import_bundle can read on another machine. '-' writes to stdout."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("session_id", help="The session's id (ses_...), as the dashboard shows it.")
        parser.add_argument("--output", "-o", required=True, help="The file to write, or '-' for standard output.")

    def handle(self, *args: Any, **options: Any) -> None:
        output: str = options["output"]
        ensure_migrated()
        with progress_bar("Exporting events", None, self.stderr) as bar:
            try:
                data = export_session_bundle(options["session_id"], via="command", progress=bar.at)
            except WorkRailError as exc:
                raise CommandError(f"{exc.message} {exc.suggestion}") from None
        if output == "-":
            write_stdout(self.stdout, data)
        else:
            write_file(Path(output), data)
        where = "standard output" if output == "-" else output
        self.stderr.write(f"Exported {options['session_id']} ({len(data):,} bytes) to {where}.")
