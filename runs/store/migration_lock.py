"""One process at a time applies migrations to a store.

Every `manage.py mcp` migrates its store at start-up. Two of them started at once on a new store
(an agent and its sub-agent, two clients, a test) would both create the same tables, and the loser
failed its whole start-up ("table ... already exists"): every call it got answered INTERNAL_ERROR
until it was restarted. Holding this lock, the second one finds the migrations applied and moves on.

SQLite: an advisory lock (flock) on a file beside the database, created 0600 like the database's
own -wal and -shm files, so every process that opens the same file shares it. PostgreSQL: a
session-level advisory lock on the connection that migrates.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from django.db import connections
from django.db.backends.sqlite3.base import DatabaseWrapper as SQLiteConnection

LOCK_SUFFIX = ".migrate-lock"
POSTGRES_LOCK_KEY = 0x57524D49  # "WRMI": the key of WorkRail's migration lock among advisory locks


@contextlib.contextmanager
def migration_lock(alias: str = "default") -> Iterator[None]:
    connection = connections[alias]
    if connection.vendor == "postgresql":
        with _postgres_lock(alias):
            yield
    elif isinstance(connection, SQLiteConnection) and not connection.is_in_memory_db():
        with _file_lock(str(connection.settings_dict["NAME"]) + LOCK_SUFFIX):
            yield
    else:
        yield


@contextlib.contextmanager
def _file_lock(path: str) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: no flock; concurrent first starts stay a (rare) race there
        yield
        return
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)  # waits while another process migrates
        yield
    finally:
        os.close(descriptor)  # releases the lock


@contextlib.contextmanager
def _postgres_lock(alias: str) -> Iterator[None]:
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [POSTGRES_LOCK_KEY])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [POSTGRES_LOCK_KEY])
