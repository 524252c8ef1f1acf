"""The sessions list as a first-time reader meets it, in a real browser at desktop (1440x900) and phone
(390x844) size (issue 32's second friction review, S1-S4): the sessions that need someone first in each
group and the settled ones dimmed; on a phone a headline card per session ("MR-77 · Blocked", where it is,
"2 runs · just now") without ids; the state chips as the one state filter, links that work
without any script; sort and group folded on a phone and applied as soon as they change; group headings
in plain words."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.layout import PHONE, assert_fits, keep_screenshot, on_one_line
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review
from tests.support.mcp_calls import start_workflow

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

# The block the agent is still retrying is the agent's move: after the stalled one, yours (friction11 7).
URGENT_FIRST = ["needs_you", "stalled", "blocked", "running", "canceled", "done"]


@pytest.fixture
def every_state(live_server, service_catalog, settings) -> dict[str, str]:
    """A session in each state, outside git, made oldest activity first in an order unlike the urgent one."""
    settings.WORKRAIL_STALL_MINUTES = 30
    done = start_workflow(made.PLAN, context={"sessionKey": "DONE-1"})
    made.run_to_the_end(done)
    waiting = made.waiting_for_user(service_catalog["extra"], quiet_minutes=45)
    stalled = made.stalled()
    canceled = made.canceled()
    running = start_workflow(made.PLAN, context={"sessionKey": "RUN-1"})
    start_workflow(made.PLAN, context={"sessionKey": "MR-77"})
    stuck = blocked_review("MR-77")
    return {
        "done": done["session"]["sessionId"],
        "needs_you": waiting.session_id,
        "stalled": stalled.session_id,
        "canceled": canceled.session_id,
        "running": running["session"]["sessionId"],
        "blocked": stuck.session_id,
    }


def box(locator: Any) -> dict[str, float]:
    found = locator.bounding_box()
    assert found is not None
    return found


def test_the_sessions_come_most_urgent_first_as_headline_cards_on_a_phone(
    sized_page, console_log, site, every_state, viewport
):
    page = sized_page
    page.goto(site + "/sessions/")
    page.wait_for_load_state("networkidle")
    keep_screenshot(page, "sessions-by-urgency")
    assert_fits(page)
    # New work starts from the head at every size: modest buttons beside the title; the import form is on
    # its own page, not under the list.
    head = page.locator(".page-head .head-actions")
    expect(head.get_by_role("link", name="Start a workflow")).to_have_attribute("href", "/workflows/")
    expect(head.get_by_role("link", name="Import")).to_have_attribute("href", "/sessions/import")
    assert box(head)["y"] + box(head)["height"] < box(page.locator("#f-q"))["y"]
    expect(page.locator("form.import-form")).to_have_count(0)
    rows = page.locator("tr.session-row")
    assert rows.evaluate_all("rows => rows.map(row => row.dataset.state)") == URGENT_FIRST
    # All outside any repository: the list is not grouped unless asked (friction15a 9), so no note says that
    # nothing groups, and the control says "No grouping".
    expect(page.locator("tr.group-row")).to_have_count(0)
    expect(page.locator("#one-group")).to_have_count(0)
    expect(page.locator("#f-group")).to_have_value("none")
    # Grouping picked: neither a heading row nor a line above the list says all are in one group (friction11
    # 6, friction12 6); the "Group by" control does (friction14), level with its select on a wide screen,
    # inside the folded control on a phone.
    page.goto(site + "/sessions/?group=branch")
    page.wait_for_load_state("networkidle")
    expect(page.locator("tr.group-row")).to_have_count(0)
    note = page.locator("#session-filters #one-group")
    expect(note).to_have_text("None of the 6 sessions recorded a repository")
    expect(page.locator("#f-group")).to_have_attribute("aria-describedby", "one-group")
    expect(note).to_be_visible()  # a grouping in use keeps the folded control open on a phone too
    select = box(page.locator("#f-group"))
    assert select["y"] < box(note)["y"] + box(note)["height"] / 2 < select["y"] + select["height"] or (
        viewport.name == "phone" and box(note)["y"] > select["y"]
    )
    keep_screenshot(page, "sessions-one-group-note")
    # Done and canceled read dimmer than the sessions someone acts on.
    colour = "row => getComputedStyle(row.querySelector('.session-link')).color"
    running, done = page.locator('tr[data-state="running"]'), page.locator('tr[data-state="done"]')
    muted = page.evaluate("getComputedStyle(document.querySelector('.muted')).color")
    assert done.evaluate(colour) == muted and running.evaluate(colour) != muted
    blocked = page.locator('tr[data-state="blocked"]')
    name, badge = blocked.locator(".session-link"), blocked.locator(".badge.state-blocked")
    where = blocked.locator(".where-line")
    said = "Merge Request Review (run 2 of 2): Record the Changed Files · step 2 of 8 · becomes your move in "
    expect(where).to_contain_text(said)
    expect(blocked).to_contain_text("the agent did not attach")  # the reason, on its own line (friction17b 17)
    if viewport.name == "phone":
        # Its pill on a line of its own, whole (friction10 7), then "MR-77" under it at the same left edge, as on
        # every card whatever its pill's length (friction62a 8); where it is under it, then one muted line of counts.
        assert (
            box(name)["y"] >= box(badge)["y"] + box(badge)["height"] - 1 and abs(box(badge)["x"] - box(name)["x"]) < 1
        )
        assert on_one_line(badge)
        assert box(where)["y"] > box(name)["y"] + box(name)["height"] - 1
        meta = blocked.locator(".card-meta")
        expect(meta).to_have_text("2 runs · just now")  # no run branched: no branch count (friction19b 13)
        assert box(meta)["y"] > box(where)["y"]
        # The session's other run, as on a desktop: a second active run is what a phone is checked for. Its own
        # line after where the session is and why, before the counts: over the where-line it read as the card's
        # headline (friction20b 20).
        others = blocked.locator(".session-others")
        expect(others).to_have_text("+1 run: Focused Plan Routine (working)")
        reason = blocked.locator(".where-reason")
        assert box(where)["y"] < box(reason)["y"] < box(others)["y"] < box(meta)["y"]
        # A headline card, not eight labelled lines: its head with its one pill (inside the card), its where-line
        # (the step, then its place and when it becomes yours: three lines), its other run's line and its counts.
        assert box(blocked)["height"] < 240
        assert box(badge)["x"] + box(badge)["width"] <= box(blocked)["x"] + box(blocked)["width"]
    else:
        # The table keeps its columns, the state and where it is first.
        headers = page.locator("table.session-list thead th").all_inner_texts()
        assert [h.strip().lower() for h in headers[:3]] == ["state", "title", "where it is"]
        assert "workflows" not in [h.strip().lower() for h in headers]
        # A workflow is named once per row: "Where it is" names the blocked run's; the title cell adds only the
        # session's other one. The session's id only in the link's title (its page shows it).
        expect(blocked.locator(".session-others")).to_have_text("+1 run: Focused Plan Routine (working)")
        expect(page.locator('tr[data-state="running"] .session-others')).to_have_count(0)
        expect(blocked.locator(".session-link")).to_have_attribute("title", re.compile(r"^session ses_"))
        expect(blocked.locator(".card-meta")).to_be_hidden()
    console_log.assert_clean()


def test_the_filters_by_whose_move_filter_at_once_without_any_script(browser, site, every_state):
    context = browser.new_context(viewport=PHONE.size, java_script_enabled=False, locale="en-US", timezone_id="UTC")
    try:
        page = context.new_page()
        page.goto(site + "/sessions/")
        expect(page.locator("#f-status")).to_have_count(0)  # no dropdown says what the filters say
        expect(page.locator("#f-sort")).to_be_visible()  # sent open: without the script nothing folds
        page.locator(".status-chips").get_by_text("Agent's move").click()
        expect(page).to_have_url(site + "/sessions/?status=agents")
        expect(page.locator("tr.session-row .badge[data-move=agents]")).to_have_count(
            page.locator("tr.session-row").count()
        )
        page.goto(site + "/sessions/?status=blocked")  # an older link by one state still filters by it
        expect(page.locator("tr.session-row")).to_have_count(1)
        expect(page.locator("tr.session-row .session-link")).to_have_text("MR-77")
        # Named by the words its rows' pills show (friction63a 2, 63b 4: "Refused 1" over a row pilled "Agent's move ·
        # Retrying"; no pill says "Refused"), whose move first and one chip per move (friction64: "Retrying, Agent
        # stopped or Needs your input" mixed the agent's move with yours): no row is yours, so no chip of yours.
        chosen = page.locator(".status-chips a[aria-current=true] .badge")
        expect(chosen).to_have_text("Agent's move · Retrying 1")
        expect(page.locator(".status-chips .badge")).to_have_count(5)
        expect(page.locator("tr.session-row .badge")).to_have_text("Agent's move · Retrying")
        assert chosen.evaluate("e => e.getClientRects().length") == 1
        line = chosen.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
        assert (chosen.bounding_box() or {"height": 0})["height"] < 2 * line + 12
        assert_fits(page)  # the headline card needs no script either
        # No session recorded a repository: not grouped, so no note says that nothing groups (friction15a 9).
        expect(page.locator("#session-filters #one-group")).to_have_count(0)
        keep_screenshot(page, "sessions-chip-without-script")
        # The search keeps the chosen state, and the "All" chip keeps the search.
        page.locator("#f-q").fill("MR-77")
        page.get_by_role("button", name="Search").click()
        expect(page).to_have_url(site + "/sessions/?q=MR-77&status=blocked&sort=urgency&group=none")
        expect(page.locator("tr.session-row")).to_have_count(1)
        page.locator(".status-chips").get_by_text("All 1").click()
        expect(page.locator("tr.session-row")).to_have_count(1)
        assert "status=" not in page.url and "q=MR-77" in page.url
    finally:
        context.close()


def test_on_a_phone_sort_and_group_fold_and_apply_when_changed(page, console_log, site, every_state):
    page.set_viewport_size(PHONE.size)
    page.goto(site + "/sessions/")
    expect(page.locator("#f-q")).to_be_visible()  # the search stays in sight
    expect(page.locator("#f-sort")).to_be_hidden()
    page.locator("#session-filters summary").click()
    with page.expect_navigation():
        page.locator("#f-sort").select_option("title")  # no button: the list follows at once
    assert "sort=title" in page.url
    names = page.locator("tr.session-row .session-link").all_inner_texts()
    assert names == sorted(names)
    expect(page.locator("#f-sort")).to_be_visible()  # a sort in use stays in view
    console_log.assert_clean()
