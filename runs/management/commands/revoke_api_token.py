"""Revoke a local token of the HTTP API (docs/api.md): its requests get 401 from then on."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from runs.contract.errors import WorkRailError
from runs.management.api_token_output import refusal, revoked, write_listing
from runs.store import api_tokens
from runs.store.setup import ensure_migrated


class Command(BaseCommand):
    help = (
        "Revoke an API token by its name, or by the start of its name when only one live token has it. "
        "The token's row stays, with the time it was revoked (the admin shows it)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", nargs="?", help="The token's name, or the start of it.")
        parser.add_argument("--list", action="store_true", help="List the live tokens that can be revoked.")

    def handle(self, *args: Any, **options: Any) -> None:
        name: str | None = options["name"]
        if bool(options["list"]) == (name is not None):
            raise CommandError("Give the name of the token to revoke, or --list (one of them).")
        ensure_migrated()
        if name is None:  # --list
            self._list()
            return
        try:
            stored = api_tokens.revoke_matching(name)
        except WorkRailError as exc:
            raise CommandError(refusal(exc)) from None
        self.stdout.write(revoked(stored))

    def _list(self) -> None:
        write_listing(self.stdout, list(api_tokens.live().order_by("name")), "No live API tokens.")
