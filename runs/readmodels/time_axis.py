"""Ticks for a time axis: clock times at round intervals, from hundredths of a second to weeks.

Pure. `ticks(start, end)` picks the smallest round step that puts at most MAX_TICKS ticks on the span
and labels each in UTC, as precisely as the step needs: "14:05:30.25", "14:05:30.5", "14:05:30",
"14:05", or "25 Nov"; a tick on a new day within an axis of hours says the day too ("26 Nov 00:00").
A span of a fraction of a second (a run an agent walked at once) still gets several ticks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

MAX_TICKS = 6
MINUTE, HOUR, DAY = 60, 3600, 86400
STEPS = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5,
    1, 2, 5, 10, 15, 30,
    MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
    HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR,
    DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY,
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Tick:
    at: datetime
    fraction: float  # where on the span, 0 at its start, 1 at its end
    label: str


def step_for(seconds: float) -> float:
    for step in STEPS:
        if seconds / step <= MAX_TICKS:
            return step
    return STEPS[-1] * (int(seconds / (STEPS[-1] * MAX_TICKS)) + 1)


def ticks(start: datetime, end: datetime) -> list[Tick]:
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    span = (end - start).total_seconds()
    if span <= 0:
        return [Tick(start, 0.0, start.strftime("%H:%M:%S"))]
    step = step_for(span)
    step_us = round(step * 1_000_000)  # in whole microseconds, so that round moments stay exact
    epoch = datetime(1970, 1, 5, tzinfo=UTC)  # a Monday: week-long steps fall on Mondays
    since = (start - epoch) // timedelta(microseconds=1)
    first = epoch + timedelta(microseconds=-(-since // step_us) * step_us)  # the first round moment at/after start
    found = []
    at = first
    previous_day = start.date()
    while at <= end:
        if step >= DAY:
            label = at.strftime("%d %b")
        else:
            label = at.strftime("%H:%M:%S" if step < MINUTE else "%H:%M")
            if step < 1:  # tenths or hundredths, without trailing zeros: "14:05:30.5", "14:05:30.25"
                label += f"{at.microsecond / 1_000_000:.2f}".rstrip("0").rstrip(".").removeprefix("0")
            if at.date() != previous_day:
                label = f"{at.strftime('%d %b')} {label}"
        previous_day = at.date()
        found.append(Tick(at, (at - start).total_seconds() / span, label))
        at += timedelta(microseconds=step_us)
    return found or [Tick(start, 0.0, start.strftime("%H:%M:%S"))]


def duration(seconds: Any) -> str:
    """Seconds as a person reads them: 0.4 s, 12 s, 3 min 5 s, 2 h 10 min."""
    try:
        total = float(seconds)
    except (TypeError, ValueError):
        return ""
    if total < 10:
        return f"{total:.2g} s" if total < 1 else f"{total:.1f} s"
    if total < 60:
        return f"{round(total)} s"
    minutes, secs = divmod(round(total), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{hours // 24} days {hours % 24} h"
