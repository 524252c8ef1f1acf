"""The dashboard's one clock rule: a run, or a branch, is quiet once nothing was recorded on it for
WORKRAIL_STALL_MINUTES. The newest branch is then stalled (overview.shown_status); a branch set aside for a newer
one is then left behind, and superseded before that, while its agent may still be at work (outcomes.py). Kept
apart from overview.py so that outcomes.py, which overview reads, can use it too.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.utils import timezone

# Set while a reader needs what is stored, not the clock's view of it (a report: exports/reports/data.py).
_as_stored: ContextVar[bool] = ContextVar("workrail_as_stored", default=False)
NO_CUTOFF = datetime.min.replace(tzinfo=UTC)  # nothing is older: nothing is stalled


def stall_cutoff(now: datetime | None = None) -> datetime:
    if _as_stored.get():
        return NO_CUTOFF
    return (now or timezone.now()) - timedelta(minutes=settings.WORKRAIL_STALL_MINUTES)


@contextmanager
def as_stored() -> Iterator[None]:
    """Reads within show statuses and words as stored: no run is "stalled" (a judgement relative to the
    clock), so what is read from an unchanged store does not depend on when it is read."""
    token = _as_stored.set(True)
    try:
        yield
    finally:
        _as_stored.reset(token)


__all__ = ["NO_CUTOFF", "as_stored", "stall_cutoff"]
