"""`manage.py mcp` is normally served by the fast path in manage.py; this command makes the same
server reachable through `django-admin mcp` and call_command."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from runs.mcp.entry import main


class Command(BaseCommand):
    help = (
        "Run the WorkRail MCP server on stdio (for agents: Claude Code, Claude Desktop, any MCP client), or with "
        "--http for a team over streamable HTTP (docs/http.md)."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
        parser.add_argument("--host", help="with --http: the address to listen on (default 127.0.0.1)")
        parser.add_argument("--port", help="with --http: the port (default 8766)")
        parser.add_argument("--workers", help="with --http: worker processes (default 1)")

    def handle(self, *args: Any, **options: Any) -> None:
        argv = ["--http"] if options["http"] else []
        for name in ("host", "port", "workers"):
            if options[name] is not None:
                argv += [f"--{name}", str(options[name])]
        main(argv)
