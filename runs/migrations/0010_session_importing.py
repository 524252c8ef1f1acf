"""Session.importing: a session an import is still writing, in short transactions, hidden until it is
whole (runs/store/staged.py). SearchEntry.objects leaves out the entries of such sessions; the default
manager (`every_row`, used by runs/store/statements.py and deletions) still sees them."""

import django.db.models.manager
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0009_search_trigram_indexes"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="searchentry",
            options={"default_manager_name": "every_row"},
        ),
        migrations.AlterModelManagers(
            name="searchentry",
            managers=[
                ("every_row", django.db.models.manager.Manager()),
            ],
        ),
        migrations.AddField(
            model_name="session",
            name="importing",
            field=models.BooleanField(default=False),
        ),
        migrations.AddIndex(
            model_name="session",
            index=models.Index(
                condition=models.Q(("importing", True)), fields=["updated_at"], name="session_importing"
            ),
        ),
    ]
