"""Handing a message to the agent from a phone: its clipboard rarely reaches the agent running on the laptop
(friction16a 12), so where the browser can share (navigator.share) every button that copies a message for an
agent has a "Share…" beside it that hands the same text to the share sheet; the text stays readable under
"Check the message". A reply's "Share…" names the reply it shares and sits on its copy button's row (friction17).
Where the browser cannot share, there is no such button (copy.js)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.layout import PASTE_NEXT, visit
from tests.support import attention_sessions as made

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

# A share sheet that records what it was handed, as a phone's browser would offer it.
STUB_SHARE = """
Object.defineProperty(navigator, "share", {
  configurable: true,
  value: (data) => { window.__shared = (window.__shared || []).concat([data.text]); return Promise.resolve(); },
});
"""


# Whether the run's headline's "for …" starts on the line of the word before it (where that line has room).
HOW_LONG_FLOWS = """
() => {
  const time = document.querySelector('#run-where time[data-when="for"]');
  const before = time.previousSibling;
  const words = before.textContent.trimEnd();
  const range = document.createRange();
  range.setStart(before, words.length - 1);
  range.setEnd(before, words.length);
  const last = [...range.getClientRects()].pop();
  const line = time.parentElement.getBoundingClientRect();
  const first = time.getClientRects()[0];
  const room = line.right - last.right > first.width || line.right - last.right > 40;
  return !room || Math.abs(first.top - last.top) < 2;
}
"""


def test_where_the_browser_can_share_each_message_has_a_share_button(sized_page, console_log, site, service_catalog):
    waiting = made.waiting_for_user(service_catalog["extra"])
    sized_page.add_init_script(STUB_SHARE)
    visit(sized_page, f"{site}/runs/{waiting.run_id}/", "share-replies")
    panel = sized_page.locator(".state-panel.state-waiting_for_user")
    shares = panel.locator(".share-button")
    expect(shares).to_have_count(2)  # one beside each reply, right after the button copying it, naming that reply
    # The Share is compact, an icon and its word (friction22b 16: an icon alone read as "upload"), its accessible
    # name saying which reply it shares (friction18a 18).
    for name in ["Share “Confirmed”…", "Share “Not yet”…"]:
        expect(panel.get_by_role("button", name=name, exact=True)).to_have_count(1)
    phone = sized_page.viewport_size["width"] < 640
    # The word is in sight at every size (friction26a 19, 26b 17: a bare icon on a phone), under the icon there,
    # where beside it would leave no room; named (aria-label) and titled too.
    expect(shares.locator(".share-word").first).to_be_visible()
    expect(shares.first).to_have_attribute("title", "Share “Confirmed”…")
    expect(shares).to_have_text(["Share", "Share"])
    if phone:  # a thumb's target: the button itself 44 px each way, its word readable (friction27a 10)
        word, icon = shares.first.locator(".share-word").bounding_box(), shares.first.locator("svg").bounding_box()
        assert word and icon and word["y"] >= icon["y"] + icon["height"] - 1, "the word is under its icon"
        box = shares.first.bounding_box()
        assert box and box["width"] >= 44 and box["height"] >= 43.5, box
        size = shares.first.locator(".share-word").evaluate("w => parseFloat(getComputedStyle(w).fontSize)")
        assert size >= 12, size
        assert word["y"] + word["height"] <= box["y"] + box["height"], "the word inside its button"
    # A reply not ready to copy is not ready to share: the Share beside the "Not yet" reply is off with it
    # (friction22a A3), whenever the share buttons were added.
    expect(panel.get_by_role("button", name="Share “Not yet”…")).to_be_disabled()
    sized_page.evaluate(
        "() => { document.querySelectorAll('.share-button').forEach(b => b.remove()); window.workrailShare(document); }"
    )
    expect(panel.get_by_role("button", name="Share “Not yet”…")).to_be_disabled()
    expect(panel.get_by_role("button", name="Share “Confirmed”…")).to_be_enabled()
    # Each reply is one row, at every size: its copy button with its Share beside it, the next reply's row
    # further away (friction18a 18, 18b 16).
    pairs = [panel.locator(".copy-pair").nth(i) for i in range(2)]
    for pair, (copy_name, share_name) in zip(
        pairs, [("Copy “Confirmed”", "Share “Confirmed”…"), ("Copy “Not", "Share “Not yet”…")], strict=True
    ):
        expect(pair.locator("button")).to_have_count(2)
        copy, share = pair.locator("button").first.bounding_box(), pair.locator("button").last.bounding_box()
        assert copy and share
        expect(pair.locator("button").first).to_contain_text(copy_name)
        expect(pair.locator("button").last).to_have_attribute("aria-label", share_name)
        assert abs(copy["y"] - share["y"]) < 2 and abs(copy["height"] - share["height"]) < 2, (
            f"{share_name} is not on its copy button's row"
        )
        assert 0 < share["x"] - (copy["x"] + copy["width"]) < 16
    first, second = (pair.locator("button").first.bounding_box() for pair in pairs)
    assert first and second
    if sized_page.viewport_size["width"] < 640:
        assert second["y"] - (first["y"] + first["height"]) >= 10  # the rows set apart
    # The headline's "for under a minute" flows with its line rather than dropping whole onto its own
    # (friction18a 5): it starts on the line that holds the words before it, where they leave room.
    assert sized_page.evaluate(HOW_LONG_FLOWS), "the time fell onto a line of its own"
    shares.first.click()
    expect(panel.get_by_text("Shared.")).to_be_visible()
    confirmed = panel.locator("pre.agent-message").first.text_content()
    assert sized_page.evaluate("window.__shared") == [confirmed]
    assert confirmed == "Confirmed: go on with “Approve the plan”."
    console_log.assert_clean()


def test_not_yet_carries_what_should_change_and_a_copy_says_to_paste(sized_page, console_log, site, service_catalog):
    """Over "Not yet" a box takes what should change; the copied and shared reply carry it in place of the
    blank (friction18b 12), and the status after a copy says the next step: paste (friction18a 10)."""
    waiting = made.waiting_for_user(service_catalog["extra"])
    sized_page.add_init_script(STUB_SHARE)
    sized_page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    sized_page.clock.install()  # the page's timers wait for the test's word: a status's life is not a sleep
    sized_page.goto(f"{site}/runs/{waiting.run_id}/")
    panel = sized_page.locator(".state-panel.state-waiting_for_user")
    reason = panel.get_by_label("What should change?")
    expect(reason).to_be_visible()
    copy_changes = panel.get_by_role("button", name="Copy “Not yet: change…” reply")
    # friction28a 18: on a desktop the box and its button share one line, the box first; on a phone the box is
    # over its button, the panel's width, so it is filled before the copy (friction19a 7).
    box, button = reason.bounding_box(), copy_changes.bounding_box()
    assert box and button
    if sized_page.viewport_size["width"] > 640:
        assert box["x"] + box["width"] <= button["x"] and abs(box["y"] - button["y"]) < button["height"], (box, button)
    else:
        assert box["y"] + box["height"] <= button["y"], (box, button)
        row = panel.locator(".copy-row.replies").bounding_box()
        assert row and box["width"] >= row["width"] - 2, (box, row)
    # Left empty, the reply keeps its blank, and its buttons are off until there is something to change
    # (friction20b 9: a "Not yet" that says nothing could be copied); the confirmation's are on.
    expect(panel.locator("[id$=-changes-blank]")).to_have_text("…")
    expect(copy_changes).to_be_disabled()
    # Why it is off is the box's placeholder, not a line under the button (friction28a 18), short enough to be
    # read whole in the box at every size (friction29a 1: "…to enable this rep" on a phone), its label in sight.
    expect(reason).to_have_attribute("placeholder", "Type it to enable this reply")
    expect(panel.locator("label.reply-reason")).to_contain_text("What should change?")
    fits = reason.evaluate(
        "i => { const s = getComputedStyle(i); const c = document.createElement('canvas').getContext('2d');"
        " c.font = s.font; return c.measureText(i.placeholder).width"
        " <= i.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight); }"
    )
    assert fits, "the placeholder is cut short in its box"
    expect(panel.locator(".reply-needs-text")).to_have_count(0)
    # One look for every button that is off (friction28b 9): the same as any plain button that is off.
    look = (
        "b => { const s = getComputedStyle(b); return [s.backgroundColor, s.borderTopColor, s.borderTopStyle,"
        " s.color, s.opacity]; }"
    )
    plain = sized_page.evaluate(
        f"() => {{ const b = document.createElement('button'); b.disabled = true; b.className = 'primary';"
        f" document.querySelector('main').append(b); const look = ({look})(b); b.remove(); return look; }}"
    )
    assert copy_changes.evaluate(look) == plain
    expect(panel.get_by_role("button", name="Share “Not yet”…")).to_be_disabled()
    expect(panel.get_by_role("button", name="Copy “Confirmed” reply")).to_be_enabled()
    reason.fill("  ")
    expect(copy_changes).to_be_disabled()
    reason.fill("split the migration in two")
    expect(copy_changes).to_be_enabled()
    expect(panel.get_by_role("button", name="Share “Not yet”…")).to_be_enabled()
    copy_changes.click()
    expect(panel.get_by_text(PASTE_NEXT, exact=True)).to_be_visible()
    # It stays until the page changes, not for a few seconds as other statuses do (friction20b 10: did it work?).
    sized_page.clock.fast_forward(60_000)
    expect(panel.get_by_text(PASTE_NEXT, exact=True)).to_be_visible()
    wanted = "Not yet: change split the migration in two before you go on with “Approve the plan”."
    assert sized_page.evaluate("navigator.clipboard.readText()") == wanted
    panel.get_by_role("button", name="Share “Not yet”…").click()
    assert sized_page.evaluate("window.__shared") == [wanted]
    # Emptied again, the blank comes back and the buttons are off again.
    reason.fill("")
    expect(copy_changes).to_be_disabled()
    expect(panel.locator("pre.agent-message").nth(1)).to_have_text(
        "Not yet: change … before you go on with “Approve the plan”."
    )
    console_log.assert_clean()


def test_where_the_browser_cannot_share_there_is_no_share_button(page, console_log, site, service_catalog):
    waiting = made.waiting_for_user(service_catalog["extra"])
    page.add_init_script("delete Navigator.prototype.share; delete navigator.share;")
    page.goto(f"{site}/runs/{waiting.run_id}/")
    expect(page.get_by_role("button", name="Copy “Confirmed” reply").first).to_be_visible()
    expect(page.locator(".share-button")).to_have_count(0)
    console_log.assert_clean()
