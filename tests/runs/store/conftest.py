from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(settings, tmp_path: Path) -> Path:
    """An empty WORKRAIL_HOME of the test's own."""
    settings.WORKRAIL_HOME = tmp_path / "home"
    settings.WORKRAIL_HOME.mkdir()
    return settings.WORKRAIL_HOME
