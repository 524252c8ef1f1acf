"""WORKRAIL_HOME/config.toml: the settings in one file instead of every client's environment.

A key is the environment variable's name without its WORKRAIL_ prefix, in lower case (`retention_days`
for WORKRAIL_RETENTION_DAYS; `database_url` for DATABASE_URL), at the top level of the file, its value
typed as TOML types it. The environment wins over the file, so one client can still differ. The file is
optional; a file that is not valid TOML, a key nobody reads or a value of the wrong type stops the program
at start like a bad environment variable (env.py reads the values), with the file and the key named.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

FILE_NAME = "config.toml"
PREFIX = "WORKRAIL_"
UNPREFIXED = {"DATABASE_URL"}  # variables without the prefix that the file may set too
ENVIRONMENT_ONLY = {"WORKRAIL_HOME"}  # where the file itself is


def key_of(name: str) -> str:
    """The file's key for the environment variable `name`."""
    return (name if name in UNPREFIXED else name.removeprefix(PREFIX)).lower()


def name_of(key: str) -> str:
    """The environment variable a file's `key` stands for."""
    upper = key.upper()
    return upper if upper in UNPREFIXED else PREFIX + upper


@dataclass(frozen=True)
class SettingsFile:
    path: Path | None  # None: no home to look in (tests that build an Env by hand)
    exists: bool
    values: dict[str, object] = field(default_factory=dict)  # by environment variable name
    keys: dict[str, str] = field(default_factory=dict)  # environment variable name -> the key as written

    @classmethod
    def absent(cls) -> SettingsFile:
        return cls(path=None, exists=False)

    def where(self, name: str) -> str:
        """`key in /path/config.toml`, for messages about the value of `name`."""
        return f"{self.keys.get(name, key_of(name))} in {self.path}"

    def reject_unknown(self, known: Iterable[str]) -> None:
        """Fails on a key no setting reads, naming the closest known one."""
        names = sorted(set(known) - ENVIRONMENT_ONLY)
        unknown = [name for name in self.values if name not in names]
        if not unknown:
            return
        known_keys = [key_of(name) for name in names]
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(self.keys[name], known_keys, n=1)
            hints.append(f"{self.keys[name]} (did you mean {close[0]}?)" if close else self.keys[name])
        raise ImproperlyConfigured(
            f"{self.path}: unknown setting(s): {', '.join(hints)}. Known: {', '.join(sorted(known_keys))}."
        )


def read_settings_file(home: Path) -> SettingsFile:
    """The settings file in `home`, parsed; an absent file is an empty one."""
    path = home / FILE_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return SettingsFile(path=path, exists=False)
    except (OSError, UnicodeDecodeError) as exc:
        raise ImproperlyConfigured(f"{path} cannot be read: {exc}.") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ImproperlyConfigured(f"{path} is not valid TOML: {exc}.") from None
    values: dict[str, object] = {}
    keys: dict[str, str] = {}
    for key, value in document.items():
        if isinstance(value, dict):
            raise ImproperlyConfigured(
                f"{path}: [{key}] is a table; settings are written at the top level, e.g. retention_days = 30."
            )
        if key != key.lower() or key.startswith(PREFIX.lower()):
            raise ImproperlyConfigured(
                f"{path}: write the key {key!r} as {key_of(key.upper())!r}: the variable's name without "
                f"{PREFIX}, in lower case."
            )
        name = name_of(key)
        if name in ENVIRONMENT_ONLY:
            raise ImproperlyConfigured(
                f"{path}: {key!r} cannot be set in the file it points to; set {name} in the environment."
            )
        values[name] = value
        keys[name] = key
    return SettingsFile(path=path, exists=True, values=values, keys=keys)
