"""The sample session (tests/support/sample_session.py) recorded in the test's store."""

from __future__ import annotations

import pytest

from tests.support.sample_session import Built, two_runs_one_forked_twice


@pytest.fixture
def built(service_catalog: object) -> Built:
    """Two runs in one session, one forked twice, with notes, artifacts, a checkpoint and hostile text."""
    return two_runs_one_forked_twice()
