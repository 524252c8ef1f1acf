"""Strict readers for WORKRAIL_* environment variables, and for the same settings in WORKRAIL_HOME/config.toml.

Settings fail at start with a message naming the variable, the bad value and what is accepted,
rather than limping on with a default the user did not ask for. A setting may also be written in the
settings file (workrail_site/settings_file.py): the environment wins, and the file is held to the same
rules, its values typed as TOML types them (a number is a number, a flag true or false).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from workrail_site.settings_file import SettingsFile

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class Env:
    """Reads variables from one mapping and remembers which WORKRAIL_* names were asked for."""

    def __init__(self, environ: Mapping[str, str] | None = None, file: SettingsFile | None = None) -> None:
        self._environ = os.environ if environ is None else environ
        self._known: set[str] = set()
        self.file = file or SettingsFile.absent()
        self._from_file: set[str] = set()

    @property
    def known(self) -> frozenset[str]:
        """Every name asked for so far, set or not."""
        return frozenset(self._known)

    @property
    def from_file(self) -> frozenset[str]:
        """The names whose value came from the settings file (the environment did not set them)."""
        return frozenset(self._from_file)

    def use_file(self, file: SettingsFile) -> None:
        """Reads the settings not yet asked for from `file` too, where the environment does not set them."""
        self.file = file

    def _raw(self, name: str) -> str | None:
        self._known.add(name)
        value = self._environ.get(name)
        if value is None or value.strip() == "":
            return None
        return value.strip()

    def _filed(self, name: str, kinds: tuple[type, ...], what: str) -> object | None:
        """The file's value for `name` when the environment has none, checked to be one of `kinds`."""
        if name not in self.file.values:
            return None
        value = self.file.values[name]
        if isinstance(value, bool) != (bool in kinds) or not isinstance(value, kinds):
            raise ImproperlyConfigured(f"{self.file.where(name)}: {value!r} is not {what}.")
        if isinstance(value, list) and not all(isinstance(item, str) for item in value):
            raise ImproperlyConfigured(f"{self.file.where(name)}: {value!r} is not {what}.")
        self._from_file.add(name)
        return value

    def text(self, name: str, default: str, *, separator: str | None = None) -> str:
        """With a `separator`, the file may give a list of strings (joined with it) for the one string."""
        value = self._raw(name)
        if value is not None:
            return value
        if separator is None:
            filed = self._filed(name, (str,), "a string")
        else:
            filed = self._filed(name, (str, list), "a string or a list of strings")
            if isinstance(filed, list):
                filed = separator.join(filed)
        return default if filed is None or not str(filed).strip() else str(filed).strip()

    def flag(self, name: str, default: bool) -> bool:
        value = self._raw(name)
        if value is None:
            filed = self._filed(name, (bool,), "true or false")
            return default if filed is None else bool(filed)
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise ImproperlyConfigured(f"{name}={value!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off.")

    def integer(self, name: str, default: int, *, minimum: int, maximum: int) -> int:
        value = self._raw(name)
        label = name
        if value is None:
            filed = self._filed(name, (int,), "a whole number (written without quotes)")
            if filed is None:
                return default
            value, label = str(filed), self.file.where(name)
        try:
            number = int(value)
        except ValueError:
            raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.") from None
        if not minimum <= number <= maximum:
            raise ImproperlyConfigured(f"{label}={number} is out of range: use {minimum} to {maximum}.")
        return number

    def choice(self, name: str, default: str, choices: Iterable[str]) -> str:
        options = list(choices)
        value = self._raw(name)
        label = name
        if value is None:
            filed = self._filed(name, (str,), "a string")
            if filed is None:
                return default
            value, label = str(filed), self.file.where(name)
        if value not in options:
            raise ImproperlyConfigured(f"{label}={value!r} is not one of: {', '.join(options)}.")
        return value

    def path(self, name: str, default: Path) -> Path:
        value = self._raw(name)
        if value is None:
            filed = self._filed(name, (str,), "a path (a string)")
            if filed is None or not str(filed).strip():
                return default
            value = str(filed)
        return Path(value).expanduser().resolve()

    def paths(self, name: str) -> list[Path]:
        """A os.pathsep-separated list of paths (in the file, a list of strings); empty entries are skipped."""
        value = self._raw(name)
        if value is None:
            filed = self._filed(name, (list, str), "a list of paths")
            if filed is None:
                return []
            parts = filed if isinstance(filed, list) else str(filed).split(os.pathsep)
        else:
            parts = value.split(os.pathsep)
        return [Path(part).expanduser().resolve() for part in parts if part.strip()]

    def reject_unknown(self, prefix: str = "WORKRAIL_") -> None:
        """Fail on WORKRAIL_* variables nobody reads: almost always a typo that would be silently ignored.
        The same for the settings file's keys."""
        self.file.reject_unknown(self._known)
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
