"""A database-level guard: nothing may UPDATE an event row, whatever code (or admin, or shell) tries.
Deletes stay possible because whole-session retention deletes a session's events."""

from django.db import migrations

SQLITE_CREATE = """
CREATE TRIGGER IF NOT EXISTS runs_event_no_update BEFORE UPDATE ON runs_event
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
"""
SQLITE_DROP = "DROP TRIGGER IF EXISTS runs_event_no_update;"
POSTGRES_CREATE = """
CREATE OR REPLACE FUNCTION runs_event_no_update() RETURNS trigger AS $$
BEGIN RAISE EXCEPTION 'events are append-only'; END; $$ LANGUAGE plpgsql;
CREATE TRIGGER runs_event_no_update BEFORE UPDATE ON runs_event
FOR EACH ROW EXECUTE FUNCTION runs_event_no_update();
"""
POSTGRES_DROP = (
    "DROP TRIGGER IF EXISTS runs_event_no_update ON runs_event; DROP FUNCTION IF EXISTS runs_event_no_update();"
)


def create(apps, schema_editor):
    sql = {"sqlite": SQLITE_CREATE, "postgresql": POSTGRES_CREATE}.get(schema_editor.connection.vendor)
    if sql:
        schema_editor.execute(sql)


def drop(apps, schema_editor):
    sql = {"sqlite": SQLITE_DROP, "postgresql": POSTGRES_DROP}.get(schema_editor.connection.vendor)
    if sql:
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("runs", "0001_initial")]
    operations = [migrations.RunPython(create, drop)]
