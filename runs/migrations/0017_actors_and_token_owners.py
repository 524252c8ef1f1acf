"""Who made each event (Event.actor, Event.door) and whom each API token acts for (ApiToken.owner).

Events recorded before keep "" in both: made by a local process, as they were. A token made before
owners existed is its own owner, so what it does stays told apart from other tokens' work."""

import importlib

from django.db import migrations, models
from django.db.models import F

append_only = importlib.import_module("runs.migrations.0002_event_append_only_trigger")


def restore_append_only_guard(apps, schema_editor):  # type: ignore[no-untyped-def]
    """SQLite adds a column with a default by rebuilding the table, which drops its triggers: put back the
    guard of 0002 that refuses any UPDATE of an event. (PostgreSQL alters the table in place.)"""
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(append_only.SQLITE_CREATE)


def tokens_own_themselves(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("runs", "ApiToken").objects.update(owner=F("name"))


class Migration(migrations.Migration):
    dependencies = [("runs", "0016_event_kind_index")]

    operations = [
        migrations.AddField(
            model_name="event",
            name="actor",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AddField(
            model_name="event",
            name="door",
            field=models.CharField(blank=True, default="", max_length=16),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="owner",
            field=models.CharField(default="", max_length=64),
            preserve_default=False,
        ),
        migrations.RunPython(restore_append_only_guard, migrations.RunPython.noop),
        migrations.RunPython(tokens_own_themselves, migrations.RunPython.noop, elidable=True),
    ]
