"""Ticks of the timeline's time axis (runs/readmodels/time_axis.py): round clock times in UTC, as many
as fit, labelled as precisely as their step needs, from seconds to weeks."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta, timezone

import pytest

from runs.readmodels.time_axis import MAX_TICKS, axis, offsets, ticks

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
        (timedelta(milliseconds=11), ["0 s", "+5 ms", "+10 ms"]),
        (timedelta(seconds=0.62), ["0 s", "+200 ms", "+400 ms", "+600 ms"]),
        (timedelta(seconds=1.1), ["0 s", "+500 ms", "+1 s"]),
        (timedelta(seconds=12), ["0 s", "+5 s", "+10 s"]),
        (timedelta(seconds=119), ["0 s", "+30 s", "+1 min", "+1 min 30 s"]),
    ],
)
def test_a_short_span_is_counted_from_its_start_in_even_steps(span, labels):
    start = START + timedelta(microseconds=340_123)  # not a round moment: the ticks still start at it
    found = offsets(start, start + span)
    assert [tick.label for tick in found.ticks] == labels and found.relative
    assert found.ticks[0].at == start and found.ticks[0].fraction == 0
    gaps = [b.fraction - a.fraction for a, b in itertools.pairwise(found.ticks)]
    assert max(gaps) - min(gaps) < 1e-9  # evenly spaced
    assert len(found.ticks) <= MAX_TICKS


def test_the_axis_counts_from_the_start_under_two_minutes_and_tells_the_clock_beyond():
    assert axis(START, START + timedelta(seconds=0.4)).relative
    assert axis(START, START + timedelta(seconds=119)).relative
    clock = axis(START, START + timedelta(minutes=12))
    assert not clock.relative and clock.step == 120 and clock.ticks[0].label == "14:04"
