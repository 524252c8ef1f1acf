"""A migrated SQLite store, made once per test process, copied into the WORKRAIL_HOME of a test that starts
`manage.py` processes on a store of its own but does not test how a new store is made.

Every `manage.py mcp` or `dashboard` started on an empty home applies all the migrations first (about 2 s of
CPU on SQLite, more than the rest of its start-up); a test that only needs a working store gets a copy of one
migrated here instead, with the same file and the same mode (0600). The first start itself stays tested on
empty homes: tests/e2e/test_mcp_stdio.py (it migrates, logging to stderr), test_concurrent_first_start.py (the
migration lock), test_crash_durability.py, tests/workrail_site/test_file_permissions.py and test_settings.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.processes import run_manage
from workrail_site.storage import DATABASE_FILE, ensure_home


@pytest.fixture(scope="session")
def migrated_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store file of a home that `manage.py migrate` brought up to date, in this test process."""
    root = tmp_path_factory.mktemp("migrated-store")
    migrated = run_manage(root, "migrate", "--noinput", "--verbosity", "0")
    assert migrated.returncode == 0, migrated.stderr
    return root / "home" / DATABASE_FILE


def seed_home(home: Path, store: Path) -> Path:
    """`home` (made 0700 as WorkRail makes it, if missing) holding a copy of the migrated `store`."""
    ensure_home(home)
    shutil.copy2(store, home / DATABASE_FILE)  # copy2 keeps the file's 0600
    return home


@pytest.fixture
def migrated_home(migrated_store: Path, tmp_path: Path) -> Path:
    """`tmp_path / "home"` holding an up-to-date store (a copy of `migrated_store`): the home that
    tests.support.processes and the e2e `launch` fixture give their processes."""
    return seed_home(tmp_path / "home", migrated_store)
