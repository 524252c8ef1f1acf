import pytest

from runs import ratelimit
from runs.errors import WorkRailError


def test_a_bucket_allows_a_burst_then_a_steady_rate(settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 2
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 60  # one a second
    ratelimit.take("run_a", now=100.0)
    ratelimit.take("run_a", now=100.0)
    with pytest.raises(WorkRailError) as caught:
        ratelimit.take("run_a", now=100.5)
    assert caught.value.details == {"retryAfterMs": 500}
    ratelimit.take("run_a", now=101.0)  # refilled
    ratelimit.take("run_b", now=101.0)  # buckets are per run
