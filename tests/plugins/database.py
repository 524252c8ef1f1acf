"""The rows Django's post_migrate handlers make, put back in two inserts after each flush of the test database.

A test on the transactional database (the live server of the browser tests, the in-process MCP server) ends
with a flush of every table, and Django then sends post_migrate, whose handlers (contenttypes and auth)
rebuild every content type and permission with several queries per app: most of such a test's teardown.
What they make does not change within a test process, so the first flush of each database runs them and
keeps their rows; every later flush inserts those rows back as they were (same ids, so the content-type
cache stays true). Should anything else listen to post_migrate, every flush sends the signal as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.management import create_permissions, rename_permissions_after_model_rename
from django.contrib.contenttypes.management import create_contenttypes
from django.core.management import sql
from django.core.management.commands import flush
from django.db.models.signals import post_migrate

# The handlers whose whole effect is the rows kept here (a rename handler does nothing without a migration plan).
REPLAYABLE = {create_contenttypes, create_permissions, rename_permissions_after_model_rename}

_kept: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}


def only_replayable_handlers() -> bool:
    """Whether every post_migrate handler, for any app, is one of REPLAYABLE."""
    for app_config in apps.get_app_configs():
        sync_receivers, async_receivers = post_migrate._live_receivers(app_config)
        if async_receivers or any(receiver not in REPLAYABLE for receiver in sync_receivers):
            return False
    return True


def emit_post_migrate_after_flush(verbosity: int, interactive: bool, db: str, **kwargs: Any) -> None:
    """Stands for django.core.management.sql.emit_post_migrate_signal in the flush command."""
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType

    if not only_replayable_handlers():
        sql.emit_post_migrate_signal(verbosity, interactive, db, **kwargs)
        return
    kept = _kept.get(db)
    if kept is None:
        sql.emit_post_migrate_signal(verbosity, interactive, db, **kwargs)
        _kept[db] = (list(ContentType.objects.using(db).values()), list(Permission.objects.using(db).values()))
        return
    content_types, permissions = kept
    ContentType.objects.clear_cache()
    ContentType.objects.using(db).bulk_create([ContentType(**row) for row in content_types])
    Permission.objects.using(db).bulk_create([Permission(**row) for row in permissions])


@pytest.fixture(autouse=True, scope="session")
def _post_migrate_rows_put_back_after_flush() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(flush, "emit_post_migrate_signal", emit_post_migrate_after_flush)
        yield
