"""Fixtures for the tests of runs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runs.readmodels import attention


@pytest.fixture
def fresh_attention_places() -> Iterator[None]:
    """The attention read model keeps where each run was last seen (to say since when it waits); a test
    starts and ends with none kept, so that no other test's runs leak into its words."""
    attention._KEPT.clear()
    yield
    attention._KEPT.clear()
