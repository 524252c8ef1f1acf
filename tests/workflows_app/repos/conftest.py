"""Fixtures of the workflow repositories' tests: a WorkRail home and a bare origin repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.git_repos import BareRepo


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def origin(tmp_path: Path) -> BareRepo:
    return BareRepo(tmp_path)
