"""The HMAC keys that sign tokens, kept in $WORKRAIL_HOME/token_keys.json (mode 0600).

The first key signs; every listed key verifies, so a rotation does not invalidate tokens an agent
still holds. Rotation keeps the previous keys (up to KEEP_KEYS in all).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

KEYS_FILE = "token_keys.json"
KEEP_KEYS = 3
_lock = threading.Lock()
_cache: dict[Path, tuple[tuple[int, int], list[bytes]]] = {}


def _new_key() -> dict[str, str]:
    return {"secret": base64.b64encode(secrets.token_bytes(32)).decode(), "created": datetime.now(UTC).isoformat()}


def _write_new(path: Path, keys: list[dict[str, str]], *, replace: bool) -> None:
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"keys": keys}, handle, indent=2)
        if replace:
            os.replace(tmp_name, path)
        else:
            with contextlib.suppress(FileExistsError):  # another process created it first: use theirs
                os.link(tmp_name, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)


# Tokens are minted and checked several times per call; the key file changes only on rotation. So
# it is looked at (a stat) at most once per RECHECK_SECONDS, and at once when a token does not verify
# (`fresh=True`): a token signed by a key rotated in another process is then still recognised.
RECHECK_SECONDS = 1.0
_checked: dict[Path, float] = {}


def signing_keys(home: Path, *, fresh: bool = False) -> list[bytes]:
    """The keys, newest first; created on first use."""
    path = home / KEYS_FILE
    cached = _cache.get(path)
    if cached is not None and not fresh and time.monotonic() - _checked.get(path, 0.0) < RECHECK_SECONDS:
        return cached[1]
    with _lock:
        _checked[path] = time.monotonic()
        if not path.exists():
            _write_new(path, [_new_key()], replace=False)
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = _cache.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        data = json.loads(path.read_text(encoding="utf-8"))
        keys = [base64.b64decode(entry["secret"]) for entry in data["keys"]]
        _cache[path] = (stamp, keys)
        return keys


def rotate(home: Path) -> int:
    """Adds a new signing key in front; returns how many keys remain valid for verification."""
    path = home / KEYS_FILE
    signing_keys(home)
    with _lock:
        data = json.loads(path.read_text(encoding="utf-8"))
        keys = [_new_key(), *data["keys"]][:KEEP_KEYS]
        _write_new(path, keys, replace=True)
        _cache.pop(path, None)
        return len(keys)
