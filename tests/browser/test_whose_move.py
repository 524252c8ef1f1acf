"""Whose move it is, and the one message for the agent, in a real browser at desktop (1440x900) and phone
(390x844) size: one chip for every state a person may act on, the state then whose move and the move ("Needs
you · your move: confirm", "Blocked · agent's move: resend the step", "Stalled · your move: resume the agent"), on every
row, run card and page head; the
"Your move" chip as the umbrella, the blocked panel's line and button in sight, what the button copies, and
colours that mean one thing (amber for a person's move, Left behind apart from Canceled, the timeline dots in
their badge's colour, a neutral 404 advice box)."""

from __future__ import annotations

import colorsys
import re
from datetime import timedelta

import pytest
from django.db.models import F
from playwright.sync_api import expect

from runs.models import Ack
from runs.readmodels import attention
from tests.browser.layout import assert_copy_buttons_whole, css_colour, keep_screenshot, on_one_line, visit
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

BUTTON = "Copy the message for the agent"


def colour(locator, prop: str) -> str:
    return locator.evaluate(f"(e) => getComputedStyle(e).{prop}")


def hue_apart(page, first: str, second: str) -> float:
    """How far apart, in degrees of hue, two of the stylesheet's colour variables are."""
    rgbs = page.evaluate(
        """(names) => names.map((name) => { const e = document.createElement('i'); e.style.color = `var(${name})`;
             document.body.append(e); const c = getComputedStyle(e).color; e.remove();
             return c.match(/\\d+/g).slice(0, 3).map(Number); })""",
        [first, second],
    )
    hues = [colorsys.rgb_to_hls(*(channel / 255 for channel in rgb))[0] * 360 for rgb in rgbs]
    apart = abs(hues[0] - hues[1]) % 360
    return min(apart, 360 - apart)


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two computed "rgb(r, g, b)" colours."""

    def luminance(rgb: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", rgb)[:3]]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_blocked_panel_copies_the_message_for_the_agent_in_sight(
    sized_page, console_log, site, service_catalog, settings
):
    settings.WORKRAIL_STALL_MINUTES = 30
    sized_page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    stuck = blocked_review("MR-77")
    visit(sized_page, f"{site}/runs/{stuck.run_id}/", "blocked-message")
    panel = sized_page.locator(".blocked-panel")
    # Whose move and the move, in the one chip with the state: the run card's status line, quiet (the agent's),
    # on the first screen; not in the page's head, the runs column's one card or the panel (said once).
    chip = sized_page.locator(".run-status .state-chip")
    label = chip.locator(".move")
    expect(chip).to_have_text("Blocked · agent's move: resend the step")
    expect(label).to_be_in_viewport()
    assert on_one_line(label) and on_one_line(chip.locator(".badge"))  # no pill breaks inside itself (friction11 10)
    expect(sized_page.locator(".page-head .state-chip, .runs-nav .state-chip")).to_have_count(0)
    expect(panel.locator(".move")).to_have_count(0)
    retrying_fill = colour(panel, "backgroundColor")  # nothing for the person to do: no alarming red fill
    # The badge keeps Blocked's one red look whoever's move it is (friction12 3); the move half is the agent's
    # quiet grey, so the chip reads "blocked, the agent acts" (friction11 7) without a second look for Blocked.
    head_badge = chip.locator(".badge.state-blocked")
    red, pale = css_colour(sized_page, "--bad"), css_colour(sized_page, "--bad-soft")
    assert (colour(head_badge, "color"), colour(head_badge, "backgroundColor")) == (red, pale)
    assert colour(label, "backgroundColor") == css_colour(sized_page, "--surface") != pale
    assert contrast(colour(head_badge, "color"), colour(head_badge, "backgroundColor")) >= 4.5  # WCAG AA
    # The agent's move: it retries by itself; the message for when it has stopped is one click away.
    expect(panel.locator("#blocked-next-1")).to_contain_text("normally resends the step by itself")
    button = panel.get_by_role("button", name=BUTTON)
    expect(button).not_to_be_visible()
    panel.locator("#if-stopped-1 summary").click()
    expect(button).to_be_visible()
    expect(sized_page.get_by_role("button", name=BUTTON)).to_have_count(1)
    message = panel.locator(".agent-message").inner_text().strip()
    assert message.startswith('Resume the WorkRail workflow: call continue_workflow with stateToken "st1_')
    button.click()
    expect(panel.locator("[data-copy-status]").first).to_have_text("Copied.")
    assert sized_page.evaluate("navigator.clipboard.readText()").strip() == message

    # The agent has not tried again for the stall window: the person's move, and the panel leads with the
    # message and its button, nothing to open.
    made.quiet(stuck.run_id)
    Ack.objects.filter(node__run__public_id=stuck.run_id).update(created_at=F("created_at") - timedelta(minutes=45))
    attention._KEPT.clear()  # kept by the session's last event: moving times back records none
    sized_page.reload()
    expect(label).to_have_text("your move: resume the agent")
    expect(sized_page.locator(".runs-nav .move")).to_have_count(0)
    # Said by the status line's chip alone.
    assert sized_page.locator("body").inner_text().lower().count("your move") == 1
    # In the solid amber that means "you act" everywhere (the "Needs you" badge's colour), not Blocked's red.
    amber = css_colour(sized_page, "--warn")
    assert colour(label, "backgroundColor") == amber
    # The status line no longer says the agent must act: it has not resent the step; the panel says what is wrong.
    expect(sized_page.locator("#run-where")).to_contain_text(", the agent has not resent it")
    expect(panel.locator("h3")).to_have_count(0)
    assert colour(panel, "backgroundColor") != retrying_fill  # the red fill is kept for the person's move
    # The badge does not change with whose move: the same red look as when the agent retried (friction12 3).
    assert (colour(head_badge, "color"), colour(head_badge, "backgroundColor")) == (red, pale)
    expect(panel.locator(".if-stopped")).to_contain_text("has not tried again for 45 minutes")
    expect(button).to_be_visible()
    assert_copy_buttons_whole(sized_page)  # inside the red box, its words on one line on a phone too
    keep_screenshot(sized_page, "blocked-yours")
    # The dark scheme keeps the red look readable (WCAG AA) on the badge and on the move half.
    sized_page.emulate_media(color_scheme="dark")
    assert contrast(colour(head_badge, "color"), colour(head_badge, "backgroundColor")) >= 4.5
    assert contrast(colour(label, "color"), colour(label, "backgroundColor")) >= 4.5
    console_log.assert_clean()


def test_each_row_of_the_list_says_whose_move_it_is(sized_page, console_log, site, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    made.waiting_for_user(service_catalog["extra"], quiet_minutes=45)
    blocked_review("MR-77")
    made.stalled()
    made.canceled()
    visit(sized_page, site + "/sessions/", "sessions-moves")
    rows = sized_page.locator("tr.session-row")
    # Every row a person acts on has one chip: its state, then its move in the amber that means "you act",
    # whatever its own badge's colour, in one pattern for every state (friction13 1); the agent's move is quiet;
    # Canceled, nobody's: the badge alone.
    amber = colour(rows.filter(has=sized_page.locator(".badge.state-needs_you")).locator(".badge"), "backgroundColor")
    for state, said in (
        ("needs_you", "Needs you · your move: confirm"),
        ("stalled", "Stalled · your move: resume the agent"),
        ("blocked", "Blocked · agent's move: resend the step"),
    ):
        row = rows.filter(has=sized_page.locator(f".badge.state-{state}"))
        expect(row.locator(".state-chip")).to_have_text(said)
        expect(row.locator(".move")).to_be_visible()
        # One pill: the move's segment starts where the badge ends, on the same line.
        badge, move = row.locator(".state-chip .badge").bounding_box(), row.locator(".move").bounding_box()
        assert badge and move and abs(move["x"] - (badge["x"] + badge["width"])) < 1 and move["y"] < badge["y"] + 4
        # Whole: the move never breaks inside its pill; a chip too wide for its line moves down whole
        # (friction10 7).
        assert on_one_line(row.locator(".move")), state
        assert (colour(row.locator(".move"), "backgroundColor") == amber) == (state != "blocked"), state
    expect(rows.filter(has=sized_page.locator(".badge.state-canceled")).locator(".move")).to_have_count(0)
    expect(sized_page.locator("tr.session-row .move")).to_have_count(3)
    # The "Your move" chip counts exactly the rows whose chip says the move is theirs.
    expect(sized_page.locator('tr.session-row .move[data-move="yours"]')).to_have_count(2)
    # The chip for people comes first, the umbrella over the states that are the person's to act on, and
    # keeps exactly those rows: the one that needs the person, the stalled one.
    chips = sized_page.locator(".status-chips > li")
    # One call to action, "Your move", solid amber (friction11 6), its total not said again beside the counts of
    # its reasons, which add up to it (friction13 1)...
    expect(chips.first.locator(".chip-yours")).to_have_text("Your move")
    assert colour(chips.first.locator(".chip-yours"), "backgroundColor") == amber
    umbrella = chips.first.locator("a:has(.chip-yours)")
    expect(umbrella).to_have_attribute("title", re.compile("Your move: the sessions waiting"))
    # ...with its reasons inside its amber frame, chips of the same system as every other state's (one row, one
    # look, each its state's filter and colour: friction12 6), not peers beside it; the Blocked chip, which holds
    # the agent's retries too, stays with the others.
    family = sized_page.locator(".status-chips > li.chip-umbrella")
    reasons = family.locator(".chip-reason .badge")
    expect(reasons).to_have_text(["Needs you 1", "Stalled 1"])
    assert colour(family, "borderTopColor") == amber
    assert colour(reasons.first, "backgroundColor") == amber  # Needs you's own colour, as in its rows
    assert colour(reasons.nth(1), "backgroundColor") == css_colour(sized_page, "--stale-soft")
    for reason in (reasons.first, reasons.nth(1)):  # one chip system: the state chips' own size and shape
        for prop in ("fontSize", "borderTopLeftRadius", "paddingLeft"):
            assert colour(reason, prop) == colour(sized_page.locator(".status-chips .badge.state-blocked"), prop)
        rb, fb = reason.bounding_box(), family.bounding_box()
        assert rb and fb and fb["x"] <= rb["x"] and rb["x"] + rb["width"] <= fb["x"] + fb["width"] + 0.5
    expect(sized_page.locator(".status-chips > li > a .badge.state-needs_you")).to_have_count(0)
    expect(chips.nth(1)).to_contain_text("All ")
    expect(chips.nth(2)).to_contain_text("Blocked 1")
    # Each chip's count is the rows it keeps: a reason's link keeps its state's rows.
    assert reasons.first.locator("xpath=..").get_attribute("href") == "?status=needs_you"
    # Your move is one solid amber pill, whatever the state's own badge (friction11 8): the stalled badge keeps
    # its own soft fuchsia look. Blocked keeps its one red look while the agent retries, the same as its filter
    # chip's; the move half beside it is the agent's quiet grey (friction12 3, friction11 7).
    stalled = rows.filter(has=sized_page.locator(".badge.state-stalled"))
    assert colour(stalled.locator(".move"), "backgroundColor") == amber
    assert colour(stalled.locator(".badge"), "backgroundColor") == css_colour(sized_page, "--stale-soft")
    blocked = rows.filter(has=sized_page.locator(".badge.state-blocked"))
    look = (colour(blocked.locator(".badge"), "color"), colour(blocked.locator(".badge"), "backgroundColor"))
    assert look == (css_colour(sized_page, "--bad"), css_colour(sized_page, "--bad-soft"))
    chip = sized_page.locator(".status-chips .badge.state-blocked")
    assert (colour(chip, "color"), colour(chip, "backgroundColor")) == look
    assert colour(blocked.locator(".move"), "color") == css_colour(sized_page, "--muted")
    umbrella.click()
    expect(sized_page).to_have_url(f"{site}/sessions/?status=yours")
    expect(rows).to_have_count(2)
    expect(rows.filter(has=sized_page.locator(".badge.state-needs_you, .badge.state-stalled"))).to_have_count(2)
    # A row and its run's page say the same move.
    sized_page.goto(site + "/sessions/")
    rows.filter(has=sized_page.locator(".badge.state-blocked")).locator(".where-line a").click()
    expect(sized_page.locator(".run-status .move")).to_have_text("agent's move: resend the step")
    console_log.assert_clean()


def test_colours_mean_one_thing(sized_page, console_log, site, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    waiting = made.waiting_for_user(service_catalog["extra"], quiet_minutes=45)
    visit(sized_page, f"{site}/runs/{waiting.run_id}/", "needs-you-amber")
    amber = colour(sized_page.locator(".run-status .badge.state-needs_you"), "backgroundColor")
    link = colour(sized_page.locator(".crumbs a").first, "color")
    panel = sized_page.locator(".state-panel.state-waiting_for_user")
    assert colour(panel, "borderLeftColor") == amber != link
    # "Needs you" and the move in the same amber, one chip: the run card's status line, not again in the page's
    # head or the runs column (a session of one run).
    expect(sized_page.locator(".run-status .state-chip")).to_have_text("Needs you · your move: confirm")
    assert colour(sized_page.locator(".run-status .move"), "backgroundColor") == amber  # the one solid amber pill
    expect(sized_page.locator(".page-head .move, .runs-nav .move")).to_have_count(0)

    canceled = made.canceled()
    rewound = made.left_behind()
    visit(sized_page, f"{site}/runs/{rewound.run_id}/", "left-behind-colours")
    left = sized_page.locator(".left-behind-line .badge.state-left_behind")
    left_colour, left_background = colour(left, "color"), colour(left, "backgroundColor")
    # One look for Left behind everywhere: the badge's solid edge, its ink and pale fill on the graph's tag
    # and on the legend's key.
    assert colour(left, "borderTopStyle") == "solid"
    tag = sized_page.locator("svg.run-graph rect.tag.state-left-behind")
    assert colour(tag, "fill") == left_background and colour(tag, "stroke") == left_colour
    assert colour(sized_page.locator("svg.run-graph text.tag-text.state-left-behind"), "fill") == left_colour
    keys = sized_page.locator(".legend .state-key.state-left-behind").all()  # the key line's and the "?"'s
    assert keys and all(
        (colour(key, "color"), colour(key, "backgroundColor")) == (left_colour, left_background) for key in keys
    )
    dots = sized_page.locator(".tl-key.dot-left_behind")
    if dots.count():  # a ring of that colour (friction9 item 7: told from Done's green disc by its shape too)
        assert left_colour in colour(dots.first, "boxShadow")
    visit(sized_page, f"{site}/runs/{canceled.run_id}/", "canceled-colours")
    gone = sized_page.locator(".run-status .badge.state-canceled")
    assert colour(gone, "color") != left_colour
    assert colour(gone, "backgroundColor") != left_background
    # Every timeline dot takes its badge's colour: the canceled run's dots are the Canceled badge's grey.
    for dot in sized_page.locator(".tl-key.dot-canceled").all():
        assert colour(dot, "backgroundColor") == colour(gone, "color")
    # Stalled and Blocked, the two states that mean trouble, are hues apart, not two shades of red.
    assert hue_apart(sized_page, "--stale", "--bad") >= 45
    console_log.assert_clean()

    visit(sized_page, f"{site}/sessions/ses_nope/", "not-found-neutral")  # its 404 is logged: not checked
    advice = sized_page.locator("#lost-help")  # a 404 says where to look instead (runs/readmodels/lost.py)
    expect(advice).to_contain_text("What to do")
    assert colour(advice, "borderLeftColor") != amber and colour(advice, "backgroundColor") != amber
