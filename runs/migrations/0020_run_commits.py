"""The commit a run started on and the one it completed on (Run.start_commit, Run.end_commit), projected
from run_started and run_completed, which record them from now on. A run recorded before has its first
observation's commit as its start, as the projector reads such a run on a rebuild; its end is not known.

And whether a run's newest step waits for the user's confirmation (Run.waits_for_user, and
Session.waiting_for_user for a session with such a run in progress), kept by the projector from now on.
A run already waiting when this migration runs is told apart at its next step, or at once by
`manage.py rebuild_projections`."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def starts_from_the_observations(apps, schema_editor):  # type: ignore[no-untyped-def]
    Observation, Run = apps.get_model("runs", "Observation"), apps.get_model("runs", "Run")
    first = (
        Observation.objects.filter(run=OuterRef("pk"))
        .exclude(git_head_sha="")
        .order_by("pk")
        .values("git_head_sha")[:1]
    )
    observed = Observation.objects.exclude(git_head_sha="").values("run_id")
    Run.objects.filter(pk__in=observed).update(start_commit=Subquery(first))


class Migration(migrations.Migration):
    dependencies = [("runs", "0019_session_git_head")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="start_commit",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AddField(
            model_name="run",
            name="end_commit",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AddField(
            model_name="run",
            name="waits_for_user",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="session",
            name="waiting_for_user",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(starts_from_the_observations, migrations.RunPython.noop, elidable=True),
    ]
