"""Times in the reader's own time zone (static/dashboard/times.js), in a browser set to New York: the
dashboard shows the day and local clock ("28 Nov, 14:05") and how long ago ("45 min ago") where
the server printed UTC, keeps the exact UTC moment in each time's tooltip, and every <time> on the main
pages carries the machine-readable moment in its datetime attribute."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DEFAULT_TIMEOUT_MS, REPORT_VIOLATIONS
from tests.browser.layout import DESKTOP, PHONE, assert_fits, keep_screenshot
from tests.support import attention_sessions as made

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

ZONE = "America/New_York"
# Each <time> on the page: its datetime attribute, its text, its tooltip, and whether a person sees it.
TIMES = """() => [...document.querySelectorAll("time")].map((t) => ({
  datetime: t.getAttribute("datetime"), text: t.textContent, title: t.getAttribute("title") || "",
  when: t.getAttribute("data-when"), shown: t.getClientRects().length > 0,
}))"""


def local_clock(page: Any, iso: str, day: bool = False, seconds: bool = False) -> str:
    """What times.js writes for a moment in New York with an en-GB locale: the clock ("14:05", as the
    timeline's axis says it; with `seconds` "14:05:30", as a zoomed axis does), or with `day` the day and the clock,
    as the `time` form says it ("28 Nov, 14:05"). The browser's own Intl in New York's zone, named explicitly (it
    writes the hour 0 as "0:11", not "00:11")."""
    options = (
        "{hour: 'numeric', minute: '2-digit', timeZone: zone"
        + (", second: '2-digit'" if seconds else "")
        + (", day: 'numeric', month: 'short'}" if day else "}")
    )
    return str(
        page.evaluate(
            f"([iso, zone]) => new Intl.DateTimeFormat('en-GB', {options}).format(new Date(iso))", [iso, ZONE]
        )
    )


def utc_stamp(iso: str) -> str:
    return f"{datetime.fromisoformat(iso).astimezone(ZoneInfo('UTC')):%Y-%m-%d %H:%M:%S} UTC"


def times_on(page: Any) -> list[dict[str, Any]]:
    found = page.evaluate(TIMES)
    assert found, f"{page.url} shows no time"
    for time in found:
        assert time["datetime"], f"{page.url}: a <time> without a datetime attribute: {time}"
        datetime.fromisoformat(time["datetime"])  # a moment a program can read
        assert time["when"] in ("time", "ago", "both", "clock", "for", "in"), (
            f"{page.url}: not printed by the `when` tag: {time}"
        )
        # In the reader's zone, with the exact UTC moment in the tooltip; "UTC" is no longer in the text.
        assert utc_stamp(time["datetime"]) in time["title"], time
        assert "UTC" not in time["text"], f"{page.url}: still in UTC: {time}"
    return found


@pytest.fixture
def new_york(browser: Any, console_log: Any) -> Any:
    context = browser.new_context(viewport=DESKTOP.size, locale="en-GB", timezone_id=ZONE)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    context.add_init_script(REPORT_VIOLATIONS)
    page = context.new_page()
    page.on("console", console_log.on_console)
    page.on("pageerror", console_log.on_page_error)
    yield page
    context.close()


def test_times_are_local_with_utc_in_the_tooltip(new_york, console_log, site, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    stalled = made.stalled()  # its steps 45 minutes ago
    page = new_york

    page.goto(site + "/sessions/")
    row = page.locator('.where-line[data-place="stalled"]')
    since = row.locator("time")
    expect(since).to_have_count(1)
    at = since.get_attribute("datetime")
    assert at is not None
    # "stalled for 45 min" (friction17a 4: one time language), the exact moment in its tooltip.
    expect(row).to_contain_text("step 2 of 3 · stalled for 45 min")
    assert utc_stamp(at) in (since.get_attribute("title") or "")
    expect(page.locator(".session-activity time")).to_have_text("45 min ago")  # the server's words too
    keep_screenshot(page, "sessions-local")
    page.set_viewport_size(PHONE.size)
    keep_screenshot(page, "sessions-local")
    assert_fits(page)
    page.set_viewport_size(DESKTOP.size)
    times_on(page)

    page.goto(f"{site}/runs/{stalled.run_id}/")
    # The run card's status line says how long, as the list does; the exact moment, in New York's time, on hover.
    where = page.locator("#run-where")
    expect(where).to_contain_text("stalled for 45 min")
    moment = where.locator("time").get_attribute("datetime") or ""
    assert utc_stamp(moment) in (where.locator("time").get_attribute("title") or "")
    steps = page.locator("[data-step-node] time[data-when='time']")
    first = steps.first.get_attribute("datetime")
    assert first is not None
    expect(steps.first).to_have_text(local_clock(page, first, day=True))
    keep_screenshot(page, "run-local")
    page.set_viewport_size(PHONE.size)
    keep_screenshot(page, "run-local")
    assert_fits(page)
    page.set_viewport_size(DESKTOP.size)
    shown = [time for time in times_on(page) if time["shown"]]
    # One rule on the page: the session's head says when it started as its last activity, how long ago
    # (friction26a 14: a clock beside "45 min ago" read as two styles in one line), the clock in the tooltip;
    # said once: its one run started with it.
    assert any(time["when"] == "ago" for time in shown), "the page says how long ago its last activity was"
    started = page.locator("#session-facts li").filter(has_text=re.compile(r"^started")).locator("time")
    expect(started).to_have_attribute("data-when", "ago")
    expect(started).to_have_text(re.compile(r"^\d+ min ago$"))
    expect(started).to_have_attribute("title", re.compile(r"\d{1,2}:\d\d"))
    expect(page.locator("#run-facts > li > time")).to_have_count(0)  # a panel's "since" waits in its Details fold

    node = page.locator("[data-step-node]").first.get_attribute("data-step-node")
    page.goto(f"{site}/nodes/{node}/")
    times_on(page)
    page.goto(f"{site}/sessions/{stalled.session_id}/#timeline")
    times_on(page)
    # The timeline's span on the reader's clock too: its steps read 22:10, so must the axis's ticks. Its steps
    # came within a second, 45 minutes ago: the axis draws ten seconds to scale before its break (friction60a 10,
    # 64), each tick to the second on the reader's clock ("17:10:05" in New York, as the page writes a zoomed
    # axis); the quiet since is a gap at its end, which the summary line says in words.
    ticks = page.locator("svg.tl-axis text.tl-tick")
    assert ticks.count() >= 2
    for tick in ticks.all():
        # A tick on another day than the one before it says its day first ("1 Dec 0:00"): near midnight in New
        # York (05:00-06:00 UTC) the 45 minutes cross it, so the clock must end the label, the day may lead it.
        zoomed = float(tick.get_attribute("data-tick-step") or "60") < 60
        clock = re.escape(local_clock(page, tick.get_attribute("data-tick-at") or "", seconds=zoomed))
        expect(tick).to_have_text(re.compile(rf"^(\d{{1,2}} \w{{3}},? )?{clock}$"))
    summary = page.locator("#timeline > summary .fold-parts")
    expect(summary).to_have_text(re.compile(r"\s·\sstarted .+\s·\slast step 45 min ago\s*$"))
    first = summary.locator("time").first
    expect(first).to_contain_text(local_clock(page, first.get_attribute("datetime") or ""))
    console_log.assert_clean()


def test_a_time_is_said_again_when_it_ages(new_york, site, settings):
    """A live page's relative times do not stand still: a moment put an hour back reads "1 hour ago" at
    the next pass, with no reload (times.js, also run on each live update)."""
    made.stalled()
    page = new_york
    page.goto(site + "/sessions/")
    activity = page.locator(".session-activity time")
    expect(activity).to_have_text("45 min ago")
    earlier = (datetime.fromisoformat(activity.get_attribute("datetime") or "") - timedelta(hours=1)).isoformat()
    page.evaluate(
        "([t]) => { const e = document.querySelector('.session-activity time'); e.setAttribute('datetime', t);"
        " document.dispatchEvent(new CustomEvent('live:updated')); }",
        [earlier],
    )
    expect(activity).to_have_text("2 h ago")
    # A day back, past the rule's last day: the day and the clock, no longer how long ago.
    older = (datetime.fromisoformat(earlier) - timedelta(days=1)).isoformat()
    page.evaluate(
        "([t]) => { const e = document.querySelector('.session-activity time'); e.setAttribute('datetime', t);"
        " document.dispatchEvent(new CustomEvent('live:updated')); }",
        [older],
    )
    expect(activity).to_have_text(local_clock(page, older, day=True))
