"""The admin names gaps in plain words (friction63a 15): questions a full-auto run skipped. Names only."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0028_admin_names_for_people"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="gap",
            options={
                "verbose_name": "question a full-auto run skipped",
                "verbose_name_plural": "questions a full-auto run skipped",
            },
        ),
    ]
