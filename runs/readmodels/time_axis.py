"""Ticks for a time axis: clock times at round intervals, from hundredths of a second to weeks.

Pure. `ticks(start, end)` picks the smallest round step that puts at most MAX_TICKS ticks on the span
and labels each in UTC, as precisely as the step needs: "14:05:30.25", "14:05:30.5", "14:05:30",
"14:05", or "25 Nov"; a tick on a new day within an axis of hours says the day too ("26 Nov 00:00").
A span of a fraction of a second (a run an agent walked at once) still gets several ticks.

`offsets(start, end)`: for a span shorter than RELATIVE_BELOW, where clock times would differ only in their
last digits ("05:17:38.34", "05:17:38.36"), ticks counted from the start instead, evenly spaced from it:
"0 s", "+100 ms", "+200 ms", "+1 s" (the start's own clock time is said once, beside the axis). `axis` picks one of
the two for a span.
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


# Shorter spans get ticks counted from their start (`offsets`): their clock times would differ only in their
# last digits. Their steps go down to a millisecond: a run an agent walked at once may take 0.01 s.
RELATIVE_BELOW = 2 * MINUTE
OFFSET_STEPS = [0.001, 0.002, 0.005, *STEPS]


@dataclass(frozen=True, slots=True)
class Tick:
    at: datetime
    fraction: float  # where on the span, 0 at its start, 1 at its end
    label: str


@dataclass(frozen=True, slots=True)
class Axis:
    ticks: list[Tick]
    step: float  # seconds between ticks
    relative: bool  # labelled from the start ("+100 ms", "+1 s") rather than by the clock


def step_for(seconds: float, steps: list[float] = STEPS) -> float:
    for step in steps:
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


def offset_label(seconds: float, step: float) -> str:
    """A tick `seconds` after the start, as precisely as the ticks' `step` needs: "0 s", "+250 ms", "+1.5 s"."""
    if seconds <= 0:
        return "0 s"
    if seconds >= MINUTE and step >= 1:
        minutes, rest = divmod(round(seconds), MINUTE)
        return f"+{minutes} min" + (f" {rest} s" if rest else "")
    if step >= 1:
        return f"+{round(seconds)} s"
    if round(seconds * 1000) < 1000:  # below a second in milliseconds, as `duration` says it: "+5 ms", "+250 ms"
        return f"+{round(seconds * 1000, 3):g} ms"
    return f"+{seconds:.3f}".rstrip("0").rstrip(".") + " s"  # "+1 s", "+1.5 s"


def offsets(start: datetime, end: datetime) -> Axis:
    """Ticks counted from `start`, at even steps from it (the first at the start itself): at most MAX_TICKS."""
    start = start.astimezone(UTC)
    span = (end.astimezone(UTC) - start).total_seconds()
    if span <= 0:
        return Axis([Tick(start, 0.0, offset_label(0, 1))], 1.0, relative=True)
    # The first tick is the start itself: MAX_TICKS ticks hold one step fewer.
    step = next((step for step in OFFSET_STEPS if span / step <= MAX_TICKS - 1), step_for(span))
    count = int(span / step + 1e-9)  # the last whole step within the span
    found = [
        Tick(start + timedelta(seconds=index * step), index * step / span, offset_label(index * step, step))
        for index in range(count + 1)
    ]
    return Axis(found, step, relative=True)


def axis(start: datetime, end: datetime) -> Axis:
    """The axis for a span: counted from its start below RELATIVE_BELOW seconds, else by the clock."""
    span = (end - start).total_seconds()
    if span < RELATIVE_BELOW:
        return offsets(start, end)
    return Axis(ticks(start, end), float(step_for(span)), relative=False)


def duration(seconds: Any) -> str:
    """Seconds as a person reads them, in the one unit that suits their size: 0.4 ms, 41 ms, 1.8 s, 12 s,
    3 min 5 s, 2 h 10 min. Every duration the dashboard and the reports show goes through here (a tool
    call's milliseconds too: `milliseconds`), so that the same time reads the same everywhere."""
    try:
        total = float(seconds)
    except (TypeError, ValueError):
        return ""
    if round(total * 1000) < 1000:
        ms = max(total * 1000, 0.0)
        return f"{ms:.2g} ms" if ms < 10 else f"{round(ms)} ms"
    if round(total, 1) < 10:
        return f"{total:.1f} s"
    if total < 60:
        return f"{round(total)} s"
    minutes, secs = divmod(round(total), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{hours // 24} days {hours % 24} h"


def milliseconds(value: Any) -> str:
    """A duration kept in milliseconds (a tool call's), said as `duration` says it: "41 ms", "1.8 s"."""
    try:
        return duration(float(value) / 1000)
    except (TypeError, ValueError):
        return ""
