"""Import a session bundle made by export_session (on this machine or another)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from exports.bundles import import_session_bundle, max_bundle_bytes
from runs.contract.errors import WorkRailError
from runs.management.acting import RecordingCommand
from runs.management.progress import progress_bar
from runs.store.setup import ensure_migrated
from workflows_app.sources import FileTooLarge, NotARegularFile, read_bounded


class Command(RecordingCommand):
    help = (
        "Import a session bundle as a new session ('-' reads standard input). The whole file is checked "
        "first; a damaged, edited, newer or inconsistent bundle is refused and nothing is written."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="The bundle file, or '-' for standard input.")
        parser.add_argument(
            "--copy",
            action="store_true",
            help="Import a bundle whose session is here already (BUNDLE_ALREADY_IMPORTED) as a separate copy.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        raw = self._read(options["file"])
        ensure_migrated()  # a new machine's first command may well be this one
        with progress_bar("Importing events", None, self.stderr) as bar:
            try:
                result = import_session_bundle(raw, via="command", as_copy=options["copy"], progress=bar.at)
            except WorkRailError as exc:
                raise CommandError(f"[{exc.code.value}] {exc.message} {exc.suggestion}") from None
        session = result.session
        ids = "its ids kept" if result.kept_ids else "new ids (the original ids are in use here)"
        self.stdout.write(
            f"Imported session {session.public_id} with {ids}: {result.runs} run(s), {result.events} events, "
            f"{result.workflows_added} pinned workflow(s) added."
        )
        self.stdout.write(
            f"Open it at /sessions/{session.public_id}/ on the dashboard; agents find it with resume_session."
        )

    def _read(self, name: str) -> bytes:
        limit = max_bundle_bytes()
        if name == "-":  # one byte past the limit is enough for the service to refuse it as too large
            return sys.stdin.buffer.read(limit + 1)
        try:
            return read_bounded(Path(name), limit)
        except FileTooLarge:
            raise CommandError(
                f"[BUNDLE_TOO_LARGE] {name} is larger than {limit:,} bytes (WORKRAIL_BUNDLE_MAX_MB). "
                "Raise WORKRAIL_BUNDLE_MAX_MB for this import if you trust the file."
            ) from None
        except NotARegularFile as exc:
            raise CommandError(f"{name} is {exc.what}, not a bundle file.") from None
        except OSError as exc:
            raise CommandError(f"Could not read {name}: {exc.strerror}.") from None
