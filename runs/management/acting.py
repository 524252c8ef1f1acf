"""The door of management commands: whatever a command records (an import, an export, a rebuild, a cleanup)
is recorded as made by a command on this machine, by nobody in particular (runs/store/actors.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from runs.store.actors import Actor, Door, acting_as

COMMAND = Actor(owner="", door=Door.COMMAND)


class RecordingCommand(BaseCommand):
    """A command that writes to the store: it acts as COMMAND for its whole run."""

    def execute(self, *args: Any, **options: Any) -> Any:
        with acting_as(COMMAND):
            return super().execute(*args, **options)
