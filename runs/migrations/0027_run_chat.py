"""Which of a person's agent chats a run belongs to, on its row (Run.client_name, Run.imported_at), so that its
pages read it with the run instead of looking through the event log: the MCP client that started it (its
run_started event's client_name) and, for a run started before its session was last imported here, when that
import was. Filled in here from the log for the runs already recorded, as the projector keeps them from now on.
Adding columns to runs_run touches no trigger (the append-only guard is on runs_event)."""

from django.db import migrations, models


def backfill(apps, schema_editor):  # type: ignore[no-untyped-def]
    Event, Run = apps.get_model("runs", "Event"), apps.get_model("runs", "Run")
    started = Event.objects.filter(kind="run_started").exclude(client_name="").values_list("data", "client_name")
    for data, client in started.iterator(chunk_size=2000):
        run_id = data.get("runId") if isinstance(data, dict) else None
        if run_id:
            Run.objects.filter(public_id=run_id).update(client_name=client)
    imports = Event.objects.filter(kind="session_imported").order_by("session_id", "seq")
    newest = dict(imports.values_list("session_id", "created_at"))  # the last of each session's wins
    for session_id, at in newest.items():
        Run.objects.filter(session_id=session_id, created_at__lt=at).update(imported_at=at)


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0026_event_client_name"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="client_name",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AddField(
            model_name="run",
            name="imported_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
