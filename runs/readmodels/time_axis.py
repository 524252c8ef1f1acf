"""Ticks for a time axis: clock times at round intervals, from hundredths of a second to weeks.

Pure. `ticks(start, end)` picks the smallest round step that puts at most MAX_TICKS ticks on the span
and labels each in UTC, as precisely as the step needs: "14:05:30.25", "14:05:30.5", "14:05:30",
"14:05", or "25 Nov"; a tick on a new day within an axis of hours says the day too ("26 Nov 00:00").
A span of a fraction of a second (a run an agent walked at once) still gets several ticks.

`axis(start, end)`: the session timeline's, on the clock like every other time on the dashboard (friction9
item 6: a person asks "when", and "+4 ms" does not answer it), to the minute as the page writes times: round
moments from a minute to weeks, the span's start said when no round moment stands near it, the day where the
span crosses one; a span under two minutes zoomed to the second ("2:34:10", ZOOM_UNDER), one under ten seconds a
single tick, its start. `dot_ticks`: a phone's, the dots' own moments.
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


# The timeline's axis (`axis`) labels clock times to the minute, as the rest of the page writes times: seconds
# ("10:45:40 PM … 10:45:41 PM") read as noise (friction59 T 1).
CLOCK_STEPS = [step for step in STEPS if step >= MINUTE]
# A span shorter than this (first step to now, or to the newest step) is zoomed: ticks every few seconds, to the
# second ("2:34:10"), so that a run of 40 s reads as 40 s, not as one tick and a long line (friction61a 3, 61b 6).
# Ticks every 5 s at the finest: a span under ZOOM_FROM is one tick, its start, to the minute (friction21a 3, 59 T 1:
# "10:45:40 PM … 10:45:41 PM", ticks a second apart, read as noise; its length is the summary line's to say).
ZOOM_UNDER = 2 * MINUTE
ZOOM_FROM = 10
SECOND_STEPS: list[float] = [5, 10, 15, 30]
# Where the first round tick lies, at most, for it to stand for the span's start (a share of the span): any
# nearer and the start's label would crowd it (a clock time is ~70 px, a phone's axis ~335 px).
START_ROOM = 0.3
# Room left for the "now" at the end of an axis that reaches now, and how near (a share of the axis) a tick
# may stand to the newest step's for that step's own moment to go unlabelled: a clock time is ~70 px wide.
END_ROOM = 0.15
NEAR = 0.2


@dataclass(frozen=True, slots=True)
class Tick:
    at: datetime
    fraction: float  # where on the span, 0 at its start, 1 at its end
    label: str
    # How precisely its moment is said, in seconds (the axis's step unless set); 0: its label is no clock time.
    precision: float | None = None
    clock: bool = True  # its label is a clock time ("14:05"), not a day alone ("25 Nov")
    day: bool = False  # its label says its day ("01 Dec 06:00", "25 Nov")

    def with_day(self) -> Tick:
        """The same tick, its clock time said with its day ("01 Dec 06:00"); a label that says its day already,
        or is a day alone, as it is."""
        if self.day or not self.clock:
            return self
        return Tick(self.at, self.fraction, f"{self.at:%d %b} {self.label}", self.precision, day=True)


@dataclass(frozen=True, slots=True)
class Axis:
    ticks: list[Tick]
    step: float  # seconds between ticks


def step_for(seconds: float, steps: list[float] = STEPS) -> float:
    for step in steps:
        if seconds / step <= MAX_TICKS:
            return step
    return STEPS[-1] * (int(seconds / (STEPS[-1] * MAX_TICKS)) + 1)


def ticks(start: datetime, end: datetime, steps: list[float] = STEPS) -> list[Tick]:
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    span = (end - start).total_seconds()
    if span <= 0:
        return [Tick(start, 0.0, start.strftime("%H:%M:%S"))]
    step = step_for(span, steps)
    step_us = round(step * 1_000_000)  # in whole microseconds, so that round moments stay exact
    epoch = datetime(1970, 1, 5, tzinfo=UTC)  # a Monday: week-long steps fall on Mondays
    since = (start - epoch) // timedelta(microseconds=1)
    first = epoch + timedelta(microseconds=-(-since // step_us) * step_us)  # the first round moment at/after start
    found = []
    at = first
    previous_day = start.date()
    while at <= end:
        clock = step < DAY
        day = not clock or at.date() != previous_day
        if not clock:
            label = at.strftime("%d %b")
        else:
            label = at.strftime("%H:%M:%S" if step < MINUTE else "%H:%M")
            if step < 1:  # tenths or hundredths, without trailing zeros: "14:05:30.5", "14:05:30.25"
                label += f"{at.microsecond / 1_000_000:.2f}".rstrip("0").rstrip(".").removeprefix("0")
            if day:
                label = f"{at.strftime('%d %b')} {label}"
        previous_day = at.date()
        found.append(Tick(at, (at - start).total_seconds() / span, label, clock=clock, day=day))
        at += timedelta(microseconds=step_us)
    return found or [Tick(start, 0.0, start.strftime("%H:%M:%S"))]


def clock_label(at: datetime, step: float) -> str:
    """A moment on the clock in UTC, as precisely as a tick `step` (seconds) needs: "14:05:30", "14:05"."""
    return at.astimezone(UTC).strftime("%H:%M:%S" if step < MINUTE else "%H:%M")


def unit_for(span: float) -> float:
    """How precisely an axis of `span` seconds says its moments: to the second when zoomed (ZOOM_UNDER)."""
    return 1.0 if ZOOM_FROM <= span < ZOOM_UNDER else float(MINUTE)


def axis(start: datetime, end: datetime, *, newest: datetime | None = None) -> Axis:
    """The axis for a span, on the clock as the rest of the page writes times, to the minute ("22:45", "10:45
    PM" on the reader's clock; friction59 T 1: "10:45:40 PM … 10:45:41 PM" read as noise): round moments as
    `ticks` picks them from a step of a minute up (with the day where it turns), never two ticks with the same
    words. A span under two minutes is said to the second, every few seconds (ZOOM_UNDER); one under ten seconds
    is one tick, its start. The span's start is said too ("14:05") when the first round moment lies well inside
    it, and so is its end, the newest step's, when the last one lies well before it and says another time than it.

    `newest`: the newest step's moment when the axis runs past it, to now (the timeline's page says "now" at
    the end: no tick crowds it); the start and that moment are labelled (friction24a 4: the current dot had no
    time), the newest unless it stands near the start or says its clock time, and the round moments clear of
    both."""
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    span = (end - start).total_seconds()
    unit = unit_for(span)
    steps = SECOND_STEPS if unit < MINUTE else CLOCK_STEPS
    step = float(step_for(span, steps))
    first = Tick(start, 0.0, clock_label(start, unit), unit)
    if span < ZOOM_FROM:
        return Axis([first], step)
    found = ticks(start, end, steps)
    if found[0].fraction > START_ROOM:
        found = [first, *found]
    # The span's end too, the newest step's moment (friction19b 16: the working dot had no time), where no
    # tick stands near it; not a second label with the same clock time as a round tick just before it.
    last = Tick(end, 1.0, clock_label(end, unit), unit)
    if newest is not None:
        # The dots' own moments first, the first step's and the newest's (unless "now", at the end, says it, or
        # the first's label already does), then the round moments that stand clear of them and of "now".
        # The round moments stay whole, a regular grid: the start's own label goes (the summary line says when
        # the first step was) where a round tick stands near it, rather than that tick (friction25b 5: "1:59:55 →
        # 2:00:10 → 2:00:20" read as an irregular scale), and so does the newest's.
        mark = newest_mark(start, span, newest)
        rounds = [tick for tick in found if tick.fraction <= 1 - END_ROOM and tick.precision is None]
        marks = [] if rounds and rounds[0].fraction <= START_ROOM else [first]
        if mark.fraction <= 1 - END_ROOM and all(abs(mark.fraction - m.fraction) >= NEAR for m in [*marks, *rounds]):
            marks.append(mark)
        return Axis(once(dated(sorted([*marks, *rounds], key=lambda tick: tick.fraction), span)), step)
    if found[-1].fraction < 1 - START_ROOM:
        found = [*found, last]
    return Axis(once(dated(found, span)), step)


# How far apart (a share of the axis) two labels stand on a phone's axis (~335 px; a clock time is ~60 px).
NARROW_ROOM = 0.3
DATED_ROOM = 0.5  # when each label says its day too ("Nov 30 6:00 PM", ~100 px)
NOW_ROOM = 0.25


# A clock time to the second ("10:03:21 AM") is about this much wider than one to the minute ("10:03 AM").
SECONDS_WIDER = 1.4


def dot_ticks(start: datetime, end: datetime, *, newest: datetime | None = None, share: float = 1.0) -> list[Tick]:
    """A phone's axis (friction59 T 2: a phone has no tooltip, and its round ticks stood away from the dots): the
    first step's clock time under the first dot, the newest step's under the newest dot (`newest`, when the
    axis runs on to now; else the end), and the round moments of `axis` that stand clear of both and of "now",
    each to the minute, never two with the same words. `share`: the part of the axis's width the span takes, beside
    a break (the timeline's stretch drawn to scale): zoomed, its labels to the second keep their room in pixels
    (friction64: two of them stood 2 px apart on a phone)."""
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    span = (end - start).total_seconds()
    unit = unit_for(span)
    first = Tick(start, 0.0, clock_label(start, unit), unit)
    if span < ZOOM_FROM:
        return [first]
    mark = newest_mark(start, span, newest if newest is not None else end)
    room = DATED_ROOM if span >= DAY else NARROW_ROOM
    if share < 1 and unit < MINUTE:
        room = room / share * SECONDS_WIDER
    # "now" ends an axis that runs past the newest step: a centred label stays this far from it.
    limit = 1 - NOW_ROOM if newest is not None else 1.0
    chosen = [first]
    if room <= mark.fraction <= limit:
        chosen.append(mark)
    for tick in axis(start, end, newest=newest).ticks:
        clear = all(abs(tick.fraction - o.fraction) >= room and tick.label != o.label for o in chosen)
        if tick.precision is None and tick.fraction <= limit and clear:
            chosen.append(tick)
    return once(dated(sorted(chosen, key=lambda tick: tick.fraction), span))


def newest_mark(start: datetime, span: float, newest: datetime) -> Tick:
    newest, unit = newest.astimezone(UTC), unit_for(span)
    return Tick(newest, (newest - start).total_seconds() / span, clock_label(newest, unit), unit)


def dated(found: list[Tick], span: float) -> list[Tick]:
    """An axis of a day or more says every clock tick's day ("30 Nov 18:00 · 01 Dec 06:00"): a span of days reads
    as days, and "18:00" on two days would be two ticks with the same words (friction59 T 1). One of hours says
    the day only where it turns (`ticks`); a day-long step's labels are days already ("25 Nov")."""
    if span < DAY:
        return found
    return [tick.with_day() for tick in found]


def once(found: list[Tick]) -> list[Tick]:
    """Each label once, the earliest kept (two ticks that say the same words read as no scale: friction21a 3), and
    a clock tick on another day than the one kept before it says its day ("01 Dec 06:00")."""
    seen: set[str] = set()
    kept: list[Tick] = []
    for tick in found:
        if kept and tick.at.date() != kept[-1].at.date():
            tick = tick.with_day()
        if tick.label not in seen:
            seen.add(tick.label)
            kept.append(tick)
    return kept


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


# Between a number and its unit where a duration flows with the words around it ("working for 45 min" in a
# headline, friction18a 5): the line may break between words, never between "45" and "min".
NUMBER_UNIT = "\u00a0"


def lasted(seconds: Any, joined: str = " ") -> str:
    """How long something took or has lasted as a person counts it, in whole units: "under a minute", "45 min",
    "3 h", "2 days" (friction16a 4, 16b 3). What the dashboard says of a person's or an agent's time (a step's
    answer, a wait, a timeline's span) goes through here, never `duration`: a step answered in 63 ms, or a wait
    of 544 ms, reads as false ("an agent doesn't plan in 63 ms"); milliseconds are the Tool timings page's."""
    try:
        total = max(float(seconds), 0.0)
    except (TypeError, ValueError):
        return ""
    if total < 60:
        return "under a minute"
    if total < 3600:
        return f"{int(total // 60)}{joined}min"
    if total < 48 * 3600:
        return f"{int(total // 3600)}{joined}h"
    return f"{int(total // 86400)}{joined}days"


# Past this, "24 h ago" is a day: a moment is said by the day and the clock instead.
RELATIVE_FOR_SECONDS = 86400 - 1800


def ago(moment: datetime, now: datetime | None = None) -> str:
    """How long ago within the last day: "just now", "5 min ago", "3 h ago"; "" for an older moment (a page
    then says the day and the clock). times.js says the same in the browser, as time passes."""
    seconds = ((now or datetime.now(UTC)) - moment).total_seconds()
    if seconds < 45:
        return "just now"  # also a moment a little ahead: the clocks differ
    if seconds < 3600:
        return f"{max(1, round(seconds / 60))} min ago"
    if seconds < RELATIVE_FOR_SECONDS:
        return f"{round(seconds / 3600)} h ago"
    return ""


def lasting(since: datetime, now: datetime | None = None, joined: str = " ") -> str:
    """How long a state has lasted since a moment: "for under a minute", "for 45 min", "for 3 h"."""
    return f"for {lasted(((now or datetime.now(UTC)) - since).total_seconds(), joined)}"


def until(moment: datetime, now: datetime | None = None, joined: str = " ") -> str:
    """How long until a moment ahead: "in 28 min", "in under a minute"; "now" once it has come."""
    seconds = (moment - (now or datetime.now(UTC))).total_seconds()
    return f"in {lasted(seconds, joined)}" if seconds > 0 else "now"


def unbroken(words: str) -> str:
    """A duration's words held on one line: a number never wraps away from its unit ("217 / ms", friction16b 8)."""
    return words.replace(" ", "\u00a0")


def milliseconds(value: Any) -> str:
    """A duration kept in milliseconds (a tool call's), said as `duration` says it: "41 ms", "1.8 s"."""
    try:
        return duration(float(value) / 1000)
    except (TypeError, ValueError):
        return ""
