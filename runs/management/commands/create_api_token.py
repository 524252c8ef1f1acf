"""Create (or list, or revoke) a token for the HTTP API at /api/v1/ (docs/api.md) and the MCP server over
HTTP (`manage.py mcp --http`, docs/http.md). A token acts for its owner: every event its requests record
says so. `--owner` gives one person several tokens (one per machine, say), each revoked on its own."""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from runs.contract.errors import WorkRailError
from runs.management.api_token_output import refusal, revoked, write_listing
from runs.store import api_tokens
from runs.store.setup import ensure_migrated


class Command(BaseCommand):
    help = (
        "Create a token for the MCP server over HTTP (`manage.py mcp --http`, docs/http.md) and the HTTP API "
        "(/api/v1/). It is printed once; only its SHA-256 digest is kept, in the database."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", help=f"A name for the token ({api_tokens.NAME_RULE}); default token-<n>.")
        parser.add_argument(
            "--owner",
            help=f"Whom the token acts for ({api_tokens.NAME_RULE}); default: the token's name. Give a person's "
            "several tokens the same owner.",
        )
        parser.add_argument(
            "--list", action="store_true", help="List the tokens (names, creation, last use, revocation)."
        )
        parser.add_argument(
            "--revoke", metavar="NAME", help="Revoke the token with this name (or the only one starting with it)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name: str | None = options["name"]
        revoke: str | None = options["revoke"]
        owner: str | None = options["owner"]
        if sum([name is not None or owner is not None, bool(options["list"]), revoke is not None]) > 1:
            raise CommandError("Use one of --name (with --owner), --list or --revoke at a time.")
        ensure_migrated()  # the tokens live in the store, which a new machine may not have made yet
        try:
            if options["list"]:
                self._list()
            elif revoke is not None:
                stored = api_tokens.revoke_matching(revoke)
                self.stdout.write(revoked(stored))
            else:
                self._create(name, owner)
        except WorkRailError as exc:
            raise CommandError(refusal(exc)) from None

    def _list(self) -> None:
        when_none = "No API tokens. Create one with `manage.py create_api_token --name NAME`."
        write_listing(self.stdout, api_tokens.listing(), when_none)

    def _create(self, name: str | None, owner: str | None) -> None:
        name, token = api_tokens.create(name, owner=owner)
        acting_for = f" for {owner}" if owner is not None and owner != name else ""
        self.stdout.write(f"Created API token '{name}'{acting_for}. It is shown only this once; store it now:\n")
        self.stdout.write(f"    {token}\n")
        self.stdout.write(
            f"Give it to an agent's client as the header 'Authorization: Bearer {token}' for the MCP server over "
            "HTTP (docs/http.md), or use it with the HTTP API:\n"
            f'    curl -H "Authorization: Bearer {token}" http://127.0.0.1:{settings.DASHBOARD_PORT}/api/v1/sessions'
        )
