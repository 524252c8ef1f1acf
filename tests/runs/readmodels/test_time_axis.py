"""Ticks of the timeline's time axis (runs/readmodels/time_axis.py): round clock times in UTC, as many
as fit, labelled as precisely as their step needs, from seconds to weeks."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta, timezone

import pytest

from runs.readmodels import time_axis
from runs.readmodels.time_axis import MAX_TICKS, START_ROOM, axis, dot_ticks, ticks

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
        # A span under ten seconds: one tick, its start, to the minute; never "14:03:17 … 14:03:18" (friction21a 3,
        # 21b 1, friction59 T 1: ticks a second apart read as noise). Its length is the summary's to say.
        (timedelta(milliseconds=4), ["14:03"]),
        (timedelta(seconds=1.8), ["14:03"]),
        (timedelta(seconds=9.9), ["14:03"]),
        # Minutes and hours: round clock times without seconds, the start said where no round one stands near.
        (timedelta(seconds=120), ["14:03", "14:04", "14:05"]),
        (timedelta(minutes=12), ["14:04", "14:06", "14:08", "14:10", "14:12", "14:14"]),
        (timedelta(hours=3), ["14:30", "15:00", "15:30", "16:00", "16:30", "17:00"]),
        # Hours across midnight: the day where it turns.
        (timedelta(hours=20), ["18:00", "26 Nov 00:00", "06:00"]),
        # A day or more: every clock tick says its day, so that no two say the same words ("18:00" twice).
        (timedelta(hours=30), ["25 Nov 18:00", "26 Nov 00:00", "26 Nov 06:00", "26 Nov 12:00", "26 Nov 18:00"]),
        (
            timedelta(days=3),
            ["26 Nov 00:00", "26 Nov 12:00", "27 Nov 00:00", "27 Nov 12:00", "28 Nov 00:00", "28 Nov 12:00"],
        ),
        (timedelta(days=40), ["30 Nov", "07 Dec", "14 Dec", "21 Dec", "28 Dec", "04 Jan"]),
    ],
)
def test_the_axis_tells_the_clock_to_the_minute_and_the_day_on_a_span_of_days(span, labels):
    # Friction9 item 6: "+4 ms, +8 ms" told nobody when things happened. Friction59 T 1: "10:45:40 PM …
    # 10:45:41 PM" neither: the page writes times to the minute, and the axis does too, never two ticks alike.
    start = START + timedelta(microseconds=340_123)  # not a round moment
    found = axis(start, start + span)
    assert [tick.label for tick in found.ticks] == labels
    assert found.ticks[0].fraction <= START_ROOM  # the start, or a round moment near enough to stand for it
    assert [tick.fraction for tick in found.ticks] == sorted(tick.fraction for tick in found.ticks)
    assert found.step >= 60 and all(tick.precision in (None, 60) for tick in found.ticks)
    assert len({tick.label for tick in found.ticks}) == len(found.ticks)


@pytest.mark.parametrize(
    ("span", "labels"),
    [
        (timedelta(seconds=10), ["14:03:20", "14:03:25"]),
        (timedelta(seconds=59), ["14:03:20", "14:03:30", "14:03:40", "14:03:50", "14:04:00", "14:04:10"]),
        (timedelta(seconds=119), ["14:03:30", "14:04:00", "14:04:30", "14:05:00"]),
    ],
)
def test_a_short_span_is_zoomed_to_the_second(span, labels):
    # Friction61a 3, 61b 6: a run of under a minute was one tick and a long line to "now", read as idle for long.
    # From ten seconds to two minutes the axis ticks every 5 to 30 s, to the second, at least two ticks.
    start = START + timedelta(microseconds=340_123)
    found = axis(start, start + span)
    assert [tick.label for tick in found.ticks] == labels
    assert found.step < 60 and len(found.ticks) >= 2


def test_the_end_is_said_where_no_tick_stands_near_it():
    # friction19b 16: the newest step (the working dot) had no time under it. A round tick well before the end
    # leaves room for the end's own clock time; one near it stands for it (as at the start).
    found = axis(START, START + timedelta(minutes=50)).ticks  # round ticks every 10 min up to 14:50
    assert [tick.label for tick in found] == ["14:10", "14:20", "14:30", "14:40", "14:50"]
    found = axis(START, START + timedelta(minutes=12.5)).ticks  # every 5 min, the last at 14:15
    assert [(tick.label, round(tick.fraction, 2)) for tick in found] == [
        ("14:05", 0.14),
        ("14:10", 0.54),
        ("14:15", 0.94),
    ]
    found = axis(START, START + timedelta(minutes=25)).ticks  # every 5 min, the last at 14:25, 0.87 of the way
    assert [tick.label for tick in found][-1] == "14:25"
    # Never the same clock time twice: an end in the same minute as the last round tick is not said again.
    start = START + timedelta(seconds=40)
    assert [tick.label for tick in axis(start, start + timedelta(seconds=135)).ticks] == ["14:04", "14:05", "14:06"]


def test_a_single_moment_is_its_clock_time():
    assert [tick.label for tick in axis(START, START).ticks] == ["14:03"]


def test_an_axis_running_to_now_keeps_its_ticks_on_a_regular_grid():
    # friction25b 5: "1:59:55 → 2:00:10 → 2:00:20": the start's own label stood in for the round tick near it,
    # so the first gap was 15 s and the others 10 s. The round ticks stay whole; the start's label goes where a
    # round tick stands near it (the summary line says when the first step was).
    start = datetime(2026, 11, 30, 13, 59, 56, 300_000, tzinfo=UTC)
    found = axis(start, start + timedelta(minutes=48), newest=start + timedelta(minutes=20)).ticks
    moments = [tick.at for tick in found]
    gaps = {later - earlier for earlier, later in itertools.pairwise(moments)}
    assert len(found) >= 3 and len(gaps) == 1, [tick.label for tick in found]
    assert all(tick.precision is None for tick in found)  # every label a round moment
    assert found[0].label == "14:00"
    # Within a minute of now: zoomed, every 10 s, clear of "now" at the axis's end (friction61a 3: one tick and a
    # long line to "now" read as a run idle for long); under ten seconds, its start, once (friction59 T 1).
    found = axis(start, start + timedelta(seconds=40), newest=start + timedelta(seconds=1)).ticks
    assert [tick.label for tick in found] == ["14:00:00", "14:00:10", "14:00:20", "14:00:30"]
    found = axis(start, start + timedelta(seconds=8), newest=start + timedelta(seconds=1)).ticks
    assert [tick.label for tick in found] == ["13:59"]


@pytest.mark.parametrize(
    ("span", "newest", "labels"),
    [
        # A phone's axis says the dots' own moments (it has no tooltip: friction59 T 2): the first step's under
        # the first dot, the newest's under the newest, and round times only where clear of both.
        (timedelta(seconds=8), None, [("14:03", 0.0)]),
        (timedelta(seconds=30), None, [("14:03:17", 0.0), ("14:03:30", 0.43), ("14:03:47", 1.0)]),
        (timedelta(seconds=90), None, [("14:03:17", 0.0), ("14:03:45", 0.31), ("14:04:15", 0.64), ("14:04:47", 1.0)]),
        (timedelta(seconds=150), None, [("14:03", 0.0), ("14:05", 1.0)]),
        (timedelta(hours=3), None, [("14:03", 0.0), ("15:00", 0.32), ("16:00", 0.65), ("17:03", 1.0)]),
        # Running on to now: the newest dot's time where "now" leaves it room, else only the round ones.
        (timedelta(minutes=30), timedelta(minutes=10), [("14:03", 0.0), ("14:13", 0.33), ("14:25", 0.72)]),
        (timedelta(minutes=30), timedelta(seconds=2), [("14:03", 0.0), ("14:15", 0.39), ("14:25", 0.72)]),
    ],
)
def test_a_phones_axis_says_the_dots_own_times(span, newest, labels):
    found = dot_ticks(START, START + span, newest=None if newest is None else START + newest)
    assert [(tick.label, round(tick.fraction, 2)) for tick in found] == labels


def test_a_phones_ticks_beside_a_break_keep_their_room_in_pixels_to_the_second_too():
    # Friction64: beside a break a zoomed stretch takes three quarters of a phone's axis, and its labels to the second
    # ("10:03:21 AM") are wider than to the minute: two of them stood 2 px apart. Their room grows with both.
    start = datetime(2026, 12, 1, 10, 3, 21, 200000, tzinfo=UTC)
    end, newest = start + timedelta(seconds=30), start + timedelta(seconds=1)
    whole = [tick.fraction for tick in time_axis.dot_ticks(start, end, newest=newest)]
    beside = [tick.fraction for tick in time_axis.dot_ticks(start, end, newest=newest, share=0.73)]
    room = time_axis.NARROW_ROOM / 0.73 * time_axis.SECONDS_WIDER
    assert len(beside) >= 2 and all(b - a >= room for a, b in itertools.pairwise(beside)), beside
    assert any(b - a < room for a, b in itertools.pairwise(whole)), whole  # the whole axis's own rule, unchanged
