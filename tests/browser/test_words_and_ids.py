"""Ids read as ids and a phone's sessions list opens with what matters, in a real browser (issue 32's
friction review): a monospace id in a link is not underlined (the line hid its underscores), tag chips
are words, and on a phone the sessions list folds sort and group and leads each card with the state."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from runs.models import Run
from tests.browser.layout import assert_fits, keep_screenshot
from tests.support import attention_sessions as made
from tests.support.mcp_calls import start_workflow

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

PHONE = {"width": 390, "height": 844}


def test_ids_in_links_show_their_underscores(page, live_server, service_catalog, console_log):
    start_workflow("wr.routine-focused_plan")
    run = Run.objects.get()
    page.goto(f"{live_server.url}/runs/{run.public_id}/")  # the run's Details fold links its workflow by id
    page.locator("#run-details summary").click()
    link = page.locator('a.mono[href="/workflows/wr.routine-focused_plan/"]').first
    expect(link).to_be_visible()
    assert link.evaluate("a => getComputedStyle(a).textDecorationLine") == "none"
    link.hover()  # the hover still shows it is a link: a tint in place of the line
    assert link.evaluate("a => getComputedStyle(a).backgroundColor") != "rgba(0, 0, 0, 0)"
    page.goto(f"{live_server.url}/workflows/")  # the catalog says ids as text under the names (its own test)
    chip = page.locator(".tag-filters a.tag").first
    assert chip.evaluate("a => getComputedStyle(a).textDecorationLine") == "none"
    assert "mono" not in chip.evaluate("a => getComputedStyle(a).fontFamily").lower()
    console_log.assert_clean()


def test_on_a_phone_the_sessions_list_folds_sort_and_group_and_leads_with_the_state(
    page, live_server, service_catalog, console_log
):
    made.waiting_for_user(service_catalog["extra"])
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-05"})
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/sessions/")
    filters = page.locator("#session-filters")
    expect(filters.locator("summary")).to_have_text("Sort and group")
    expect(page.locator("#f-q")).to_be_visible()  # the search stays in sight, one line
    expect(page.locator("#f-sort")).to_be_hidden()  # folded: the sessions come first
    row = page.locator("tr.session-row").first
    state = row.locator("td.session-state .badge").bounding_box()  # the cell itself is a flow, no box
    where = row.locator(".where-line").bounding_box()  # the cell's lines join the card's flow: no box of its own
    assert state is not None and where is not None and state["y"] < where["y"]
    keep_screenshot(page, "sessions-phone-folded")
    assert_fits(page)
    filters.locator("summary").click()
    expect(page.locator("#f-sort")).to_be_visible()
    page.set_viewport_size({"width": 1440, "height": 900})  # a wide window: always open, no summary
    expect(page.locator("#f-sort")).to_be_visible()
    expect(filters.locator("summary")).to_be_hidden()
    console_log.assert_clean()
