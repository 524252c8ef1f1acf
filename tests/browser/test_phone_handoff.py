"""Handing a message to the agent from a phone: its clipboard rarely reaches the agent running on the laptop
(friction16a 12), so where the browser can share (navigator.share) every button that copies a message for an
agent has a "Share…" beside it that hands the same text to the share sheet; the text stays readable under
"Check the message". A reply's "Share…" names the reply it shares and sits on its copy button's row (friction17).
Where the browser cannot share, there is no such button (copy.js)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.layout import visit
from tests.support import attention_sessions as made

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

# A share sheet that records what it was handed, as a phone's browser would offer it.
STUB_SHARE = """
Object.defineProperty(navigator, "share", {
  configurable: true,
  value: (data) => { window.__shared = (window.__shared || []).concat([data.text]); return Promise.resolve(); },
});
"""


def test_where_the_browser_can_share_each_message_has_a_share_button(sized_page, console_log, site, service_catalog):
    waiting = made.waiting_for_user(service_catalog["extra"])
    sized_page.add_init_script(STUB_SHARE)
    visit(sized_page, f"{site}/runs/{waiting.run_id}/", "share-replies")
    panel = sized_page.locator(".state-panel.state-waiting_for_user")
    shares = panel.locator(".share-button")
    expect(shares).to_have_count(2)  # one beside each reply, right after the button copying it, naming that reply
    expect(panel.locator(".copy-row button")).to_have_text(
        ["Copy “Confirmed” reply", "Share “Confirmed”…", "Copy “Not yet: change…” reply", "Share “Not yet”…"]
    )
    # Each reply's "Share…" keeps to its copy button: beside it where the row has room, else close under it, the
    # next reply's pair further away (friction17).
    pairs = [panel.locator(".copy-pair").nth(i) for i in range(2)]
    for pair, (copy_name, share_name) in zip(
        pairs, [("Copy “Confirmed”", "Share “Confirmed”…"), ("Copy “Not", "Share “Not")], strict=True
    ):
        expect(pair.locator("button")).to_have_count(2)
        copy, share = pair.locator("button").first.bounding_box(), pair.locator("button").last.bounding_box()
        assert copy and share
        expect(pair.locator("button").first).to_contain_text(copy_name)
        expect(pair.locator("button").last).to_contain_text(share_name)
        beside = abs(copy["y"] - share["y"]) < 2
        under = 0 <= share["y"] - (copy["y"] + copy["height"]) < 8
        assert beside or under, f"{share_name} is apart from its copy button"
    first, second = (pair.bounding_box() for pair in pairs)
    assert first and second
    if sized_page.viewport_size["width"] < 640:
        assert second["y"] - (first["y"] + first["height"]) >= 10  # the pairs set apart more than within a pair
    shares.first.click()
    expect(panel.get_by_text("Shared.")).to_be_visible()
    confirmed = panel.locator("pre.agent-message").first.text_content()
    assert sized_page.evaluate("window.__shared") == [confirmed]
    assert confirmed == "Confirmed: go on with “Approve the plan”."
    console_log.assert_clean()


def test_where_the_browser_cannot_share_there_is_no_share_button(page, console_log, site, service_catalog):
    waiting = made.waiting_for_user(service_catalog["extra"])
    page.add_init_script("delete Navigator.prototype.share; delete navigator.share;")
    page.goto(f"{site}/runs/{waiting.run_id}/")
    expect(page.get_by_role("button", name="Copy “Confirmed” reply").first).to_be_visible()
    expect(page.locator(".share-button")).to_have_count(0)
    console_log.assert_clean()
