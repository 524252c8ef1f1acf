"""Strict readers for WORKRAIL_* environment variables.

Settings fail at start with a message naming the variable, the bad value and what is accepted,
rather than limping on with a default the user did not ask for.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class Env:
    """Reads variables from one mapping and remembers which WORKRAIL_* names were asked for."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = os.environ if environ is None else environ
        self._known: set[str] = set()

    @property
    def known(self) -> frozenset[str]:
        """Every name asked for so far, set or not."""
        return frozenset(self._known)

    def _raw(self, name: str) -> str | None:
        self._known.add(name)
        value = self._environ.get(name)
        if value is None or value.strip() == "":
            return None
        return value.strip()

    def text(self, name: str, default: str) -> str:
        value = self._raw(name)
        return default if value is None else value

    def flag(self, name: str, default: bool) -> bool:
        value = self._raw(name)
        if value is None:
            return default
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise ImproperlyConfigured(f"{name}={value!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off.")

    def integer(self, name: str, default: int, *, minimum: int, maximum: int) -> int:
        value = self._raw(name)
        if value is None:
            return default
        try:
            number = int(value)
        except ValueError:
            raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.") from None
        if not minimum <= number <= maximum:
            raise ImproperlyConfigured(f"{name}={number} is out of range: use {minimum} to {maximum}.")
        return number

    def choice(self, name: str, default: str, choices: Iterable[str]) -> str:
        options = list(choices)
        value = self._raw(name)
        if value is None:
            return default
        if value not in options:
            raise ImproperlyConfigured(f"{name}={value!r} is not one of: {', '.join(options)}.")
        return value

    def path(self, name: str, default: Path) -> Path:
        value = self._raw(name)
        if value is None:
            return default
        return Path(value).expanduser().resolve()

    def paths(self, name: str) -> list[Path]:
        """A os.pathsep-separated list of paths; empty entries are skipped."""
        value = self._raw(name)
        if value is None:
            return []
        return [Path(part).expanduser().resolve() for part in value.split(os.pathsep) if part.strip()]

    def reject_unknown(self, prefix: str = "WORKRAIL_") -> None:
        """Fail on WORKRAIL_* variables nobody reads: almost always a typo that would be silently ignored."""
        unknown = sorted(name for name in self._environ if name.startswith(prefix) and name not in self._known)
        if not unknown:
            return
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, sorted(self._known), n=1)
            hints.append(f"{name} (did you mean {close[0]}?)" if close else name)
        raise ImproperlyConfigured(
            "Unknown environment variable(s): " + ", ".join(hints) + ". Known: " + ", ".join(sorted(self._known)) + "."
        )
