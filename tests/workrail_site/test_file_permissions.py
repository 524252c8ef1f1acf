"""WORKRAIL_HOME is 0700 and every file WorkRail keeps in it 0600, whatever the umask; a looser home
or file left from before is tightened, with a plain line on stderr; directories that are not
WorkRail's own are never changed."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from runs.store import token_keys
from tests.support.processes import run_manage
from workrail_site import storage

# A write through the ORM, then the modes of the database and of the -wal and -shm files SQLite keeps
# beside it while the connection is open.
WRITE_AND_STAT = """
import json, os
from django.contrib.auth.models import Group
from django.db import connection
Group.objects.create(name="permissions-check")
name = connection.settings_dict["NAME"]
print(json.dumps({suffix: os.stat(name + suffix).st_mode & 0o777 for suffix in ["", "-wal", "-shm"]}))
"""


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@contextlib.contextmanager
def umask(value: int) -> Iterator[None]:
    previous = os.umask(value)  # inherited by the manage.py subprocesses
    try:
        yield
    finally:
        os.umask(previous)


def write_and_stat(tmp_path: Path, **env: str) -> dict[str, int]:
    migrated = run_manage(tmp_path, "migrate", "--noinput", **env)
    assert migrated.returncode == 0, migrated.stderr
    result = run_manage(tmp_path, "shell", "-c", WRITE_AND_STAT, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.subprocess
@pytest.mark.parametrize("mask", [0o022, 0o000, 0o002])
def test_a_fresh_home_is_private_and_so_are_the_database_and_its_wal_files(tmp_path, mask):
    with umask(mask):
        modes = write_and_stat(tmp_path)
        home = tmp_path / "home"
        assert mode(home) == 0o700
        assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
        assert mode(home / "workrail.sqlite3") == 0o600
        assert mode(home / "secret_key") == 0o600
        created = run_manage(tmp_path, "create_api_token", "--name", "perm")
        assert created.returncode == 0, created.stderr
        assert not (home / "api_tokens.json").exists()  # API tokens live in the database


@pytest.mark.subprocess
def test_a_looser_home_and_store_files_are_tightened_with_a_warning(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    database = home / "workrail.sqlite3"
    connection = sqlite3.connect(database)
    connection.execute("CREATE TABLE t (x)")
    connection.commit()
    connection.close()
    loose = {
        database: 0o644,
        home / "workrail.sqlite3-wal": 0o664,
        home / "workrail.sqlite3-shm": 0o644,
        home / "secret_key": 0o644,
        home / "token_keys.json": 0o640,
        home / "api_tokens.json": 0o604,
    }
    (home / "workrail.sqlite3-wal").write_text("")  # empty: no frames to replay
    (home / "workrail.sqlite3-shm").write_text("")
    (home / "secret_key").write_text("s" * 44)
    token_keys.signing_keys(home)
    (home / "api_tokens.json").write_text('{"version": 1, "tokens": []}\n')  # left by an older version
    for path, loose_mode in loose.items():
        path.chmod(loose_mode)
    home.chmod(0o755)

    result = run_manage(tmp_path, "check")
    assert result.returncode == 0, result.stderr
    assert mode(home) == 0o700
    for path in loose:
        if path.name.endswith(("-wal", "-shm")):  # SQLite deletes them at its last close, after the chmod
            assert f"the file {path} was mode {loose[path]:04o}" in result.stderr
        else:
            assert mode(path) == 0o600, path
    assert f"the WORKRAIL_HOME directory {home} was mode 0755" in result.stderr
    assert "it is now 0700 (owner only)" in result.stderr
    assert f"the file {database} was mode 0644" in result.stderr
    assert f"the file {home / 'token_keys.json'} was mode 0640" in result.stderr
    assert "it is now 0600 (owner only)" in result.stderr
    assert "Traceback" not in result.stderr

    again = run_manage(tmp_path, "check")
    assert again.returncode == 0, again.stderr
    assert "WorkRail:" not in again.stderr  # said once, when something was changed


@pytest.mark.subprocess
def test_tightening_never_adds_permissions(tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "secret_key").write_text("s" * 44)
    (home / "secret_key").chmod(0o400)
    with umask(0):
        result = run_manage(tmp_path, "check")
    assert result.returncode == 0, result.stderr
    assert mode(home / "secret_key") == 0o400
    assert mode(home) == 0o700
    assert "WorkRail:" not in result.stderr


@pytest.mark.subprocess
def test_an_empty_existing_home_is_workrails_and_is_tightened(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o755)
    result = run_manage(tmp_path, "check")
    assert result.returncode == 0, result.stderr
    assert mode(home) == 0o700
    assert "was mode 0755" in result.stderr


@pytest.mark.subprocess
def test_the_users_own_home_directory_is_never_changed(tmp_path):
    user_home = tmp_path / "user"
    user_home.mkdir()
    (user_home / ".bashrc").write_text("")
    user_home.chmod(0o755)
    with umask(0):
        result = run_manage(tmp_path, "migrate", "--noinput", HOME=str(user_home), WORKRAIL_HOME=str(user_home))
        assert result.returncode == 0, result.stderr
        again = run_manage(tmp_path, "check", HOME=str(user_home), WORKRAIL_HOME=str(user_home))
    assert again.returncode == 0, again.stderr
    assert mode(user_home) == 0o755  # even once it holds WorkRail's files
    assert mode(user_home / "workrail.sqlite3") == 0o600
    assert mode(user_home / "secret_key") == 0o600
    assert "WORKRAIL_HOME directory" not in result.stderr + again.stderr


@pytest.mark.subprocess
def test_a_shared_directory_without_workrail_files_is_not_changed(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "notes.txt").write_text("someone else's")
    (shared / "notes.txt").chmod(0o644)
    shared.chmod(0o755)
    # --database: Django 6.0's `check` opens no connection without it (6.1's JSONField check does), and
    # the test needs the database file made.
    result = run_manage(tmp_path, "check", "--database", "default", WORKRAIL_HOME=str(shared))
    assert result.returncode == 0, result.stderr
    assert mode(shared) == 0o755
    assert mode(shared / "notes.txt") == 0o644
    assert mode(shared / "secret_key") == 0o600
    assert mode(shared / "workrail.sqlite3") == 0o600


@pytest.mark.subprocess
def test_a_database_named_by_database_url_is_created_private(tmp_path):
    database = tmp_path / "elsewhere.sqlite3"
    with umask(0):
        modes = write_and_stat(tmp_path, DATABASE_URL=f"sqlite:///{database}")
    assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
    assert mode(database) == 0o600


def test_the_default_home_is_always_workrails(tmp_path, capsys):
    default = tmp_path / ".workrail"
    default.mkdir()
    (default / "notes.txt").write_text("")
    default.chmod(0o750)
    storage.ensure_home(default, default=default)
    assert mode(default) == 0o700
    assert "was mode 0750" in capsys.readouterr().err


def test_a_filesystem_root_or_a_parent_of_the_users_home_is_not_workrails(tmp_path):
    assert not storage._is_workrails(Path("/"), None)
    assert not storage._is_workrails(Path.home(), None)
    assert not storage._is_workrails(Path.home().parent, None)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert storage._is_workrails(empty, None)


def test_files_written_later_are_private_under_an_open_umask(tmp_path):
    with umask(0):
        token_keys.signing_keys(tmp_path)
    assert mode(tmp_path / token_keys.KEYS_FILE) == 0o600


def test_a_symlinked_store_file_is_left_alone(tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    target = tmp_path / "target"
    target.write_text("x")
    target.chmod(0o644)
    (home / "secret_key").symlink_to(target)
    storage.ensure_home(home)
    assert mode(target) == 0o644
