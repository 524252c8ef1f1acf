"""Small builders shared by the tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
# WorkRail's schema and workflow corpus: `shared/` beside the checkout, or WR_TEST_CORPUS_DIR (read
# only here; not WORKRAIL_*, which tests/settings.py removes and the settings refuse). Tests that
# need it skip when it is absent; tests/fixtures/workflows covers the format without it.
CORPUS = Path(os.environ.get("WR_TEST_CORPUS_DIR") or REPO.parent / "shared" / "corpus" / "workrail")
CORPUS_WORKFLOWS = CORPUS / "workflows"
CORPUS_SKIP_REASON = (
    f"WorkRail corpus not found at {CORPUS_WORKFLOWS} (shared/ beside the checkout, or WR_TEST_CORPUS_DIR); "
    "corpus conformance tests skipped"
)
FIXTURE_WORKFLOWS = REPO / "tests" / "fixtures" / "workflows"


def corpus_available() -> bool:
    return CORPUS_WORKFLOWS.is_dir()


def skip_without_corpus() -> None:
    """Skips the calling test (or fixture) when the corpus is absent; one place, so one summary line."""
    if not corpus_available():
        pytest.skip(CORPUS_SKIP_REASON)


def corpus_files() -> list[Path]:
    """The corpus workflow files, sorted; empty when the corpus is absent."""
    return sorted(CORPUS_WORKFLOWS.rglob("*.json")) if corpus_available() else []


def corpus_params(values: Iterable[Any], id_of: Callable[[Any], str] = str) -> list[Any]:
    """Parameters for a test parametrized over the corpus. Without the corpus there is nothing to
    parametrize over: one skipped item says so, rather than no item (silent) or an empty-set error."""
    params = [pytest.param(value, id=id_of(value)) for value in values]
    if params:
        return params
    reason = CORPUS_SKIP_REASON if not corpus_available() else f"WorkRail corpus at {CORPUS_WORKFLOWS} is empty"
    return [pytest.param(None, id="no-corpus", marks=pytest.mark.skip(reason=reason))]


def workflow_doc(workflow_id: str = "project.sample", **overrides: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "id": workflow_id,
        "name": "Sample",
        "description": "A small workflow used by the tests.",
        "version": "1.0.0",
        "steps": [
            {"id": "first-step", "title": "First", "prompt": "Do the first thing."},
            {"id": "second-step", "title": "Second", "prompt": "Do the second thing."},
        ],
    }
    document.update(overrides)
    return document


def write_json(path: Path, document: Any, **dump_options: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, **dump_options), encoding="utf-8")
    return path


def run_manage(tmp_path: Path, *args: str, input: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """`manage.py ARGS` in a subprocess as a user would run it: none of the developer's WORKRAIL_*
    settings, WORKRAIL_HOME in `tmp_path`, plus `env`."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("WORKRAIL_") and k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    clean.update({"WORKRAIL_HOME": str(tmp_path / "home"), **env})
    return subprocess.run(
        [sys.executable, str(REPO / "manage.py"), *args],
        env=clean,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        input=input,
    )
