"""The commit HEAD was at where a session's work happens (Session.git_head_sha), beside its repository and
branch: projected from its newest observation_recorded event, as the projector now does."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def heads_from_the_observations(apps, schema_editor):  # type: ignore[no-untyped-def]
    Observation, Session = apps.get_model("runs", "Observation"), apps.get_model("runs", "Session")
    newest = Observation.objects.filter(session=OuterRef("pk")).order_by("-pk").values("git_head_sha")[:1]
    observed = Observation.objects.values("session_id")
    Session.objects.filter(pk__in=observed).update(git_head_sha=Subquery(newest))


class Migration(migrations.Migration):
    dependencies = [("runs", "0018_session_owner")]

    operations = [
        migrations.AddField(
            model_name="session",
            name="git_head_sha",
            field=models.CharField(blank=True, default="", max_length=64, verbose_name="git HEAD"),
        ),
        migrations.AlterField(
            model_name="session",
            name="workspace_path",
            field=models.CharField(blank=True, default="", max_length=1024, verbose_name="repository"),
        ),
        migrations.RunPython(heads_from_the_observations, migrations.RunPython.noop, elidable=True),
    ]
