"""See the package docstring, and write_queue for the queue write transactions take their turn in."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.backends.sqlite3 import base

from workrail_site.sqlite_backend.write_queue import QueueTimeout, WriteQueue, create_lock_file
from workrail_site.storage import prepare_sqlite_file

# BEGIN takes SQLite's write lock up front only in these modes: only their transactions queue.
QUEUED_MODES = {"IMMEDIATE", "EXCLUSIVE"}


class DatabaseWrapper(base.DatabaseWrapper):
    write_queue: WriteQueue | None = None

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        prepare_sqlite_file(self.settings_dict["NAME"], settings.WORKRAIL_HOME)
        self._leave_write_queue()  # never held here (closing lets go of it); for certainty
        self.write_queue = self._new_write_queue()
        return super().get_new_connection(conn_params)

    def _new_write_queue(self) -> WriteQueue | None:
        name = self.settings_dict["NAME"]
        if (
            getattr(self, "transaction_mode", None) not in QUEUED_MODES  # set by get_connection_params
            or not isinstance(name, str)
            or not name
            or name.startswith("file:")
            or self.is_in_memory_db()
        ):
            return None
        create_lock_file(name)
        timeout = float(self.settings_dict["OPTIONS"].get("timeout", 5.0))  # sqlite3.connect's default
        return WriteQueue(name, timeout)

    def _start_transaction_under_autocommit(self) -> None:
        # Only the outermost atomic block comes here (nested ones are savepoints).
        queue = self.write_queue
        if queue is None:
            return super()._start_transaction_under_autocommit()  # type: ignore[misc]  # not in django-stubs
        try:
            queue.acquire()
        except QueueTimeout:
            # What SQLite says when its busy timeout runs out: the services turn it into STORE_BUSY.
            with self.wrap_database_errors:
                raise self.Database.OperationalError("database is locked") from None
        try:
            super()._start_transaction_under_autocommit()  # type: ignore[misc]  # not in django-stubs
        except BaseException:
            queue.release()
            raise

    def _commit(self) -> None:
        try:
            super()._commit()  # type: ignore[misc]  # not in django-stubs
        finally:
            self._leave_write_queue()

    def _rollback(self) -> None:
        try:
            super()._rollback()  # type: ignore[misc]  # not in django-stubs
        finally:
            self._leave_write_queue()

    def _close(self) -> None:
        try:
            super()._close()  # type: ignore[misc]  # not in django-stubs
        finally:
            self._leave_write_queue()

    def _leave_write_queue(self) -> None:
        if self.write_queue is not None:
            self.write_queue.release()
