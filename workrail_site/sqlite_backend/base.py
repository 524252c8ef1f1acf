"""See the package docstring."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.backends.sqlite3 import base

from workrail_site.storage import prepare_sqlite_file


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        prepare_sqlite_file(self.settings_dict["NAME"], settings.WORKRAIL_HOME)
        return super().get_new_connection(conn_params)
