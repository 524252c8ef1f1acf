"""WorkRail's schema and workflow corpus: `shared/` beside the checkout, or WR_TEST_CORPUS_DIR (read
only here; not WORKRAIL_*, which tests/settings.py removes and the settings refuse). Tests that need
it skip when it is absent; tests/fixtures/workflows covers the format without it."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import REPO

CORPUS = Path(os.environ.get("WR_TEST_CORPUS_DIR") or REPO.parent / "shared" / "corpus" / "workrail")
CORPUS_WORKFLOWS = CORPUS / "workflows"
CORPUS_SKIP_REASON = (
    f"WorkRail corpus not found at {CORPUS_WORKFLOWS} (shared/ beside the checkout, or WR_TEST_CORPUS_DIR); "
    "corpus conformance tests skipped"
)


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
