"""Bringing a store's tables up to date before a command uses it.

`manage.py mcp` migrates with this on its first launch (runs/mcp/readiness.py); the commands a person
runs on a new machine (`import_bundle` first of all, also `export_session`, `cleanup`) do the same,
quietly, so that "install, then import a colleague's bundle" works without a `migrate` step between.
"""

from __future__ import annotations

import io

from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from runs.store.migration_lock import migration_lock


def ensure_migrated() -> int:
    """Applies the pending migrations (under the store's migration lock, so two processes starting on
    a new store do not race to create its tables); returns how many were applied."""
    executor = MigrationExecutor(connection)
    if not executor.migration_plan(executor.loader.graph.leaf_nodes()):
        return 0
    log = io.StringIO()
    with migration_lock():
        call_command("migrate", interactive=False, verbosity=1, stdout=log, stderr=log)
    return sum(1 for line in log.getvalue().splitlines() if line.strip().startswith("Applying"))
