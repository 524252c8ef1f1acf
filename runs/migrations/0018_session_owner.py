"""Who started each session (Session.owner): the actor of its session_created event, projected.

A session made before owners were recorded keeps "": made on this machine, usable by anyone on the store.

Also puts back SQLite's append-only trigger on events: 0017 added columns to runs_event, which Django does on
SQLite by copying the table into a new one, and the copy lost the trigger (migration 0002)."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def owners_from_the_log(apps, schema_editor):  # type: ignore[no-untyped-def]
    Event, Session = apps.get_model("runs", "Event"), apps.get_model("runs", "Session")
    created = Event.objects.filter(session=OuterRef("pk"), kind="session_created").exclude(actor="").values("actor")[:1]
    starters = Event.objects.filter(kind="session_created").exclude(actor="").values("session_id")
    Session.objects.filter(pk__in=starters).update(owner=Subquery(created))


SQLITE_APPEND_ONLY = """
CREATE TRIGGER IF NOT EXISTS runs_event_no_update BEFORE UPDATE ON runs_event
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
"""


def events_append_only_again(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "sqlite":  # PostgreSQL's ALTER TABLE kept its trigger
        schema_editor.execute(SQLITE_APPEND_ONLY)


class Migration(migrations.Migration):
    dependencies = [("runs", "0017_actors_and_token_owners")]

    operations = [
        migrations.AddField(
            model_name="session",
            name="owner",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AddIndex(
            model_name="session",
            index=models.Index(condition=~models.Q(owner=""), fields=["owner", "-updated_at"], name="session_by_owner"),
        ),
        migrations.AddIndex(
            model_name="event",
            index=models.Index(
                condition=~models.Q(actor=""), fields=["session", "actor"], name="event_actor_per_session"
            ),
        ),
        migrations.RunPython(owners_from_the_log, migrations.RunPython.noop, elidable=True),
        migrations.RunPython(events_append_only_again, migrations.RunPython.noop),
    ]
