"""Which MCP client made each event (Event.client_name): its declared name, so that the dashboard can say
which of a person's agent chats a message goes to. Blank for the events recorded before."""

import importlib

from django.db import migrations, models

# SQLite adds a column with a default by rebuilding the table, which drops its triggers: 0017 puts back the
# guard that refuses any UPDATE of an event, and so must every migration that adds a column to it.
actors = importlib.import_module("runs.migrations.0017_actors_and_token_owners")


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0025_admin_step_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="event",
            name="client_name",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.RunPython(actors.restore_append_only_guard, migrations.RunPython.noop),
    ]
