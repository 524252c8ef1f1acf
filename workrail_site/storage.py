"""The WORKRAIL_HOME directory and the secrets kept in it (owner-only permissions)."""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from pathlib import Path


def ensure_home(home: Path) -> Path:
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    return home


def read_or_create_secret(path: Path, nbytes: int = 32) -> str:
    """Returns the secret stored at `path`, creating it with mode 0600 on first use.

    The secret is written to a private temporary file and hard-linked into place, so two processes
    starting at once agree on one secret and neither can read a half-written file.
    """
    if path.exists():
        return path.read_text(encoding="ascii").strip()
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mkstemp uses mode 0600
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(secrets.token_urlsafe(nbytes) + "\n")
        with contextlib.suppress(FileExistsError):  # another process won the race: use its secret
            os.link(tmp_name, path)
    finally:
        os.unlink(tmp_name)
    return path.read_text(encoding="ascii").strip()
