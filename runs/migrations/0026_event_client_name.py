"""Which MCP client made each event (Event.client_name): its declared name, so that the dashboard can say
which of a person's agent chats a message goes to. Blank for the events recorded before."""

from django.db import migrations, models


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
    ]
