"""A store that server subprocesses share, on the backend the suite runs on.

On SQLite it is the file in the test's WORKRAIL_HOME (the subprocesses' default). When the suite runs on
PostgreSQL (WORKRAIL_TEST_DATABASE_URL, see scripts/test-postgres) it is a fresh database on that
server, created for the test and dropped after it: the subprocesses get it as DATABASE_URL, so row
locks are exercised across processes the way several agents would on a team's server.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit


@dataclass
class SharedStore:
    home: Path
    url: str = ""  # the PostgreSQL database; "" for the SQLite file in `home`
    env: dict[str, str] = field(default_factory=dict)  # what to add to the subprocesses' environment

    @property
    def vendor(self) -> str:
        return "postgresql" if self.url else "sqlite"

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """The rows of one read-only query (plain SQL that both backends accept)."""
        if self.url:
            import psycopg

            with psycopg.connect(self.url) as connection:
                return connection.execute(sql).fetchall()
        with contextlib.closing(sqlite3.connect(self.home / "workrail.sqlite3", timeout=30)) as connection:
            return connection.execute(sql).fetchall()


@contextlib.contextmanager
def shared_store(home: Path) -> Iterator[SharedStore]:
    server = os.environ.get("WORKRAIL_TEST_DATABASE_URL", "")
    if not server.startswith(("postgres://", "postgresql://")):
        yield SharedStore(home)
        return
    import psycopg

    name = f"wr_e2e_{secrets.token_hex(6)}"
    parts = urlsplit(server)
    url = urlunsplit(parts._replace(path=f"/{name}"))
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield SharedStore(home, url, {"DATABASE_URL": url})
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
