"""Whose move it is, and the one message for the agent, in a real browser at desktop (1440x900) and phone (390x844)
size: one pill for every row, run card and page head, whose move first when it is someone's ("Your move · Confirm",
"Your move · Stalled", "Agent's move · Working", "Agent's move · Retrying"), its colour its tone (amber
for every move of yours, blue for the agent's, grey for nobody's); the filters by whose move; the blocked panel's
line and button in sight, what the button copies; and a neutral 404 advice box."""

from __future__ import annotations

import colorsys
import re
from datetime import timedelta

import pytest
from django.db.models import F
from playwright.sync_api import expect

from runs.models import Ack
from runs.readmodels import attention
from tests.browser import screenshot
from tests.browser.layout import (
    PASTE_NEXT,
    assert_copy_buttons_whole,
    assert_fits,
    contrast,
    css_colour,
    current_test_name,
    keep_screenshot,
    on_one_line,
    viewport_name,
    visit,
)
from tests.browser.timeline import open_timeline
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review, node_id_of
from tests.support.mcp_calls import start_workflow
from tests.support.sample_session import advance

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

BUTTON = "Copy the resume message"


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


def test_the_blocked_panel_copies_the_message_for_the_agent_in_sight(
    sized_page, console_log, site, service_catalog, settings
):
    settings.WORKRAIL_STALL_MINUTES = 30
    sized_page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    stuck = blocked_review("MR-77")
    visit(sized_page, f"{site}/runs/{stuck.run_id}/", "blocked-message")
    panel = sized_page.locator(".blocked-panel")
    # Whose move, in the one pill with the state: the run card's status line, soft blue (the agent's), on the
    # first screen; not in the page's head, the runs column's one card or the panel (said once). No action
    # inside it: the panel says it (friction14 1).
    head_pill = sized_page.locator(".run-status .badge.state-blocked")
    expect(head_pill).to_have_text("Agent's move · Retrying")
    expect(head_pill).to_be_in_viewport()
    assert on_one_line(head_pill)  # a pill never breaks inside itself (friction11 10)
    expect(sized_page.locator(".page-head .badge, .runs-nav .badge")).to_have_count(0)
    # The loop still to come, its areas not set yet: the loop's own title, as the workflow's outline names step 4
    # (friction63a 10, 63b 12: "Review Each Focus Area" there, "Review each area" here), never the file's
    # "Review [area]" only the workflow page explains (friction62a 2, 62b 15).
    loop_chip = sized_page.locator(".stepper .st-step.upcoming", has_text="step 4 of 8")
    expect(loop_chip.locator(".st-title")).to_have_text("Review Each Focus Area")
    expect(loop_chip.locator(".st-words")).to_have_text("step 4 of 8")
    expect(sized_page.locator(".stepper", has_text="Review each area")).to_have_count(0)
    expect(sized_page.locator(".stepper", has_text="[")).to_have_count(0)
    # A step that runs only under a condition says so, dotted (friction62b 15: it read as one that will happen).
    maybe = sized_page.locator(".stepper .st-step.upcoming", has_text="Trace the Impact Beyond the Diff")
    expect(maybe.locator(".st-words")).to_have_text("step 3 of 8")
    expect(maybe.locator(".st-if")).to_have_text("only if complexity is 'complex'")
    # On a phone the condition has a line of its own: the name keeps its row, not a letter a line.
    title, words = maybe.locator(".st-title").bounding_box(), maybe.locator(".st-words").bounding_box()
    assert title and words and title["width"] > 120, (title, words)
    assert title["y"] <= words["y"] < title["y"] + title["height"], (title, words)  # side by side
    assert (
        maybe.locator(".st-if").bounding_box()["y"] >= title["y"] + title["height"] - 1
        or sized_page.viewport_size["width"] > 640
    )
    assert maybe.locator(".st-box").evaluate("e => getComputedStyle(e).borderTopStyle") == "dotted"
    assert loop_chip.locator(".st-box").evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
    expect(panel.locator(".badge")).to_have_count(0)
    retrying_fill = colour(panel, "backgroundColor")  # nothing for the person to do: no alarming red fill
    # Friction15 3, 16: the agent's move is no alarm, the surface's fill, no red bar; its words say there is
    # nothing to do now. Its edge is the agent's blue of its pill and "!" chip (friction60b 12: it was the grey
    # line beside them). Only the person's move takes the amber edge (below).
    surface = css_colour(sized_page, "--surface")
    your_move = css_colour(sized_page, "--your-move")
    agents_edge = css_colour(sized_page, "--info")
    assert (colour(panel, "borderLeftColor"), retrying_fill) == (agents_edge, surface) != (your_move, surface)
    # The progress strip's step where it is blocked: the agent's blue, marked "!", not red (friction15 3).
    step = sized_page.locator(".stepper .st-step.current .st-box")
    expect(step).to_have_count(1)
    dot = step.locator(".gl-dot.dot-blocked")
    agents_blue = css_colour(sized_page, "--info")
    assert colour(step, "borderTopColor") == colour(dot, "backgroundColor") == agents_blue != your_move
    assert dot.evaluate("d => getComputedStyle(d, '::after').content").startswith('"!"')
    # Blocked while the agent retries is the agent's move: not red, the soft blue of every agent's move.
    blue, pale = css_colour(sized_page, "--info"), css_colour(sized_page, "--info-soft")
    assert (colour(head_pill, "color"), colour(head_pill, "backgroundColor")) == (blue, pale)
    assert contrast(colour(head_pill, "color"), colour(head_pill, "backgroundColor")) >= 4.5  # WCAG AA
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
    expect(panel.locator("[data-copy-status]").first).to_have_text(PASTE_NEXT)
    assert sized_page.evaluate("navigator.clipboard.readText()").strip() == message

    # The agent has not tried again for the stall window: the person's move, and the panel leads with the
    # message and its button, nothing to open.
    made.quiet(stuck.run_id)
    Ack.objects.filter(node__run__public_id=stuck.run_id).update(created_at=F("created_at") - timedelta(minutes=45))
    attention._KEPT.clear()  # kept by the session's last event: moving times back records none
    sized_page.reload()
    expect(head_pill).to_have_text("Your move · Agent stopped")
    # Said by the status line's pill alone.
    assert sized_page.locator("body").inner_text().lower().count("your move") == 1
    # Now the amber of every move of yours, as Stalled's and the "Your move" chip's (friction65b 2: its red read as
    # worse than Stalled while it asks the same); its "!" and its words say it was refused.
    amber = css_colour(sized_page, "--your-move")
    assert colour(head_pill, "backgroundColor") == amber
    # The status line no longer says the agent must act: it has not resent the step; the panel says what is wrong.
    expect(sized_page.locator("#run-where")).to_contain_text(", the agent has not resent it")
    expect(panel.locator("h3")).to_have_count(0)
    assert colour(panel, "backgroundColor") != retrying_fill  # the tinted fill is kept for the person's move
    assert colour(panel, "borderLeftColor") == amber  # the amber edge, as the pill's colour
    assert colour(step, "borderTopColor") == colour(dot, "backgroundColor") == amber  # and its step's ring and dot
    assert dot.evaluate("d => getComputedStyle(d, '::after').content").startswith('"!"')  # still marked refused
    # How long, once: the status line's "refused 45 min ago, the agent has not resent it", not again in the
    # panel (friction61a 5).
    expect(panel.locator(".if-stopped")).to_have_text(
        "It has probably stopped. The message gives it the step again to resend."
    )
    assert "tried again" not in panel.inner_text() and "not resent" not in panel.inner_text()
    expect(button).to_be_visible()
    assert_copy_buttons_whole(sized_page)  # inside the amber box, its words on one line on a phone too
    keep_screenshot(sized_page, "blocked-yours")
    # The dark scheme keeps the amber pill readable (WCAG AA).
    sized_page.emulate_media(color_scheme="dark")
    assert contrast(colour(head_pill, "color"), colour(head_pill, "backgroundColor")) >= 4.5
    console_log.assert_clean()


def test_each_row_of_the_list_says_whose_move_it_is(sized_page, console_log, site, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    made.waiting_for_user(service_catalog["extra"], quiet_minutes=45)
    blocked_review("MR-77")
    stopped = blocked_review("MR-78")  # blocked, and its agent has stopped: the person's move
    made.quiet(stopped.run_id)
    Ack.objects.filter(node__run__public_id=stopped.run_id).update(created_at=F("created_at") - timedelta(minutes=45))
    made.stalled()
    made.canceled()
    visit(sized_page, site + "/sessions/", "sessions-moves")
    rows = sized_page.locator("tr.session-row")
    # One pill a row (friction14 1): whose move first, always, in the filters' words (friction16a 8), no action inside.
    pills = rows.locator("td.session-state .badge")
    expect(pills).to_have_count(5)
    words = [pill.inner_text() for pill in pills.all()]
    assert sorted(words) == sorted(
        [
            "Your move · Confirm",
            "Your move · Agent stopped",
            "Agent's move · Retrying",
            "Your move · Stalled",
            "Canceled",
        ]
    ), words
    # Its colour is its tone (friction19 6, 11): the person's moves solid amber, the stopped agent's too (friction65b
    # 2: it was red beside Stalled's amber, asking the same, and counted under the amber "Your move" chip); the
    # blocked one its agent still retries is the agent's soft blue, nobody's a grey outline.
    amber, red = css_colour(sized_page, "--your-move"), css_colour(sized_page, "--bad")
    blue = css_colour(sized_page, "--info-soft")
    fills = {pill.inner_text(): colour(pill, "backgroundColor") for pill in pills.all()}
    assert {w for w, fill in fills.items() if fill == amber} == {
        "Your move · Confirm",
        "Your move · Stalled",
        "Your move · Agent stopped",
    }
    assert red not in fills.values()
    # ...the colour of the dot of the "Your move" chip that counts them.
    chip_dot = sized_page.locator('.move-filters .badge.filter[data-move="yours"]')
    assert chip_dot.evaluate("c => getComputedStyle(c, '::before').backgroundColor") == amber
    assert fills["Agent's move · Retrying"] == blue not in (red, amber)
    # The row's bold "waiting for your confirmation" is the amber's family, darker to read: never the red.
    confirm_words = rows.filter(has=sized_page.locator(".badge.state-needs_you")).locator(".where-line .needs-you")
    assert colour(confirm_words, "color") == css_colour(sized_page, "--your-move-text") != red
    assert fills["Canceled"] == "rgba(0, 0, 0, 0)"
    surface = css_colour(sized_page, "--surface")
    for pill in pills.all():
        fill = colour(pill, "backgroundColor")
        assert contrast(colour(pill, "color"), surface if fill == "rgba(0, 0, 0, 0)" else fill) >= 4.5
        # Whole: a pill never breaks inside itself; one too wide for its line moves down whole (friction10 7).
        assert on_one_line(pill), pill.inner_text()
    if viewport_name(sized_page) == "phone":
        # Every card one shape, whatever its pill's length: the pill on its own line, the session's name starting
        # the next at the same left edge (friction62a 8: the long "Refused · agent stopped" pill alone pushed its
        # name under it while the others kept theirs beside).
        for row in rows.all():
            pill, name = (
                row.locator("td.session-state .badge").bounding_box(),
                row.locator(".session-link").bounding_box(),
            )
            assert pill is not None and name is not None
            assert name["y"] >= pill["y"] + pill["height"] - 1 and abs(name["x"] - pill["x"]) < 1, (pill, name)
    # The action is told once beside the pill, in the row's where-line: what holds the blocked step, the step
    # that waits for the person's confirmation.
    needs = rows.filter(has=sized_page.locator(".badge.state-needs_you"))
    expect(needs.locator(".where-line")).to_contain_text("waiting for your confirmation")
    stopped_row = rows.filter(has=sized_page.locator(".badge.state-blocked[data-move=yours]"))
    expect(stopped_row.locator(".where-line .your-action")).to_have_text("get the resume message")
    expect(sized_page.locator(".where-line .your-action")).to_have_count(3)  # and the stalled row's
    # The confirmation's row links its panel too, as the others do (friction25a 10); the link lands on it.
    reply = needs.locator(".where-line a.your-action")
    expect(reply).to_have_text("review and reply")
    expect(reply).to_have_attribute("href", re.compile(r"^/runs/[^/]+/#waiting_for_user-1$"))
    # Drawn as the row's action, a button in the primary's colour, not a rounded outline like the state pills
    # beside it (friction29a 12, 29b 9).
    primary = sized_page.evaluate(
        "() => { const b = document.createElement('button'); b.className = 'primary';"
        " document.querySelector('main').append(b); const c = getComputedStyle(b).backgroundColor; b.remove();"
        " return c; }"
    )
    assert reply.evaluate("a => getComputedStyle(a).backgroundColor") == primary
    pill = needs.locator(".badge").first.evaluate("b => getComputedStyle(b).borderTopLeftRadius")
    assert reply.evaluate("a => getComputedStyle(a).borderTopLeftRadius") != pill
    # A link to the panel that holds the message (friction15a 19); the row says why the move is yours, and the
    # block the agent still resends says when it becomes yours (friction15b 5).
    expect(stopped_row.locator(".where-line a.your-action")).to_have_attribute(
        "href", f"/runs/{stopped.run_id}/#blocked-1"
    )
    expect(stopped_row.locator(".where-then")).to_have_text(
        re.compile(r"^the agent has not resent the refused step for 4\d\smin$")
    )
    retrying = rows.filter(has=sized_page.locator(".badge.state-blocked[data-move=agents]"))
    expect(retrying.locator(".where-then")).to_have_text(
        re.compile(r"^becomes your move in \d+\smin if no corrected answer comes$")
    )
    expect(retrying.locator(".your-action")).to_have_count(0)
    # Every row's where-words link its run, the same on your-move rows as on the agent's (friction32: plain on
    # one kind only read as arbitrary); a your-move row's other link is its action, to the panel, not the same.
    for row in (needs, stopped_row, retrying):
        where = row.locator(".where-line a.where-link")
        expect(where).to_have_count(1)
        expect(where).to_have_attribute("href", re.compile(r"^/runs/[^/#]+/$"))
    assert needs.locator("a.where-link").get_attribute("href") != reply.get_attribute("href")
    expect(stopped_row.locator(".where-line a")).to_have_count(2)
    expect(retrying.locator(".where-line a")).to_have_count(1)
    # The filters: plain links, each counting the rows of its colour (friction14 4), that colour a dot in a
    # neutral outline; the chosen one alone is filled (friction15a 20: "Your move" filled red read as chosen).
    filters = sized_page.locator(".status-chips > li .badge")
    expect(filters).to_have_text(["All 5", "Your move 3", "Agent's move 1", "Nothing to do 1"])
    ink = css_colour(sized_page, "--text")

    def dot(index: int) -> str:
        return str(filters.nth(index).evaluate("e => getComputedStyle(e, '::before').backgroundColor"))

    assert [colour(filters.nth(i), "backgroundColor") for i in range(4)] == [ink, surface, surface, surface]
    assert [dot(1), dot(2), dot(3)] == [
        css_colour(sized_page, "--your-move"),
        css_colour(sized_page, "--info"),
        "rgba(0, 0, 0, 0)",
    ]
    for index in range(4):
        fill = colour(filters.nth(index), "backgroundColor")
        assert contrast(colour(filters.nth(index), "color"), fill) >= 4.5
    # No frame of reason chips: which states "Your move" holds, its tooltip says.
    expect(sized_page.locator(".chip-umbrella, .chip-reason")).to_have_count(0)
    yours = sized_page.locator(".status-chips a[href='?status=yours']")
    expect(yours).to_have_attribute("title", re.compile(r"waiting for you.*\(Confirm 1 · Stalled 1\)"))
    # On one line at both sizes: the strip never wraps a filter inside itself.
    for index in range(4):
        assert on_one_line(filters.nth(index))
    # On a phone each filter is a thumb's height (friction23b 12), and every one is whole in the window: they wrap,
    # not scroll (friction24a 3, 24b 5: a scrolling line cut "Nothing to do" at the edge).
    phone = viewport_name(sized_page) == "phone"
    if phone:
        # A thumb's height to tap (the link), the chip drawn flat inside it, in the desktop's words (friction28a 14,
        # 28b 17: "Yours 3 / Nothing 1" read unlike them); they may wrap to a second line.
        taps = sized_page.locator(".status-chips > li > a")
        boxes = [taps.nth(i).bounding_box() for i in range(4)]
        assert all(b is not None and b["height"] >= 44 for b in boxes), boxes
        width = sized_page.viewport_size["width"]
        assert all(b is not None and b["x"] >= 0 and b["x"] + b["width"] <= width for b in boxes), boxes
        chips = [filters.nth(i).bounding_box() for i in range(4)]
        assert all(c is not None and c["height"] < 32 for c in chips), chips
        assert len({round(b["y"]) for b in boxes if b is not None}) <= 2, boxes
        # Two rows of two equal chips, not three and a fourth left alone on a second line (friction62a 8).
        assert [round(b["y"]) for b in boxes] == [round(boxes[0]["y"])] * 2 + [round(boxes[2]["y"])] * 2, boxes
        assert [round(c["x"]) for c in chips[2:]] == [round(c["x"]) for c in chips[:2]], chips
        assert len({round(c["width"]) for c in chips}) == 1, chips
    # The same words at both sizes, what a screen reader says too.
    expect(filters).to_have_text(["All 5", "Your move 3", "Agent's move 1", "Nothing to do 1"])
    for index in range(4):
        assert filters.nth(index).evaluate("e => getComputedStyle(e).fontSize") != "0px"
    if phone:
        assert_fits(sized_page)
    # Each pill says its meaning on hover; the states are explained once, in a closed fold by the filters, each
    # under the filter that counts it (friction18b 9: "Paused" was in no filter).
    expect(retrying.locator(".badge")).to_have_attribute("title", re.compile(r"^The agent's answer was refused\. It"))
    meanings = sized_page.locator("#state-meanings")
    expect(meanings).not_to_have_attribute("open", "")
    meanings.locator("summary").click()
    expect(meanings.locator("strong")).to_have_text(
        [
            "Confirm",
            "Agent stopped",
            "Needs your input",
            "No agent yet",
            "Stalled",
            "Replaced",
            "Working",
            "Retrying",
            "Left behind",
            "Done",
            "Canceled",
            "Notes only",
        ]
    )
    expect(meanings.locator(".small-heading").first).to_have_text("Counted under “Your move”")
    keep_screenshot(sized_page, "sessions-state-meanings")
    meanings.locator("summary").click()
    yours.click()
    expect(sized_page).to_have_url(f"{site}/sessions/?status=yours")
    expect(rows).to_have_count(3)
    expect(sized_page.locator(".status-chips a[aria-current=true] .badge")).to_have_text("Your move 3")
    assert [colour(filters.nth(i), "backgroundColor") for i in range(2)] == [surface, ink]
    sized_page.locator(".status-chips a[href='?status=agents']").click()
    expect(rows).to_have_count(1)
    expect(rows.locator(".badge")).to_have_text("Agent's move · Retrying")
    # A row and its run's page say the same move, in the same pill.
    rows.locator(".where-line a").click()
    expect(sized_page.locator(".run-status .badge.state-blocked")).to_have_text("Agent's move · Retrying")
    if phone:  # the run's small secondary controls too: Cancel run…, Export
        for control in ("#cancel-button", ".export-menu > summary"):
            tap = sized_page.locator(control).bounding_box()
            assert tap is not None and tap["height"] >= 44, (control, tap)
        assert_fits(sized_page)
    console_log.assert_clean()


def test_colours_mean_one_thing(sized_page, console_log, site, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    waiting = made.waiting_for_user(service_catalog["extra"], quiet_minutes=45)
    # Every session made before any page opens: a page's live poll reading while a test writes can find the
    # shared in-memory store's table locked.
    canceled = made.canceled()
    rewound = made.left_behind()
    visit(sized_page, f"{site}/runs/{waiting.run_id}/", "needs-you-panel")
    amber = css_colour(sized_page, "--warn")
    link = colour(sized_page.locator(".crumbs a").first, "color")
    red = css_colour(sized_page, "--your-move")  # the person's move: amber (friction19 6), named as before
    # Friction15 12: a panel's colour is whose move, as its pill's, not a tint of its own per state: yours takes
    # the warm edge and a soft warm fill.
    panel = sized_page.locator(".state-panel.state-waiting_for_user")
    assert colour(panel, "borderLeftColor") == red != link
    surface = css_colour(sized_page, "--surface")
    assert colour(panel, "backgroundColor") not in (surface, css_colour(sized_page, "--warn-soft"))
    # The pill says whose move, in the amber, on the run card's status line, not
    # again in the page's head or the runs column (a session of one run).
    pill = sized_page.locator(".run-status .badge.state-needs_you")
    expect(pill).to_have_text("Your move · Confirm")
    assert colour(pill, "backgroundColor") == red
    expect(sized_page.locator(".page-head .badge, .runs-nav .badge")).to_have_count(0)

    visit(sized_page, f"{site}/runs/{rewound.run_id}/", "left-behind-colours")
    # Nobody's move: Left behind is a quiet grey outline, and so are the graph's tag and the legend's key for it.
    left = sized_page.locator(".left-behind-line .badge.state-left_behind")
    grey = css_colour(sized_page, "--muted")
    assert (colour(left, "color"), colour(left, "backgroundColor")) == (grey, "rgba(0, 0, 0, 0)")
    tag = sized_page.locator("svg.run-graph rect.tag.state-left-behind")
    if tag.count():
        assert colour(tag.first, "stroke") == grey and colour(tag.first, "fill") != red
    for key in sized_page.locator(".legend li rect.card.state-left-behind").all():  # its swatch, as its card
        assert colour(key, "stroke") == grey
    visit(sized_page, f"{site}/runs/{canceled.run_id}/", "canceled-colours")
    gone = sized_page.locator(".run-status .badge.state-canceled")
    assert (colour(gone, "color"), colour(gone, "backgroundColor")) == (grey, "rgba(0, 0, 0, 0)")
    # Nobody's move: the canceled panel is neutral, the line's edge on the surface.
    ended = sized_page.locator(".state-panel.state-canceled")
    line = css_colour(sized_page, "--line")
    assert (colour(ended, "borderLeftColor"), colour(ended, "backgroundColor")) == (line, surface)
    # No pill on the page is amber or red: nothing is the person's move.
    for pill in sized_page.locator(".badge[data-move]").all():
        assert colour(pill, "backgroundColor") != red
    console_log.assert_clean()

    visit(sized_page, f"{site}/sessions/ses_nope/", "not-found-neutral")  # its 404 is logged: not checked
    advice = sized_page.locator("#lost-help")  # a 404 says where to look instead (runs/readmodels/lost.py)
    expect(advice).to_contain_text("What to do")
    assert colour(advice, "borderLeftColor") not in (amber, red) and colour(advice, "backgroundColor") not in (
        amber,
        red,
    )


def test_a_confirm_steps_pill_banner_and_panel_share_one_calm_colour_with_every_move_of_yours(
    sized_page, console_log, site, service_catalog, settings
):
    """friction19a 6, friction19b 11: "Approve the plan" was framed in Blocked's alarm red, and its step page's
    "Waiting for you" banner in the agent's pale blue. One tone (states.tone) colours a step's pill, banner and
    panel: amber for a move of the person's, a stopped agent's refused step too (friction65b 2), blue while the
    agent works."""
    settings.WORKRAIL_STALL_MINUTES = 30
    # Every session made before any page opens (a live poll reading while a test writes finds the table locked).
    waiting = made.waiting_for_user(service_catalog["extra"])
    stopped = blocked_review("MR-78")
    made.quiet(stopped.run_id)
    Ack.objects.filter(node__run__public_id=stopped.run_id).update(created_at=F("created_at") - timedelta(minutes=45))
    retrying = blocked_review("MR-79")
    working = advance(start_workflow(made.PLAN, context={"sessionKey": "WORK-1"}), "Clarified the goal.")

    def edge(locator) -> str:
        return colour(locator, "borderLeftColor")

    visit(sized_page, f"{site}/nodes/{node_id_of(waiting.answer)}/", "confirm-step-colours")
    amber, red = css_colour(sized_page, "--your-move"), css_colour(sized_page, "--bad")
    assert hue_apart(sized_page, "--your-move", "--bad") >= 20  # no alarm red: told apart at a glance
    pill = sized_page.locator("#step-state")
    expect(pill).to_have_text("Your move · Confirm")
    # One block says it waits for you, "Your confirmation", with since when: no banner above it saying it again
    # (friction21a 5, 21b 3).
    expect(sized_page.locator("#node-pending")).to_have_count(0)
    reply = sized_page.locator(".step-actions.your-reply")
    expect(reply.locator("#waiting-for")).to_contain_text("· waiting for ")
    assert colour(pill, "backgroundColor") == edge(reply) == amber != red
    assert contrast(colour(pill, "color"), colour(pill, "backgroundColor")) >= 4.5  # WCAG AA
    visit(sized_page, f"{site}/runs/{waiting.run_id}/", "confirm-run-colours")
    panel = sized_page.locator(".state-panel.state-waiting_for_user")
    assert colour(sized_page.locator(".run-status .badge"), "backgroundColor") == edge(panel) == amber
    sized_page.emulate_media(color_scheme="dark")  # the dark scheme's amber keeps its words readable
    dark_pill = sized_page.locator(".run-status .badge")
    assert contrast(colour(dark_pill, "color"), colour(dark_pill, "backgroundColor")) >= 4.5
    assert colour(dark_pill, "backgroundColor") == css_colour(sized_page, "--your-move") != amber
    sized_page.emulate_media(color_scheme="light")

    # A Blocked step whose agent stopped: the same amber, on its pill, its panel and its step's dot, marked "!".
    visit(sized_page, f"{site}/runs/{stopped.run_id}/", "blocked-run-colours")
    blocked_pill = sized_page.locator(".run-status .badge.state-blocked")
    expect(blocked_pill).to_have_text("Your move · Agent stopped")
    dot = sized_page.locator(".stepper .st-step.current .gl-dot")
    assert colour(blocked_pill, "backgroundColor") == edge(sized_page.locator(".blocked-panel")) == amber != red
    assert colour(dot, "backgroundColor") == amber
    # ...and its dot and key in the timeline (friction60b 12: one refusal colour everywhere, states.tone).
    timeline_dot, timeline_key = (
        sized_page.locator(".tl-dot.dot-blocked").first,
        sized_page.locator(".tl-key.dot-blocked"),
    )
    assert colour(timeline_dot, "fill") == colour(timeline_key, "backgroundColor") == amber

    # A refused step the agent retries by itself: the agent's blue on its pill's words, its "!" chip, its timeline
    # dot and key and its panel's edge, here and on its step's page (friction60b 12: a red timeline dot and a grey
    # panel beside the blue pill and chip).
    visit(sized_page, f"{site}/runs/{retrying.run_id}/", "blocked-retrying-colours")
    blue = css_colour(sized_page, "--info")
    blocked_pill = sized_page.locator(".run-status .badge.state-blocked")
    expect(blocked_pill).to_have_text("Agent's move · Retrying")
    timeline_dot, timeline_key = (
        sized_page.locator(".tl-dot.dot-blocked").first,
        sized_page.locator(".tl-key.dot-blocked"),
    )
    assert (
        colour(blocked_pill, "color")
        == colour(sized_page.locator(".stepper .st-step.current .gl-dot"), "backgroundColor")
        == colour(timeline_dot, "fill")
        == colour(timeline_key, "backgroundColor")
        == edge(sized_page.locator(".blocked-panel"))
        == blue
        != red
    )
    # Blue as Working's, a refused dot has a shape of its own, the progress strip chip's "!", on it and on its key
    # (friction63a 7: a blue refused dot read as progress).
    open_timeline(sized_page)
    mark = sized_page.locator(".tl-track:visible .tl-mark").first
    expect(mark).to_have_text("!")
    dot_box, mark_box = (
        sized_page.locator(".tl-track:visible .tl-dot.dot-blocked").first.bounding_box(),
        mark.bounding_box(),
    )
    assert (
        dot_box
        and mark_box
        and dot_box["x"] <= mark_box["x"]
        and mark_box["x"] + mark_box["width"] <= dot_box["x"] + dot_box["width"]
    )
    assert timeline_key.evaluate("k => getComputedStyle(k, '::after').content").startswith('"!"')
    visit(sized_page, f"{site}/nodes/{retrying.node_id}/", "blocked-retrying-step-colours")
    assert colour(sized_page.locator("#step-state"), "color") == edge(
        sized_page.locator("#node-refusal .blocked-panel")
    )
    assert edge(sized_page.locator("#node-refusal .blocked-panel")) == blue

    # The agent at work: its banner stays the agent's blue.
    visit(sized_page, f"{site}/nodes/{node_id_of(working)}/", "working-step-colours")
    banner = sized_page.locator("#node-pending")
    expect(banner).to_contain_text("Agent working on this step")
    assert edge(banner) == css_colour(sized_page, "--accent") not in (amber, red)
    console_log.assert_clean()


def test_a_tapped_pill_shows_what_its_state_means_inside_the_window(sized_page, console_log, site, settings):
    # friction24b 9: a pill's meaning was only its tooltip, which a phone cannot show. Tapped, it opens in sight,
    # one popover per meaning on a page, in the words of the states table; Escape closes it.
    settings.WORKRAIL_STALL_MINUTES = 30
    stalled = made.stalled()
    made.canceled()
    page = sized_page
    for url, pill in (
        (f"{site}/sessions/", "td.session-state .pill-tap:has(.state-stalled)"),
        (f"{site}/runs/{stalled.run_id}/", "#run-status .pill-tap"),
        (f"{site}/nodes/{node_id_of(stalled.answer)}/", ".step-state .pill-tap"),
    ):
        page.goto(url)
        tap = page.locator(pill).first
        means = tap.locator(".badge").get_attribute("aria-description")
        assert means and "nothing was recorded for 30 min or more" in means  # the line the glossary gives Stalled
        popover = page.locator(f"#{tap.get_attribute('popovertarget')}")
        expect(popover).to_be_hidden()
        tap.click()
        # In the page's flow right under the pill's line, pushing what follows down (friction61a 10, 61b 9: as a
        # popover above its pill it covered the run's title on a desktop and the step's title on a phone; below,
        # the page's main button): the popover stays shut, its words shown once, in the page.
        shown_means = page.locator("#state-means-open")
        expect(shown_means).to_be_visible()
        expect(shown_means).to_contain_text(means)
        expect(popover).to_be_hidden()
        expect(tap).to_have_attribute("aria-expanded", "true")
        box, width = shown_means.bounding_box(), page.viewport_size["width"]
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (url, box)
        pill_box = tap.bounding_box()
        if "/sessions/" in url and viewport_name(page) == "phone":
            # On a phone's card it opens under the session's name, not between the pill and the name, which it
            # pushed down (friction62b 17).
            name = page.locator("tr.session-row", has=tap).locator(".session-link").bounding_box()
            assert name is not None and box["y"] >= name["y"] + name["height"] - 1, (box, name)
        assert pill_box["y"] + pill_box["height"] - 1 <= box["y"] < pill_box["y"] + pill_box["height"] + 80, (
            url,
            box,
            pill_box,
        )
        # It covers nothing: no control and no text of the page lies under it (on the list too).
        if "/sessions/" not in url:
            primary = page.locator(".copy-button:not(.copy-quiet) >> visible=true")
            expect(primary).to_have_text(["Copy the resume message"])
        covered = page.evaluate(
            """(box) => {
                const over = r => r.width && r.height && r.left < box.x + box.width && box.x < r.right
                    && r.top < box.y + box.height && box.y < r.bottom;
                const shown = document.getElementById('state-means-open');
                const hits = [...document.querySelectorAll('main :is(a, button, summary, input, select, textarea)')]
                    .filter(e => !shown.contains(e) && e.checkVisibility() && over(e.getBoundingClientRect()))
                    .map(e => e.outerHTML.slice(0, 80));
                const walk = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
                for (let t = walk.nextNode(); t; t = walk.nextNode()) {
                    if (!t.data.trim() || shown.contains(t) || !t.parentElement.checkVisibility()) continue;
                    const range = document.createRange();
                    range.selectNodeContents(t);
                    if ([...range.getClientRects()].some(over)) hits.push(t.data.trim().slice(0, 80));
                }
                return hits;
            }""",
            box,
        )
        assert covered == [], (url, covered)
        # One popover per meaning on the page, not per pill.
        ids = page.locator(".state-means").evaluate_all("ps => ps.map(p => p.id)")
        assert len(ids) == len(set(ids)), ids
        # The window as the person sees it with the meaning open (a full page would scroll it away from its pill).
        shown = f"{current_test_name()}-pill-meaning-{url.rstrip('/').split('/')[3]}-{viewport_name(page)}"
        screenshot(page, shown, full_page=False)
        page.keyboard.press("Escape")
        expect(shown_means).to_have_count(0)
        # Tapped again, it closes too; one meaning open at a time.
        tap.click()
        expect(shown_means).to_have_count(1)
        tap.click()
        expect(shown_means).to_have_count(0)
        expect(tap).to_have_attribute("aria-expanded", "false")
    console_log.assert_clean()
