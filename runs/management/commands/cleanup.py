"""Delete the sessions with no activity past retention, and the pinned workflows no run uses."""

from __future__ import annotations

import argparse
from typing import IO, Any, cast

from django.conf import settings
from django.core.management.base import CommandParser

from runs.management.acting import RecordingCommand
from runs.management.progress import progress_bar
from runs.store.retention import CleanupResult, cleanup, format_cutoff
from runs.store.setup import ensure_migrated

MAX_DAYS = 36_500  # as WORKRAIL_RETENTION_DAYS: beyond a century the cutoff date overflows nothing useful


def retention_days(text: str) -> int:
    """--older-than: a whole number of days, at least one (0 would delete what an agent is doing now)."""
    try:
        days = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of days, like 30, not {text!r}") from None
    if not 1 <= days <= MAX_DAYS:
        raise argparse.ArgumentTypeError(f"expected a number of days from 1 to {MAX_DAYS:,}, not {days}")
    return days


class Command(RecordingCommand):
    help = (
        "Delete whole sessions with no activity for WORKRAIL_RETENTION_DAYS days (or --older-than), and the "
        "pinned workflows no remaining run uses. Sessions are deleted in small batches, each in its own short "
        "transaction, so agents keep working; a session written to meanwhile is kept."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            type=retention_days,
            metavar="DAYS",
            help="Delete sessions with no activity for this many days (default: WORKRAIL_RETENTION_DAYS, "
            f"now {settings.WORKRAIL_RETENTION_DAYS}).",
        )
        parser.add_argument("--dry-run", action="store_true", help="Only count what would be deleted.")

    def handle(self, *args: Any, **options: Any) -> None:
        dry_run: bool = options["dry_run"]
        ensure_migrated()  # run from cron on a machine where no agent has started yet: nothing to delete
        # Rich writes to the raw stream: Django's wrapper would end each of its redraws with a newline.
        with progress_bar("Deleting expired sessions", None, cast(IO[str], self.stderr._out)) as bar:
            reported = 0

            def progress(done: int, total: int) -> None:
                nonlocal reported
                if done == 0:
                    bar.total(total)
                bar.advance(done - reported)
                reported = done

            result = cleanup(older_than_days=options["older_than"], dry_run=dry_run, progress=progress)
        self.stdout.write(report(result))


def report(result: CleanupResult) -> str:
    since = f"no activity since {format_cutoff(result.cutoff)} (retention {result.retention_days} days)"
    head = f"Dry run, nothing deleted. Would delete, {since}:" if result.dry_run else f"Deleted, {since}:"
    rows = [
        ("sessions", result.sessions),
        ("runs", result.runs),
        ("events", result.events),
        ("pinned workflows no run uses", result.pinned_workflows),
    ]
    lines = [head, *(f"  {label:<30}{count:>10,}" for label, count in rows)]
    if result.kept_meanwhile:
        lines.append(f"  Kept {result.kept_meanwhile:,} sessions written to during the cleanup.")
    if result.abandoned_imports:
        what = "Would remove" if result.dry_run else "Removed"
        lines.append(f"  {what} {result.abandoned_imports:,} imports that never finished (their processes stopped).")
    lines.append(f"  ({result.seconds:.1f} s)")
    return "\n".join(lines)
