"""On PostgreSQL, trigram GIN indexes on the search entries' text, so resume_session's layers 1-2 and
the dashboard's search (`LIKE '%word%'` on identity_text and notes_text, already lower-cased) become
index scans instead of reading every entry. SQLite has no such index type: there this does nothing
and the same queries scan, with the same results.

pg_trgm ships with PostgreSQL (Debian's postgresql-contrib, pulled in by `postgresql`) and is a trusted
extension since PostgreSQL 13: the database's owner may create it. Where it cannot be created (an
older server, a role without CREATE on the database), the migration still succeeds, with a warning,
and search works unindexed.

The indexes are not in the models' state: Django's GinIndex would be created on SQLite too.
"""

import logging

from django.db import DatabaseError, migrations, transaction

logger = logging.getLogger("workrail")

INDEXES = {
    "runs_searchentry_identity_trgm": "identity_text",
    "runs_searchentry_notes_trgm": "notes_text",
}


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    try:
        with transaction.atomic(using=schema_editor.connection.alias):  # a savepoint: a refusal leaves the rest
            schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except DatabaseError as exc:
        logger.warning("pg_trgm could not be created (%s): search on PostgreSQL runs without its index.", exc)
        return
    for name, column in INDEXES.items():
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON runs_searchentry USING gin ({column} gin_trgm_ops)"
        )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("runs", "0008_sharing_events")]
    operations = [migrations.RunPython(create, drop)]
