"""`manage.py mcp` is normally served by the fast path in manage.py; this command makes the same
server reachable through `django-admin mcp` and call_command."""

from typing import Any

from django.core.management.base import BaseCommand

from runs.mcp.entry import main


class Command(BaseCommand):
    help = "Run the WorkRail MCP server on stdio (for agents: Claude Code, Claude Desktop, any MCP client)."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def handle(self, *args: Any, **options: Any) -> None:
        main([])
