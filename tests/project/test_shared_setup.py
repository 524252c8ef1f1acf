"""What the test harness does once per process instead of once per test (docs/development.md, "Tests") gives
the same rows and files a test would have made for itself."""

from __future__ import annotations

from pathlib import Path

from tests.plugins.catalog import load_file_once_if_bundled
from tests.support.workflow_files import step_doc, workflow_doc, write_json
from workflows_app.loader import load_file
from workflows_app.sources import BUNDLED_DIR, Source, SourceKind


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
