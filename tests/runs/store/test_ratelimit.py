"""The write rate limit: token buckets in the database, shared by every process on the store."""

from __future__ import annotations

import subprocess
import sys

import pytest

from runs.contract.errors import WorkRailError
from runs.models import RateBucket, Session
from runs.store import ratelimit
from tests.support.mcp_calls import start_session, start_workflow
from tests.support.paths import REPO

pytestmark = pytest.mark.django_db


def test_a_bucket_allows_a_burst_then_a_steady_rate(settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 2
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 60  # one a second
    ratelimit.take("run:a", now=100.0)
    ratelimit.take("run:a", now=100.0)
    with pytest.raises(WorkRailError) as caught:
        ratelimit.take("run:a", now=100.5)
    assert caught.value.details == {"retryAfterMs": 500}
    ratelimit.take("run:a", now=101.0)  # refilled
    ratelimit.take("run:b", now=101.0)  # buckets are per key


def test_a_refused_take_spends_nothing(settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 1
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 60
    ratelimit.take("run:a", now=10.0)
    for _ in range(5):  # hammering while refused does not push the wait further out
        with pytest.raises(WorkRailError):
            ratelimit.take("run:a", now=10.1)
    ratelimit.take("run:a", now=11.0)


def test_starting_runs_and_sessions_is_limited_too(service_catalog, settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 3
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 1
    settings.WORKRAIL_ENABLE_START_SESSION = True
    start_workflow("wr.routine-focused_plan")
    start_workflow("wr.routine-focused_plan")
    start_session(title="notes")
    with pytest.raises(WorkRailError) as caught:
        start_workflow("wr.routine-focused_plan")
    assert caught.value.code.value == "RATE_LIMITED" and "new runs and sessions" in caught.value.message
    with pytest.raises(WorkRailError):
        start_session(title="more notes")
    assert Session.objects.count() == 3  # the refused calls created nothing


def test_old_full_buckets_are_pruned(settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 10
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 60  # refills completely in 10 s
    ratelimit.take("run:old", now=100.0)
    ratelimit.take("run:new", now=150.0)
    assert ratelimit.prune(now=155.0) == 1
    assert list(RateBucket.objects.values_list("key", flat=True)) == ["run:new"]


SPEND = """
import os, sys
sys.path.insert(0, {repo!r})
os.environ["DJANGO_SETTINGS_MODULE"] = "workrail_site.settings"
import django; django.setup()
from runs.store import ratelimit
from runs.contract.errors import WorkRailError
ok = 0
for _ in range(10):
    try:
        ratelimit.take("run:shared", now=1000.0)
        ok += 1
    except WorkRailError:
        pass
print(ok)
"""


@pytest.mark.subprocess
@pytest.mark.django_db(transaction=True)
def test_processes_on_one_store_share_their_buckets(tmp_path):
    """Two fresh processes on one store: the second gets what the first left, not a new burst."""
    home = tmp_path / "home"
    env = {"WORKRAIL_HOME": str(home), "WORKRAIL_RATE_LIMIT_BURST": "6", "PATH": "/usr/bin:/bin"}
    subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "migrate", "-v0"], env=env, check=True, capture_output=True
    )
    counts = [
        int(
            subprocess.run(
                [sys.executable, "-c", SPEND.format(repo=str(REPO))],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        for _ in range(2)
    ]
    assert counts == [6, 0]
