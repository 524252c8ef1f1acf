"""The SQLite write queue (workrail_site/sqlite_backend/write_queue.py): write transactions take an
flock on `<database>.write-lock` before BEGIN IMMEDIATE and let go of it after COMMIT or ROLLBACK.

The suite's own database is Django's in-memory SQLite (tests/settings.py), so these tests open
WorkRail's backend on files of their own, one connection per thread, as two processes would."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import OperationalError

from workrail_site import settings as real_settings
from workrail_site.sqlite_backend.base import DatabaseWrapper
from workrail_site.sqlite_backend.write_queue import LOCK_SUFFIX

HOLD_S = 0.3  # how long the first writer keeps its turn


def open_store(name: str, **options: object) -> DatabaseWrapper:
    config = real_settings._sqlite({"NAME": name})
    config["OPTIONS"] = {**config["OPTIONS"], **options}  # type: ignore[dict-item]
    settings_dict = {
        "ENGINE": "workrail_site.sqlite_backend",
        "ATOMIC_REQUESTS": False,
        "AUTOCOMMIT": True,
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False,
        "TIME_ZONE": None,
        "USER": "",
        "PASSWORD": "",
        "HOST": "",
        "PORT": "",
        "TEST": {},
        **config,
    }
    connection = DatabaseWrapper(settings_dict, alias=f"queue-{threading.get_ident()}")
    connection.ensure_connection()
    return connection


def begin(connection: DatabaseWrapper) -> None:
    """What transaction.atomic() does on entering its outermost block."""
    connection.set_autocommit(False, force_begin_transaction_with_broken_autocommit=True)
    connection.in_atomic_block = True


def end(connection: DatabaseWrapper, *, commit: bool = True) -> None:
    """What transaction.atomic() does on leaving it."""
    connection.in_atomic_block = False
    try:
        if commit:
            connection.commit()
        else:
            connection.rollback()
    finally:
        connection.set_autocommit(True)


def insert(connection: DatabaseWrapper, value: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO note (value) VALUES (%s)", [value])


def held(connection: DatabaseWrapper) -> bool:
    return connection.write_queue is not None and connection.write_queue.held


@pytest.fixture
def store(tmp_path: Path, django_db_blocker) -> Iterator[str]:
    name = str(tmp_path / "store.sqlite3")
    with django_db_blocker.unblock():
        connection = open_store(name)
        with connection.cursor() as cursor:
            cursor.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, value TEXT)")
        connection.close()
        yield name


@pytest.fixture
def connect(store: str) -> Iterator:
    opened: list[DatabaseWrapper] = []

    def _connect(**options: object) -> DatabaseWrapper:
        connection = open_store(store, **options)
        opened.append(connection)
        return connection

    yield _connect
    for connection in opened:
        connection.inc_thread_sharing()
        connection.close()


def test_the_lock_file_is_created_private(store):
    previous = os.umask(0o022)
    try:
        lock = Path(store + LOCK_SUFFIX)
        lock.unlink()
        open_store(store).close()
    finally:
        os.umask(previous)
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600


def test_a_waiting_writer_goes_promptly_when_the_first_lets_go(connect):
    first = connect()
    begin(first)
    insert(first, "first")
    assert held(first)
    began = threading.Event()
    went_at: list[float] = []
    errors: list[BaseException] = []

    def second_writer() -> None:
        try:
            second = connect()
            began.set()
            begin(second)  # waits for its turn
            went_at.append(time.perf_counter())
            insert(second, "second")
            end(second)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=second_writer)
    thread.start()
    assert began.wait(5)
    time.sleep(HOLD_S)
    assert not went_at, "the second writer began while the first held the queue"
    released_at = time.perf_counter()
    end(first)
    assert not held(first)
    thread.join(10)
    assert not errors, errors
    assert went_at, "the second writer never began"
    assert went_at[0] >= released_at  # its turn came with the first writer's end, not before
    with first.cursor() as cursor:
        cursor.execute("SELECT value FROM note ORDER BY id")
        assert [row[0] for row in cursor.fetchall()] == ["first", "second"]


def test_writers_in_several_threads_are_serialized_and_all_land(connect):
    inside = 0
    most_inside = 0
    guard = threading.Lock()
    errors: list[BaseException] = []

    def writer(number: int) -> None:
        nonlocal inside, most_inside
        try:
            connection = connect()
            for step in range(10):
                begin(connection)
                with guard:
                    inside += 1
                    most_inside = max(most_inside, inside)
                insert(connection, f"{number}-{step}")
                time.sleep(0.002)
                with guard:
                    inside -= 1
                end(connection)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(number,)) for number in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors, errors
    assert most_inside == 1
    reader = connect()
    with reader.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM note")
        assert cursor.fetchone()[0] == 40


def test_only_the_outermost_transaction_takes_the_queue(connect):
    connection = connect()
    begin(connection)
    savepoint = connection.savepoint()
    insert(connection, "nested")
    connection.savepoint_commit(savepoint)
    assert held(connection)  # releasing the savepoint keeps our turn
    savepoint = connection.savepoint()
    connection.savepoint_rollback(savepoint)
    assert held(connection)
    end(connection)
    assert not held(connection)


def test_rollback_lets_go(connect):
    first = connect()
    begin(first)
    insert(first, "rolled back")
    end(first, commit=False)
    assert not held(first)
    second = connect(timeout=0.5)
    begin(second)  # would time out if the first still held it
    end(second)


def test_a_failed_begin_lets_go(connect, monkeypatch):
    connection = connect()

    def refuse(self):
        raise connection.Database.OperationalError("disk I/O error")

    monkeypatch.setattr("django.db.backends.sqlite3.base.DatabaseWrapper._start_transaction_under_autocommit", refuse)
    with pytest.raises(connection.Database.OperationalError):
        begin(connection)
    assert not held(connection)


def test_a_failed_commit_lets_go(connect, monkeypatch):
    connection = connect()
    begin(connection)
    insert(connection, "x")

    def refuse(self):
        raise connection.Database.OperationalError("disk I/O error")

    monkeypatch.setattr("django.db.backends.base.base.BaseDatabaseWrapper._commit", refuse)
    connection.in_atomic_block = False
    with pytest.raises(connection.Database.OperationalError):
        connection.commit()
    assert not held(connection)
    monkeypatch.undo()
    connection.rollback()
    connection.set_autocommit(True)


def test_closing_in_a_transaction_lets_go(connect):
    first = connect()
    begin(first)
    insert(first, "lost")
    first.close()
    assert not held(first)
    second = connect(timeout=0.5)
    begin(second)
    end(second)


def test_a_writer_that_does_not_get_its_turn_in_time_gets_database_is_locked(connect):
    first = connect()
    begin(first)
    second = connect(timeout=0.2)
    with pytest.raises(OperationalError, match="database is locked"):
        begin(second)
    assert not held(second)
    end(first)
    begin(second)  # the abandoned wait let go of its place: the queue is free again
    end(second)


def test_a_killed_holder_frees_the_queue(store, connect):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({store + LOCK_SUFFIX!r}, os.O_RDONLY)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        result: list[float] = []

        def writer() -> None:
            connection = connect(timeout=10)
            begin(connection)
            result.append(time.perf_counter())
            end(connection)

        thread = threading.Thread(target=writer)
        thread.start()
        time.sleep(0.2)
        assert not result
        killed_at = time.perf_counter()
        holder.kill()
        thread.join(10)
        assert result and result[0] > killed_at  # its turn came once the holder died, before its own timeout
    finally:
        holder.kill()
        holder.wait()


def test_an_in_memory_database_has_no_queue(django_db_blocker):
    with django_db_blocker.unblock():
        connection = open_store(":memory:")
        assert connection.write_queue is None


def test_deferred_transactions_do_not_queue(connect):
    assert connect(transaction_mode="DEFERRED").write_queue is None
