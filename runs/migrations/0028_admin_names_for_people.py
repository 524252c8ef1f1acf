"""The admin names its tables as a person would (friction60a 17): answer tokens, step notes, workflow copies,
branch summaries, questions the agent went past. Names only: no column or table changes."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0027_run_chat"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="attempt",
            options={"verbose_name": "answer token", "verbose_name_plural": "answer tokens"},
        ),
        migrations.AlterModelOptions(
            name="gap",
            options={
                "verbose_name": "question the agent went past",
                "verbose_name_plural": "questions the agent went past",
            },
        ),
        migrations.AlterModelOptions(
            name="output",
            options={"verbose_name": "step note", "verbose_name_plural": "step notes"},
        ),
        migrations.AlterModelOptions(
            name="pinnedworkflow",
            options={"verbose_name": "workflow copy", "verbose_name_plural": "workflow copies"},
        ),
        migrations.AlterModelOptions(
            name="runsynthesis",
            options={"verbose_name": "branch summary", "verbose_name_plural": "branch summaries"},
        ),
    ]
