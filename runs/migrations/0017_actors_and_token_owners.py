"""Who made each event (Event.actor, Event.door) and whom each API token acts for (ApiToken.owner).

Events recorded before keep "" in both: made by a local process, as they were. A token made before
owners existed is its own owner, so what it does stays told apart from other tokens' work."""

from django.db import migrations, models
from django.db.models import F


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
        migrations.RunPython(tokens_own_themselves, migrations.RunPython.noop, elidable=True),
    ]
