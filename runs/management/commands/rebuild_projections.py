"""Rebuild sessions, runs, nodes, attempts, acks and outputs from the append-only event log."""

from typing import Any

from django.core.management.base import BaseCommand

from runs.rebuild import rebuild_projections


class Command(BaseCommand):
    help = "Rebuild all projections from the event log."

    def handle(self, *args: Any, **options: Any) -> None:
        counts = rebuild_projections()
        self.stdout.write(f"Rebuilt projections from {counts['events']} events in {counts['sessions']} sessions.")
