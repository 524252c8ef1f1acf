"""A session's timeline as its page shows it, laid out here so that the template only prints it.

A row per run: its name and how long it took in a column of their own (text never sits under the
dots), then a track with a dot per node at the moment it was made. Positions are percentages of the
track's width, so the track stretches with its box while its dots stay round and its text keeps its
size (no viewBox scaling): at phone width the name goes above the track (dashboard.css) and nothing
runs past the card. Below the rows, an axis with clock times (time_axis.ticks) and the whole span.

Each dot is a node (timeline_marks.py), coloured by its state as the state's badge is, and named by a
tooltip and an accessible name (its step, its state, when); beside the track, in the name's column
where there is always room and never over a dot, the row says in words which states its dots show.

The door gives the run page's URL with RUN in place of the run id, and the marks of each run's nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from runs.contract.dashboard import SessionDetail, StateName
from runs.readmodels import states, time_axis
from runs.readmodels.timeline_marks import NodeMark

# A dot at either end of the track stays whole: the track's ends are this far in (percent of its width).
INSET = 1.5


def at(fraction: float) -> str:
    """Where a fraction of the session's span lies on the track, as an SVG percentage."""
    return f"{INSET + min(max(fraction, 0.0), 1.0) * (100 - 2 * INSET):.2f}%"


@dataclass(frozen=True, slots=True)
class TimelineDot:
    at: str  # where on the track
    state: StateName  # its colour (dashboard.css: dot-<state>)
    words: str  # its name: the step, its state, when


@dataclass(frozen=True, slots=True)
class StateCount:
    state: StateName
    label: str  # "Left behind (2)": the state's word, and how many dots show it when more than one


@dataclass(frozen=True, slots=True)
class TimelineRow:
    run_id: str
    label: str  # the run's workflow name, in full (its column wraps it)
    href: str
    took: str  # "0.16 s · 11 nodes"
    tooltip: str
    start: str  # where its first node lies on the track
    end: str  # and its newest
    dots: list[TimelineDot]
    states: list[StateCount]  # the states its dots show, most urgent first (states.ORDER)
    selected: bool


@dataclass(frozen=True, slots=True)
class TimelineTick:
    at: str
    label: str
    anchor: str  # start, middle or end: the first and last stay on the track
    minor: bool  # every other tick: left out at phone width, where six clock times do not fit


@dataclass(frozen=True, slots=True)
class TimelinePage:
    rows: list[TimelineRow]
    ticks: list[TimelineTick]
    caption: str  # "2026-11-28 22:02:04 to 22:02:04 UTC · 0.22 s"; empty without times


def nodes_words(count: int) -> str:
    return f"{count} node{'' if count == 1 else 's'}"


def state_counts(dots: list[TimelineDot]) -> list[StateCount]:
    counts: dict[StateName, int] = {}
    for dot in dots:
        counts[dot.state] = counts.get(dot.state, 0) + 1
    return [
        StateCount(state, states.label(state) + (f" ({counts[state]})" if counts[state] > 1 else ""))
        for state in states.ORDER
        if state in counts
    ]


def timeline_page(
    detail: SessionDetail, run_url: str, selected_run: str | None, marks: dict[str, list[NodeMark]]
) -> TimelinePage:
    names = {run.run_id: run.workflow_name for run in detail.runs}
    starts = [lane.first_at for lane in detail.timeline if lane.first_at is not None]
    ends = [lane.last_at for lane in detail.timeline if lane.last_at is not None]
    start = min(starts).astimezone(UTC) if starts else None
    span = (max(ends) - min(starts)).total_seconds() if starts and ends else 0.0

    def fraction(moment: datetime) -> float:
        return (moment - start).total_seconds() / span if start is not None and span > 0 else 0.0

    rows: list[TimelineRow] = []
    for lane in detail.timeline:
        name = names.get(lane.run_id) or lane.label
        count = len(lane.points)
        took = when = ""
        if lane.first_at is not None and lane.last_at is not None:
            took = time_axis.duration((lane.last_at - lane.first_at).total_seconds())
            first, last = lane.first_at.astimezone(UTC), lane.last_at.astimezone(UTC)
            when = f", {first:%Y-%m-%d %H:%M:%S} UTC to {last:%Y-%m-%d %H:%M:%S} UTC ({took})"
        dots = [TimelineDot(at(fraction(mark.at)), mark.state, mark.words) for mark in marks.get(lane.run_id, [])]
        rows.append(
            TimelineRow(
                run_id=lane.run_id,
                label=name,
                href=run_url.replace("RUN", lane.run_id),
                took=f"{took} · {nodes_words(count)}" if took else nodes_words(count),
                tooltip=f"{name} ({lane.run_id}): {nodes_words(count)}{when}",
                start=dots[0].at if dots else at(0),
                end=dots[-1].at if dots else at(0),
                dots=dots,
                states=state_counts(dots),
                selected=lane.run_id == selected_run,
            )
        )
    if not starts or not ends:
        return TimelinePage(rows, [], "")
    start, end = min(starts).astimezone(UTC), max(ends).astimezone(UTC)
    ticks = []
    for index, tick in enumerate(time_axis.ticks(start, end)):
        anchor = "start" if tick.fraction < 0.1 else "end" if tick.fraction > 0.9 else "middle"
        ticks.append(TimelineTick(at(tick.fraction), tick.label, anchor, minor=index % 2 == 1))
    until = end.strftime("%H:%M:%S" if end.date() == start.date() else "%Y-%m-%d %H:%M:%S")
    caption = f"{start:%Y-%m-%d %H:%M:%S} to {until} UTC · {time_axis.duration((end - start).total_seconds())}"
    return TimelinePage(rows, ticks, caption)
