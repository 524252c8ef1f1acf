"""Ticks of the timeline's time axis (runs/readmodels/time_axis.py): round clock times in UTC, as many
as fit, labelled as precisely as their step needs, from seconds to weeks."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta, timezone

import pytest

from runs.readmodels.time_axis import MAX_TICKS, START_ROOM, axis, ticks

START = datetime(2026, 11, 25, 14, 3, 17, tzinfo=UTC)


@pytest.mark.parametrize(
    ("span", "labels"),
    [
        (timedelta(seconds=40), ["14:03:20", "14:03:30", "14:03:40", "14:03:50"]),
        (timedelta(minutes=12), ["14:04", "14:06", "14:08", "14:10", "14:12", "14:14"]),
        (timedelta(hours=3), ["14:30", "15:00", "15:30", "16:00", "16:30", "17:00"]),
        (timedelta(hours=20), ["18:00", "26 Nov 00:00", "06:00"]),
        (timedelta(days=40), ["30 Nov", "07 Dec", "14 Dec", "21 Dec", "28 Dec", "04 Jan"]),
    ],
)
def test_ticks_fall_on_round_times_and_say_the_day_when_it_changes(span, labels):
    found = ticks(START, START + span)
    assert [tick.label for tick in found] == labels
    assert len(found) <= MAX_TICKS
    assert all(0 <= tick.fraction <= 1 for tick in found)
    assert [tick.fraction for tick in found] == sorted(tick.fraction for tick in found)


def test_an_empty_span_still_has_its_start_labelled():
    assert [tick.label for tick in ticks(START, START)] == ["14:03:17"]


@pytest.mark.parametrize(
    ("span", "labels"),
    [
        (timedelta(seconds=0.4), ["14:03:17.1", "14:03:17.2", "14:03:17.3", "14:03:17.4"]),
        (timedelta(seconds=0.9), ["14:03:17.2", "14:03:17.4", "14:03:17.6", "14:03:17.8"]),
        (timedelta(seconds=0.05), ["14:03:17.01", "14:03:17.02", "14:03:17.03", "14:03:17.04", "14:03:17.05"]),
    ],
)
def test_a_span_under_a_second_gets_ticks_at_tenths_or_hundredths(span, labels):
    # A run an agent walked at once still has a readable axis, not a single clock time.
    start = START + timedelta(microseconds=1)
    assert [tick.label for tick in ticks(start, start + span)] == labels


def test_ticks_are_in_utc_whatever_the_time_zone_given():
    other = START.astimezone(timezone(timedelta(hours=5, minutes=30)))
    assert ticks(other, other + timedelta(minutes=12))[0].label == "14:04"


@pytest.mark.parametrize(
    ("span", "labels"),
    [
        # A burst within a second: one tick, its start, never the same clock time again at the bar's far end
        # (friction21a 3, 21b 1: two "14:03:17" far apart read as no scale).
        (timedelta(milliseconds=4), ["14:03:17"]),
        (timedelta(seconds=0.2), ["14:03:17"]),
        (timedelta(seconds=1.8), ["14:03:17", "14:03:18", "14:03:19"]),  # from a second on, clock ticks (friction12 1)
        (timedelta(seconds=8.2), ["14:03:18", "14:03:20", "14:03:22", "14:03:24"]),
        (timedelta(seconds=12), ["14:03:18", "14:03:20", "14:03:22", "14:03:24", "14:03:26", "14:03:28"]),
        (timedelta(seconds=119), ["14:03:30", "14:04:00", "14:04:30", "14:05:00"]),  # 14:03:30 stands near
        (timedelta(minutes=12), ["14:04", "14:06", "14:08", "14:10", "14:12", "14:14"]),
        (timedelta(hours=3), ["14:30", "15:00", "15:30", "16:00", "16:30", "17:00"]),
    ],
)
def test_the_axis_tells_the_clock_never_past_the_second(span, labels):
    # Friction9 item 6: "+4 ms, +8 ms" told nobody when things happened. A burst keeps its start's clock time
    # (its length is the timeline's summary's to say); a longer span's start is said when no round moment
    # stands near it; every label is a clock time (friction12 item 1).
    start = START + timedelta(microseconds=340_123)  # not a round moment
    found = axis(start, start + span)
    assert [tick.label for tick in found.ticks] == labels
    assert found.ticks[0].fraction <= START_ROOM  # the start, or a round moment near enough to stand for it
    assert [tick.fraction for tick in found.ticks] == sorted(tick.fraction for tick in found.ticks)
    assert found.step >= 1
    assert not [tick.label for tick in found.ticks if tick.precision == 0]


def test_a_burst_across_a_round_second_has_that_seconds_tick_too():
    # Friction12 item 1: a clock-tick axis wherever a round second falls inside the span, however short.
    start = START + timedelta(microseconds=700_000)
    found = axis(start, start + timedelta(milliseconds=500))
    assert [(tick.label, round(tick.fraction, 2)) for tick in found.ticks] == [("14:03:17", 0.0), ("14:03:18", 0.6)]


def test_the_end_is_said_where_no_tick_stands_near_it():
    # friction19b 16: the newest step (the working dot) had no time under it. A round tick well before the end
    # leaves room for the end's own clock time; one near it stands for it (as at the start).
    found = axis(START, START + timedelta(seconds=50)).ticks  # round ticks every 10 s up to 14:04:00
    assert [tick.label for tick in found] == ["14:03:20", "14:03:30", "14:03:40", "14:03:50", "14:04:00"]
    found = axis(START, START + timedelta(seconds=12.5)).ticks  # every 5 s, the last at 14:03:25
    assert [(tick.label, round(tick.fraction, 2)) for tick in found] == [
        ("14:03:20", 0.24),
        ("14:03:25", 0.64),
        ("14:03:29", 1.0),
    ]
    # The end said as precisely as the start would be: to the second on an axis of seconds, never finer.
    found = axis(START, START + timedelta(seconds=3.5)).ticks
    assert [tick.label for tick in found][-1] != "14:03:20.5" and all(len(t.label) == 8 for t in found)
    # Across a round second, that second's tick stands near enough: not the same clock time twice side by side.
    start = START + timedelta(microseconds=700_000)
    assert [tick.label for tick in axis(start, start + timedelta(milliseconds=500)).ticks] == ["14:03:17", "14:03:18"]


def test_a_single_moment_is_its_clock_time():
    assert [tick.label for tick in axis(START, START).ticks] == ["14:03:17"]


def test_an_axis_running_to_now_keeps_its_ticks_on_a_regular_grid():
    # friction25b 5: "1:59:55 → 2:00:10 → 2:00:20": the start's own label stood in for the round tick near it,
    # so the first gap was 15 s and the others 10 s. The round ticks stay whole; the start's label goes where a
    # round tick stands near it (the summary line says when the first step was).
    start = datetime(2026, 11, 30, 13, 59, 56, 300_000, tzinfo=UTC)
    found = axis(start, start + timedelta(seconds=48), newest=start + timedelta(seconds=20)).ticks
    moments = [tick.at for tick in found]
    gaps = {later - earlier for earlier, later in itertools.pairwise(moments)}
    assert len(found) >= 3 and len(gaps) == 1, [tick.label for tick in found]
    assert all(tick.precision is None for tick in found)  # every label a round moment
    assert found[0].label == "14:00:00"
