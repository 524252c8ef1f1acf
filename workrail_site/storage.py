"""The WORKRAIL_HOME directory and the files kept in it, all owner-only.

Every file WorkRail writes under its home is created 0600 (the SQLite database, and SQLite then
gives its -wal, -shm and -journal files the mode of the database file; secret_key, token_keys.json;
api_tokens.json and its lock file, which older versions wrote and which are still tightened though no
longer read) and the home is created 0700, whatever the umask. At each start a looser mode left by an
older version or by hand is tightened, with one plain line on stderr saying what it was and what it
is now (settings load before logging is configured, so it is a print).

Which directories are tightened: only WorkRail's own. The home is WorkRail's when it is the default
(~/.workrail), when WorkRail creates it, or when it is empty or already holds a WorkRail file
(STORE_FILES); never the user's home directory itself, one of its parents or a filesystem root, even
when WORKRAIL_HOME points there. WorkRail's files are tightened wherever the home is. A database
named by DATABASE_URL outside the home is created 0600 but an existing one is left as it is.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import sys
import tempfile
from pathlib import Path

DATABASE_FILE = "workrail.sqlite3"
SQLITE_SIDECARS = ("-wal", "-shm", "-journal")
# Every file WorkRail itself writes under its home (a directory holding one of these is WorkRail's).
STORE_FILES = (
    DATABASE_FILE,
    *(DATABASE_FILE + suffix for suffix in SQLITE_SIDECARS),
    "secret_key",
    "token_keys.json",
    "api_tokens.json",
    ".api_tokens.json.lock",
)
HOME_MODE = 0o700
FILE_MODE = 0o600
_reported: set[str] = set()


def _warn(path: Path, kind: str, before: int, after: int) -> None:
    line = (
        f"WorkRail: the {kind} {path} was mode {before:04o} (other users could reach it); "
        f"it is now {after:04o} (owner only)."
    )
    if line not in _reported:
        _reported.add(line)
        print(line, file=sys.stderr, flush=True)


def _tighten(path: Path, kind: str) -> None:
    """Removes group and other permissions from `path` (never adds any), with a warning when there were some.
    Symbolic links are left alone: chmod would change whatever they point to."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode) or not info.st_mode & 0o077:
        return
    before = stat.S_IMODE(info.st_mode)
    after = before & 0o700
    try:
        os.chmod(path, after)
    except OSError as exc:
        print(
            f"WorkRail: the {kind} {path} is mode {before:04o} (other users can reach it) and could not be "
            f"changed ({exc.strerror or exc}); make it {after:04o} with chmod.",
            file=sys.stderr,
            flush=True,
        )
        return
    _warn(path, kind, before, after)


def _is_workrails(home: Path, default: Path | None) -> bool:
    resolved = home.resolve()
    if default is not None and resolved == default.resolve():
        return True
    user_home = Path.home().resolve()
    if resolved == user_home or resolved in user_home.parents or resolved == Path(resolved.anchor):
        return False
    try:
        return not any(home.iterdir()) or any((home / name).exists() for name in STORE_FILES)
    except OSError:
        return False


def ensure_home(home: Path, *, default: Path | None = None) -> Path:
    """Creates `home` (0700) or, when it is WorkRail's (see above), tightens it to 0700; tightens WorkRail's
    files in it to 0600. `default` is the default home, always WorkRail's own."""
    try:
        home.mkdir(mode=HOME_MODE, parents=True)  # the umask can only take bits away from 0700
    except FileExistsError:
        if _is_workrails(home, default):
            _tighten(home, "WORKRAIL_HOME directory")
    for name in STORE_FILES:
        _tighten(home / name, "file")
    return home


def create_private_file(path: Path) -> bool:
    """Creates `path` empty with mode 0600 when it does not exist (True), whatever the umask; False when
    it exists already, or cannot be created here (no such directory, no permission: SQLite then reports
    that as it would have)."""
    try:
        descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, FILE_MODE)
    except OSError:
        return False
    try:
        os.fchmod(descriptor, FILE_MODE)  # exactly 0600, even under an odd umask
    finally:
        os.close(descriptor)
    return True


def prepare_sqlite_file(name: object, home: Path) -> None:
    """Before Django's first connection: the SQLite database at `name` is created 0600 when missing, so
    SQLite gives its -wal and -shm files the same mode; inside `home` a looser one is tightened."""
    if not isinstance(name, str | Path) or not str(name) or str(name) == ":memory:" or str(name).startswith("file:"):
        return
    path = Path(name)
    if create_private_file(path):
        return
    with contextlib.suppress(OSError):
        if path.resolve().parent != home.resolve():
            return
    for candidate in [path, *(path.with_name(path.name + suffix) for suffix in SQLITE_SIDECARS)]:
        _tighten(candidate, "database file")


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
