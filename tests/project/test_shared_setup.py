"""What the test harness does once per process instead of once per test (docs/development.md, "Tests") gives
the same rows and files a test would have made for itself."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command, sql

from tests.plugins.catalog import load_file_once_if_bundled
from tests.support.workflow_files import step_doc, workflow_doc, write_json
from workflows_app.loader import load_file
from workflows_app.sources import BUNDLED_DIR, Source, SourceKind


def post_migrate_rows() -> tuple[set[tuple[str, str]], set[tuple[str, str, str, str]]]:
    """The content types and permissions in the store, without their ids."""
    types = set(ContentType.objects.values_list("app_label", "model"))
    permissions = set(
        Permission.objects.values_list("content_type__app_label", "content_type__model", "codename", "name")
    )
    return types, permissions


def test_a_flush_leaves_the_rows_post_migrate_would_make(transactional_db: None) -> None:
    for _ in range(2):  # the first flush of a process runs the handlers, the next ones put their rows back
        call_command("flush", interactive=False, verbosity=0)
    put_back = post_migrate_rows()
    assert ContentType.objects.get_for_model(Permission).model == "permission"  # the cache agrees with the rows
    Permission.objects.all().delete()
    ContentType.objects.all().delete()
    ContentType.objects.clear_cache()
    sql.emit_post_migrate_signal(0, False, "default")
    assert put_back == post_migrate_rows()
    assert len(put_back[1]) > len(put_back[0]) > 0


def test_a_bundled_workflow_is_read_once_and_any_other_file_every_time(tmp_path: Path) -> None:
    bundled = Source(SourceKind.BUNDLED, BUNDLED_DIR, 0)
    path = sorted(BUNDLED_DIR.rglob("*.json"))[0]
    first = load_file_once_if_bundled(path, bundled)
    assert load_file_once_if_bundled(path, bundled) is first
    assert first == load_file(path, bundled)

    extra = Source(SourceKind.EXTRA, tmp_path, 3)
    mine = tmp_path / "mine.json"
    write_json(mine, workflow_doc("team.mine", steps=[step_doc("one", "One", "Do one thing.")]))
    before = load_file_once_if_bundled(mine, extra)
    assert load_file_once_if_bundled(mine, extra) is not before
    write_json(mine, workflow_doc("team.mine", steps=[step_doc("two", "Two", "Do another thing.")]))
    assert load_file_once_if_bundled(mine, extra).document["steps"][0]["id"] == "two"
