"""Serve the local dashboard on 127.0.0.1 and print how to connect an agent."""

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from runs.connect import connection_instructions


class Command(BaseCommand):
    help = "Start the WorkRail dashboard on 127.0.0.1 (loopback only) and print agent connection details."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, default=settings.DASHBOARD_PORT)

    def handle(self, *args: Any, port: int, **options: Any) -> None:
        info = connection_instructions()
        self.stdout.write(self.style.SUCCESS(f"WorkRail dashboard: http://127.0.0.1:{port}/"))
        self.stdout.write(f"Data directory: {settings.WORKRAIL_HOME}\n")
        self.stdout.write("Connect Claude Code:\n  " + info.claude_code + "\n")
        self.stdout.write(
            "Or add to an MCP client's JSON config (Claude Desktop, Cursor, ...):\n" + info.json_config + "\n"
        )
        # Bound to loopback only: the dashboard is for the person at this machine.
        call_command("runserver", f"127.0.0.1:{port}", use_reloader=False)
