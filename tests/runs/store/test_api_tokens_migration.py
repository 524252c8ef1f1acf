"""Migration 0011: the digests of an existing `$WORKRAIL_HOME/api_tokens.json` (what older versions
wrote) become ApiToken rows, once, and the tokens keep working; the file is left alone and unread."""

from __future__ import annotations

import importlib
import json
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from runs.models import ApiToken
from runs.store import api_tokens

migration = importlib.import_module("runs.migrations.0011_api_tokens")

BEFORE = ("runs", "0010_session_importing")
AFTER = ("runs", "0011_api_tokens")


def legacy_file(home: Path, entries: list[dict[str, Any]]) -> Path:
    """The file as runs/store/api_tokens.py wrote it before the tokens moved into the database."""
    path = home / "api_tokens.json"
    path.write_text(json.dumps({"version": 1, "tokens": entries}, indent=2) + "\n")
    path.chmod(0o600)
    return path


def legacy_token(name: str, created: str = "2025-03-01T10:00:00Z") -> tuple[str, dict[str, str]]:
    token = secrets.token_urlsafe(32)
    return token, {"name": name, "sha256": api_tokens.digest_of(token), "createdAt": created}


def run_import() -> None:
    migration.import_api_tokens_json(apps, None)


@pytest.mark.django_db
def test_the_file_is_imported_once_and_its_tokens_verify(home):
    laptop, laptop_entry = legacy_token("laptop")
    ci, ci_entry = legacy_token("ci", created="2025-04-02T08:30:00+00:00")
    path = legacy_file(home, [laptop_entry, ci_entry])
    run_import()
    run_import()  # idempotent
    assert ApiToken.objects.count() == 2
    assert api_tokens.verify(laptop) == "laptop" and api_tokens.verify(ci) == "ci"
    assert ApiToken.objects.get(name="laptop").created_at == datetime(2025, 3, 1, 10, 0, tzinfo=UTC)
    assert path.exists()  # left in place

    path.unlink()  # no longer read: the tokens do not depend on it
    assert api_tokens.verify(laptop) == "laptop"


@pytest.mark.django_db
def test_a_token_revoked_or_renamed_since_is_not_brought_back(home):
    laptop, laptop_entry = legacy_token("laptop")
    legacy_file(home, [laptop_entry])
    run_import()
    api_tokens.revoke("laptop")
    run_import()
    assert api_tokens.verify(laptop) is None
    assert ApiToken.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    "content",
    [None, "{not json", "[]", '{"tokens": "none"}', '{"version": 1}', b"\xff\xfe"],
    ids=["missing", "not-json", "a-list", "tokens-not-a-list", "no-tokens", "not-utf8"],
)
def test_a_missing_or_damaged_file_imports_nothing_and_does_not_fail(home, content, caplog):
    if isinstance(content, str):
        (home / "api_tokens.json").write_text(content)
    elif isinstance(content, bytes):
        (home / "api_tokens.json").write_bytes(content)
    run_import()
    assert ApiToken.objects.count() == 0
    if content is not None:
        assert "API tokens not imported" in caplog.text


@pytest.mark.django_db
def test_an_unreadable_file_imports_nothing(home, caplog):
    (home / "api_tokens.json").mkdir()  # a directory: reading it fails whoever runs the tests (even root)
    run_import()
    assert ApiToken.objects.count() == 0
    assert "cannot be read" in caplog.text


@pytest.mark.django_db
def test_damaged_entries_are_skipped_and_the_rest_imported(home):
    good, good_entry = legacy_token("good", created="not a time")
    naive, naive_entry = legacy_token("naive", created="2025-03-01T10:00:00")
    legacy_file(
        home,
        [
            {"name": "no-digest"},
            {"name": "short", "sha256": "abc"},
            {"sha256": "0" * 64},
            "not an object",
            good_entry,
            naive_entry,
            {**good_entry, "name": "same-digest"},
        ],
    )
    run_import()
    assert sorted(ApiToken.objects.values_list("name", flat=True)) == ["good", "naive"]
    assert api_tokens.verify(good) == "good" and api_tokens.verify(naive) == "naive"
    assert ApiToken.objects.get(name="naive").created_at == datetime(2025, 3, 1, 10, 0, tzinfo=UTC)


@pytest.mark.django_db(transaction=True)
def test_migrating_a_store_imports_the_file(home):
    token, entry = legacy_token("laptop")
    legacy_file(home, [entry])
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    try:
        executor.loader.build_graph()
        executor.migrate([AFTER])
        imported = executor.loader.project_state([AFTER]).apps.get_model("runs", "ApiToken")
        assert imported.objects.filter(name="laptop", digest=api_tokens.digest_of(token)).exists()
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    # Later migrations keep it working, and a token made before owners existed is its own owner (0017).
    assert api_tokens.verify(token) == "laptop"
    assert ApiToken.objects.get(name="laptop").owner == "laptop"
