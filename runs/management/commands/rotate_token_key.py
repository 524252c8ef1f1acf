"""Start signing tokens with a new key; tokens signed with the previous keys stay valid."""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from runs.store.token_keys import KEEP_KEYS, rotate


class Command(BaseCommand):
    help = f"Rotate the token signing key (the previous {KEEP_KEYS - 1} keys still verify)."

    def handle(self, *args: Any, **options: Any) -> None:
        valid = rotate(settings.WORKRAIL_HOME)
        self.stdout.write(f"New signing key in place; {valid} key(s) accepted for verification.")
