"""Live updates leave the reader where they were: a focused link keeps focus when a step lands, the page
does not jump, and a polite live region announces the new step by its title (for screen readers)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.layout import assert_fits, keep_screenshot
from tests.support.sample_session import Built, advance, two_runs_one_forked_twice

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

LIVE_WAIT_MS = 10_000
STEPS = "section[aria-labelledby=steps-title] > ol.steps"  # the newest steps, where a new one lands


@pytest.fixture
def built(live_server, service_catalog) -> Built:
    return two_runs_one_forked_twice()


def test_a_step_landing_keeps_focus_and_place_and_is_announced(sized_page, console_log, live_server, built):
    page = sized_page
    page.goto(f"{live_server.url}/runs/{built.review_run}/")
    page.wait_for_load_state("networkidle")
    announcer = page.locator("#live-announcer")
    expect(announcer).to_have_attribute("aria-live", "polite")
    expect(announcer).to_have_text("")

    # The reader has scrolled to a step further down and tabbed to its "node" link.
    step = page.locator(f"{STEPS} > li.step").nth(2)
    if (page.viewport_size or {})["width"] < 600:  # a phone folds an answered step: the reader opens it first
        step.locator("summary.step-head h3").click()  # its title: the row's middle may be the step's page link
    link = step.locator(".step-head a")
    href = link.get_attribute("href")
    link.evaluate("element => element.scrollIntoView({block: 'center'})")
    link.focus()
    before = link.evaluate("element => element.getBoundingClientRect().top")
    scrolled = page.evaluate("window.scrollY")
    assert scrolled > 0

    last = built.answers[-1]
    title = last["pending"]["title"]
    advance(last, "A **live** note from the agent.")

    expect(page.locator(STEPS)).to_contain_text("A live note from the agent.", timeout=LIVE_WAIT_MS)
    # Said as its heading says it: the step's place in the outline, then the title.
    expect(announcer).to_have_text(re.compile(rf"^New step: {re.escape(title)} · step [\d.]+ of \d+(, round \d+)?$"))
    # The same link has the focus again (the old element was replaced), and it has not moved on screen.
    focused = page.evaluate("document.activeElement && document.activeElement.getAttribute('href')")
    assert focused == href
    after = page.locator(f'{STEPS} .step-head a[href="{href}"]').evaluate(
        "element => element.getBoundingClientRect().top"
    )
    assert abs(after - before) < 2
    # The new content's times are in the reader's zone as the rest (times.js runs on it), not the server's UTC.
    said = page.locator(f"{STEPS} time").all_text_contents()
    assert said and not [text for text in said if "UTC" in text], said
    keep_screenshot(page, "after-live-update")
    assert_fits(page)
    console_log.assert_clean()
