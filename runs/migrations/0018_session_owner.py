"""Who started each session (Session.owner): the actor of its session_created event, projected.

A session made before owners were recorded keeps "": made on this machine, usable by anyone on the store."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def owners_from_the_log(apps, schema_editor):  # type: ignore[no-untyped-def]
    Event, Session = apps.get_model("runs", "Event"), apps.get_model("runs", "Session")
    created = Event.objects.filter(session=OuterRef("pk"), kind="session_created").exclude(actor="").values("actor")[:1]
    starters = Event.objects.filter(kind="session_created").exclude(actor="").values("session_id")
    Session.objects.filter(pk__in=starters).update(owner=Subquery(created))


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
    ]
