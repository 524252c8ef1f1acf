"""Token buckets for every write: a runaway agent loop gets RATE_LIMITED with the time to wait, as
data; people and normal agents never notice.

Buckets are rows of one table (RateBucket), so every process on the store spends from the same
bucket: a new MCP process does not get a fresh burst. Taking a token is one statement (an upsert that
refills by the time elapsed and spends a token if there is one), run inside the caller's write
transaction: a call that fails later for another reason rolls its spending back with the rest.

Keys: `run:<id>` for acknowledgements and checkpoints of a run, `session:<id>` for a notes-only
session's checkpoints and for dashboard/API actions on a session, `starts` for new runs and sessions.
"""

from __future__ import annotations

import functools
import math
import random
import time

from django.conf import settings
from django.db import connection

from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import RateBucket

STARTS = "starts"
PRUNE_CHANCE = 0.001  # now and then, drop the buckets that have refilled (a full bucket is no row)

# One statement: refill by the time elapsed (R, up to the capacity), spend a token when there is one,
# and say whether it did. A refusal spends nothing, so hammering does not push the wait further out.
_REFILLED = "{least}(%s, {table}.tokens + {greatest}(0, excluded.stamp - {table}.stamp) * %s)"
_TAKE = """
INSERT INTO {table} (key, tokens, stamp, spent) VALUES (%s, %s, %s, %s)
ON CONFLICT (key) DO UPDATE SET
    tokens = CASE WHEN {refilled} >= 1 THEN {refilled} - 1 ELSE {refilled} END,
    spent = {refilled} >= 1,
    stamp = {greatest}({table}.stamp, excluded.stamp)
RETURNING tokens, spent
"""


@functools.cache
def _statement(vendor: str) -> str:
    least, greatest = ("MIN", "MAX") if vendor == "sqlite" else ("LEAST", "GREATEST")
    table = connection.ops.quote_name(RateBucket._meta.db_table)
    refilled = _REFILLED.format(table=table, least=least, greatest=greatest)
    return _TAKE.format(table=table, greatest=greatest, refilled=refilled)


def take(key: str, *, now: float | None = None, what: str = "writes to this run") -> None:
    """Spends one token of `key`'s bucket, or raises RATE_LIMITED saying when one will be available."""
    capacity = float(settings.WORKRAIL_RATE_LIMIT_BURST)
    per_second = settings.WORKRAIL_RATE_LIMIT_PER_MINUTE / 60.0
    moment = time.time() if now is None else now
    refill = [capacity, per_second]
    with connection.cursor() as cursor:  # in the caller's write transaction, when there is one
        cursor.execute(_statement(connection.vendor), [key[:80], capacity - 1, moment, True, *refill * 4])
        left, spent = cursor.fetchone()
    if not spent:
        wait_ms = math.ceil((1.0 - float(left)) / per_second * 1000)
        raise WorkRailError(
            ErrorCode.RATE_LIMITED,
            f"Too many {what} in a short time (limit: {settings.WORKRAIL_RATE_LIMIT_BURST} at once, then "
            f"{settings.WORKRAIL_RATE_LIMIT_PER_MINUTE} a minute).",
            f"Wait {wait_ms} ms, then send the same call again. If you are looping, stop and check the last response.",
            retryable=True,
            details={"retryAfterMs": wait_ms},
        )
    if random.random() < PRUNE_CHANCE:
        prune(moment)


def prune(now: float) -> int:
    """Deletes the buckets that have had time to refill completely: they are the same as no row."""
    refill_s = settings.WORKRAIL_RATE_LIMIT_BURST / (settings.WORKRAIL_RATE_LIMIT_PER_MINUTE / 60.0)
    deleted, _ = RateBucket.objects.filter(stamp__lt=now - refill_s).delete()
    return deleted
