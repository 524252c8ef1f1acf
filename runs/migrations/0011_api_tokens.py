"""API tokens move from `$WORKRAIL_HOME/api_tokens.json` into the database (ApiToken), so that every
machine on a shared store accepts them and the admin can show and revoke them.

The data step imports the digests of an existing file once. It is idempotent (a digest already in
the table is skipped) and never fails the migration: a missing, unreadable or damaged file, or a
damaged entry, imports nothing and says why in a log line. The file is left in place (it holds
digests only) but nothing reads it any more. The reading is written out here rather than imported
from runs/store/api_tokens.py: a migration must keep working as that module changes.
"""

import json
import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

LEGACY_FILE = "api_tokens.json"  # what runs/store/api_tokens.py wrote (format version 1)
DIGEST = re.compile(r"^[0-9a-f]{64}$")  # hex SHA-256 of the token: the scheme is unchanged, so it verifies
NAME_LENGTH = 64

logger = logging.getLogger("workrail.api")


def legacy_entries(path: Path) -> list[dict[str, Any]]:
    """The entries of the old token file, or [] (with a warning) when there is none to be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = data["tokens"]
        if not isinstance(entries, list):
            raise TypeError("'tokens' is not a list")
    except FileNotFoundError:
        return []
    except (OSError, ValueError, TypeError, KeyError) as exc:
        logger.warning("API tokens not imported: %s cannot be read (%s); create new ones.", path, exc)
        return []
    return [entry for entry in entries if isinstance(entry, dict)]


def created_at(value: Any) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return datetime.now(UTC)  # an unreadable time is not worth losing a token for
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def import_api_tokens_json(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor | None) -> None:
    ApiToken = apps.get_model("runs", "ApiToken")
    path = Path(settings.WORKRAIL_HOME) / LEGACY_FILE
    digests = set(ApiToken.objects.values_list("digest", flat=True))
    live_names = set(ApiToken.objects.filter(revoked_at__isnull=True).values_list("name", flat=True))
    imported = 0
    for entry in legacy_entries(path):
        name, digest = str(entry.get("name", ""))[:NAME_LENGTH], str(entry.get("sha256", "")).lower()
        if not name or not DIGEST.match(digest):
            logger.warning("An entry of %s is not an API token (no name or no SHA-256 digest): skipped.", path)
            continue
        if digest in digests or name in live_names:
            continue  # imported already (or the name was given to a token made since)
        ApiToken.objects.create(name=name, digest=digest, created_at=created_at(entry.get("createdAt")))
        digests.add(digest)
        live_names.add(name)
        imported += 1
    if imported:
        logger.info("Imported %d API token(s) from %s into the database; the file is no longer read.", imported, path)


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0010_session_importing"),
    ]

    operations = [
        migrations.CreateModel(
            name="ApiToken",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=64)),
                ("digest", models.CharField(max_length=64, unique=True)),
                ("created_at", models.DateTimeField()),
                ("last_used_at", models.DateTimeField(blank=True, null=True)),
                ("revoked_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("revoked_at__isnull", True)),
                        fields=("name",),
                        name="apitoken_live_name_unique",
                    )
                ],
            },
        ),
        migrations.RunPython(import_api_tokens_json, migrations.RunPython.noop, elidable=True),
    ]
