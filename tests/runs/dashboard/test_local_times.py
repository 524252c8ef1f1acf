"""Every time the dashboard prints is one `when` tag's <time> element (runs/templatetags/dashboard.py):
the exact moment in UTC in its datetime attribute and its tooltip, which static/dashboard/times.js puts
in the reader's time zone. (The browser side: tests/browser/test_local_times.py.)"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.utils import timezone

from runs.contract.dashboard import Timed
from runs.templatetags.dashboard import lasting, when, words_when

TEMPLATES = Path(__file__).resolve().parents[3] / "workrail_site" / "templates" / "dashboard"
NEW_YORK = ZoneInfo("America/New_York")


def test_a_moment_is_a_time_element_in_utc_whatever_its_zone():
    moment = datetime(2026, 11, 28, 21, 5, 9, tzinfo=NEW_YORK)  # 2026-11-29 02:05:09 UTC
    assert when(moment) == (
        '<time datetime="2026-11-29T02:05:09+00:00" title="2026-11-29 02:05:09 UTC" data-when="time">'
        f"29 Nov{'' if timezone.now().year == 2026 else ' 2026'}, 02:05 UTC</time>"
    )
    assert when("2026-11-29T02:05:09+00:00", "time") == when(moment)  # as a synthesis stores it
    assert when(None) == "" and when("not a moment") == ""


def test_how_long_something_has_lasted_reads_in_whole_units():
    now = timezone.now()
    assert [lasting(now - timedelta(seconds=s), now) for s in (5, 150, 7300, 3 * 86400)] == [
        "for under a minute",
        "for 2 min",
        "for 2 h",
        "for 3 days",
    ]
    shown = when(now - timedelta(minutes=2, seconds=5), "for")
    # times.js keeps it true as time passes; the words flow with their line, the number held to its unit.
    assert 'data-when="for">for 2\u00a0min</time>' in shown


def test_without_a_script_the_page_says_utc_or_how_long_ago():
    moment = timezone.now() - timedelta(minutes=5)
    assert ">5 min ago</time>" in when(moment, "ago")
    both = when(moment, "both")
    assert 'data-when="both"' in both and " UTC (5 min ago)</time>" in both
    with pytest.raises(TemplateSyntaxError):
        when(moment, "relative")
    older = timezone.now() - timedelta(days=2)
    assert 'data-when="both"' in when(older, "both") and "ago" not in when(older, "both")  # not said twice


def test_a_chat_is_told_by_its_clock_and_how_long_ago_the_day_only_when_not_today():
    # friction28a 9: "started 45 min ago" in the head and "Nov 30, 5:10 PM" in the panel left a sum to do.
    now = timezone.now().astimezone(ZoneInfo("UTC"))
    moment = now - timedelta(minutes=45)
    said = when(moment, "clock")
    assert 'data-when="clock"' in said
    if moment.date() == now.date():
        assert f">{moment:%H:%M} UTC, 45 min ago</time>" in said
    older = now - timedelta(days=3)
    assert f">{older.day} {older:%b}" in when(older, "clock") and "ago" not in when(older, "clock")


def test_one_rule_for_every_time_relative_within_a_day_then_the_day_and_the_clock():
    """Lists say how fresh within the last day; past it, and where a page says when something happened, the
    day and the clock with no seconds; seconds only where timings are measured (the "seconds" form)."""
    now = timezone.now()
    this_year = datetime(now.year, 3, 4, 5, 6, 7, tzinfo=ZoneInfo("UTC"))
    assert ">4 Mar, 05:06 UTC</time>" in when(this_year)
    assert ">4 Mar, 05:06:07 UTC</time>" in when(this_year, "seconds")
    assert ">4 Mar 2020, 05:06 UTC</time>" in when(this_year.replace(year=2020))
    assert ">3 h ago</time>" in when(now - timedelta(hours=3), "ago")
    # Past a day how long ago is not said: the day and the clock are, as the "time" form says them.
    day_old = now - timedelta(hours=30)
    assert f'data-when="ago">{day_old.astimezone(ZoneInfo("UTC")):%-d %b}, ' in when(day_old, "ago")
    # The exact moment to the second is always in the tooltip.
    assert 'title="2020-03-04 05:06:07 UTC"' in when(this_year.replace(year=2020), "time")


def test_words_holding_a_moment_print_it_as_a_time_element():
    moment = datetime(2026, 11, 29, 2, 5, tzinfo=ZoneInfo("UTC"))
    said = words_when("stalled since 02:05 UTC: <go>", ("stalled since ", ": <go>"), moment)
    assert said == f"stalled since {when(moment)}: &lt;go&gt;"
    assert words_when("step 2 of 3 & more", None, moment) == "step 2 of 3 &amp; more"


def test_one_time_language_how_long_a_state_lasted_how_long_ago_and_how_long_until():
    """friction17a 4: "stalled for 45 min", "refused 5 min ago", "your move in 28 min", never a clock in a line
    beside "last activity just now"; the exact moment in the tooltip."""
    now = timezone.now()
    stalled = words_when("", Timed("stalled ", "", "for"), now - timedelta(minutes=45, seconds=5))
    assert stalled.startswith("stalled <time ") and 'data-when="for">for 45\u00a0min</time>' in stalled
    refused = words_when("", Timed("refused ", ", resend it", "ago"), now - timedelta(minutes=5))
    assert 'data-when="ago">5 min ago</time>, resend it' in refused
    yours = words_when(
        "", Timed("your move ", " if the agent has not resent it", "in"), now + timedelta(minutes=28, seconds=30)
    )
    assert 'data-when="in">in 28\u00a0min</time> if the agent has not resent it' in yours
    assert 'title="' in yours and " UTC" in yours.split('title="')[1]  # the exact moment in the tooltip
    assert ">now</time>" in when(now - timedelta(seconds=5), "in")  # once come, it is now


def test_the_tag_in_a_template():
    moment = datetime(2026, 11, 29, 2, 5, tzinfo=ZoneInfo("UTC"))
    shown = Template('{% load dashboard %}{% when at here|yesno:"both,time" %}').render(
        Context({"at": moment, "here": False})
    )
    assert shown == when(moment)


def test_no_template_writes_a_time_element_by_hand():
    """One tag prints every time, so that no page is left in UTC or without its datetime attribute."""
    by_hand = {path.name for path in TEMPLATES.glob("*.html") if "<time" in path.read_text()}
    assert by_hand == set()
    assert any("{% when " in path.read_text() for path in TEMPLATES.glob("*.html"))
