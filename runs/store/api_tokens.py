"""Local API tokens for the HTTP API (/api/v1/): `manage.py create_api_token` makes one.

Only the SHA-256 digest of each token is kept, with its name and creation time, in
`$WORKRAIL_HOME/api_tokens.json` (mode 0600, replaced atomically). Verification compares digests
with hmac.compare_digest, and re-reads the file whenever it changes on disk, so a token created or
revoked while the dashboard runs takes effect at its next request.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings

from workrail_site.storage import ensure_home

FILE_NAME = "api_tokens.json"
FORMAT_VERSION = 1
TOKEN_BYTES = 32
MAX_TOKEN_CHARS = 200  # anything longer is not one of ours; no need to hash it
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
NAME_RULE = "1-64 characters: letters, digits, '.', '_' or '-', starting with a letter or digit"

logger = logging.getLogger("workrail.api")


class TokenStoreError(Exception):
    """The token file cannot be used, or a command cannot be done (the message says why and what to do)."""


@dataclass(frozen=True)
class StoredToken:
    name: str
    digest: str  # hex SHA-256 of the token
    created_at: str  # ISO 8601, UTC

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "sha256": self.digest, "createdAt": self.created_at}


def tokens_path(home: Path | None = None) -> Path:
    return Path(home if home is not None else settings.WORKRAIL_HOME) / FILE_NAME


def digest_of(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# --- reading -----------------------------------------------------------------------------------------


def _parse(text: str, path: Path) -> list[StoredToken]:
    try:
        data = json.loads(text)
        entries = data["tokens"]
        if not isinstance(entries, list):
            raise TypeError("'tokens' is not a list")
        return [
            StoredToken(name=str(e["name"]), digest=str(e["sha256"]), created_at=str(e["createdAt"])) for e in entries
        ]
    except (ValueError, TypeError, KeyError) as exc:
        raise TokenStoreError(
            f"{path} is not a valid API token file ({exc}). Move it aside and create new tokens with "
            "`manage.py create_api_token`."
        ) from None


def read_tokens(path: Path | None = None) -> list[StoredToken]:
    """The stored tokens ([] when the file does not exist); TokenStoreError when it is unreadable."""
    path = path or tokens_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise TokenStoreError(f"{path} cannot be read: {exc.strerror or exc}.") from None
    return _parse(text, path)


class _Cache:
    """The parsed token file, kept until the file changes (its mtime, size or inode)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.path: Path | None = None
        self.stamp: tuple[int, int, int] | None = None
        self.tokens: list[StoredToken] = []


_cache = _Cache()


def _current_tokens(path: Path) -> list[StoredToken]:
    try:
        info = path.stat()
        stamp: tuple[int, int, int] | None = (info.st_mtime_ns, info.st_size, info.st_ino)
    except OSError as exc:  # no file (yet), or one that cannot be read: no tokens
        stamp = None
        if not isinstance(exc, FileNotFoundError):
            logger.warning("API tokens unavailable: %s cannot be read: %s", path, exc.strerror or exc)
    with _cache.lock:
        if _cache.path == path and _cache.stamp == stamp:
            return _cache.tokens
        try:
            tokens = read_tokens(path) if stamp is not None else []
        except TokenStoreError as exc:
            logger.warning("API tokens unavailable: %s", exc)
            tokens = []
        _cache.path, _cache.stamp, _cache.tokens = path, stamp, tokens
        return tokens


def verify(token: str, *, home: Path | None = None) -> str | None:
    """The name of the stored token `token` is, or None. Every stored digest is compared, in constant
    time, so the answer takes as long whichever token (if any) matches."""
    if not token or len(token) > MAX_TOKEN_CHARS:
        return None
    presented = digest_of(token)
    found: str | None = None
    for stored in _current_tokens(tokens_path(home)):
        if hmac.compare_digest(presented, stored.digest) and found is None:
            found = stored.name
    return found


# --- writing -----------------------------------------------------------------------------------------


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One writer at a time (two `create_api_token` at once must not lose a token)."""
    ensure_home(path.parent)
    descriptor = os.open(path.with_name(f".{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def _write(path: Path, tokens: list[StoredToken]) -> None:
    """Writes the file atomically: a private (0600) temporary file in the same directory, renamed over it."""
    body = {"version": FORMAT_VERSION, "tokens": [t.as_dict() for t in tokens]}
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mkstemp uses mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(body, handle, indent=2)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, 0o600)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def check_name(name: str) -> str:
    if not NAME_PATTERN.match(name):
        raise TokenStoreError(f"'{name[:80]}' is not a valid token name: use {NAME_RULE}.")
    return name


def create(name: str | None = None, *, home: Path | None = None, now: datetime | None = None) -> tuple[str, str]:
    """Creates a token and stores its digest; returns (name, token). The token is not kept anywhere."""
    path = tokens_path(home)
    with _locked(path):
        tokens = read_tokens(path)
        taken = {t.name for t in tokens}
        if name is None:
            number = len(tokens) + 1
            while f"token-{number}" in taken:
                number += 1
            name = f"token-{number}"
        check_name(name)
        if name in taken:
            raise TokenStoreError(
                f"A token named '{name}' exists already. Choose another --name, or revoke it first (--revoke {name})."
            )
        token = secrets.token_urlsafe(TOKEN_BYTES)
        created = (now or datetime.now(UTC)).isoformat(timespec="seconds").replace("+00:00", "Z")
        _write(path, [*tokens, StoredToken(name=name, digest=digest_of(token), created_at=created)])
    return name, token


def revoke(name: str, *, home: Path | None = None) -> bool:
    """Removes the token named `name`; False when there is none."""
    path = tokens_path(home)
    with _locked(path):
        tokens = read_tokens(path)
        kept = [t for t in tokens if t.name != name]
        if len(kept) == len(tokens):
            return False
        _write(path, kept)
    return True


def listing(*, home: Path | None = None) -> list[dict[str, Any]]:
    """Names and creation times, never digests."""
    return [{"name": t.name, "createdAt": t.created_at} for t in read_tokens(tokens_path(home))]
