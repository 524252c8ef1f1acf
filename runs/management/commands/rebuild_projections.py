"""Rebuild sessions, runs, nodes, attempts, acks, outputs and the rest from the append-only event log."""

import time
from typing import Any

from django.core.management.base import CommandError

from runs.management.acting import RecordingCommand
from runs.store.rebuild import EventLogGap, rebuild_projections

PROGRESS_EVERY_S = 1.0


class Command(RecordingCommand):
    help = (
        "Rebuild all projections from the event log, one session at a time (each in its own short "
        "transaction: agents can keep working meanwhile)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        started = last = time.monotonic()

        def progress(done: int, total: int, events: int) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= PROGRESS_EVERY_S or done == total:
                last = now
                self.stderr.write(f"  {done}/{total} sessions ({done * 100 // max(total, 1)}%), {events} events")

        try:
            counts = rebuild_projections(progress)
        except EventLogGap as exc:
            raise CommandError(
                f"{exc}. Sessions before it were rebuilt; that session and those after it were not. "
                "Restore the database from a backup, or export the damaged session's events for a report."
            ) from None
        seconds = time.monotonic() - started
        self.stdout.write(
            f"Rebuilt projections from {counts['events']} events in {counts['sessions']} sessions ({seconds:.1f} s)."
        )
