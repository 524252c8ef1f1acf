"""Per-run token buckets for write calls. A runaway agent loop gets RATE_LIMITED with the time to
wait, as data; people and normal agents never notice. Buckets live in the process (an MCP server
serves one agent), keyed by run (or session for checkpoint-only sessions)."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from django.conf import settings

from runs.errors import ErrorCode, WorkRailError


@dataclass
class _Bucket:
    tokens: float
    stamp: float


_buckets: dict[str, _Bucket] = {}
_lock = threading.Lock()


def take(key: str, *, now: float | None = None) -> None:
    """Spends one token for `key`, or raises RATE_LIMITED saying when one will be available."""
    capacity = float(settings.WORKRAIL_RATE_LIMIT_BURST)
    per_second = settings.WORKRAIL_RATE_LIMIT_PER_MINUTE / 60.0
    moment = time.monotonic() if now is None else now
    with _lock:
        bucket = _buckets.setdefault(key, _Bucket(capacity, moment))
        bucket.tokens = min(capacity, bucket.tokens + (moment - bucket.stamp) * per_second)
        bucket.stamp = moment
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return
        wait_ms = math.ceil((1.0 - bucket.tokens) / per_second * 1000)
    raise WorkRailError(
        ErrorCode.RATE_LIMITED,
        f"Too many writes to this run in a short time (limit: {settings.WORKRAIL_RATE_LIMIT_BURST} at once, then "
        f"{settings.WORKRAIL_RATE_LIMIT_PER_MINUTE} a minute).",
        f"Wait {wait_ms} ms, then send the same call again. If you are looping, stop and check the last response.",
        retryable=True,
        details={"retryAfterMs": wait_ms},
    )
