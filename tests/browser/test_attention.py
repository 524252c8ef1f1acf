"""Whose move it is, in a real browser at desktop (1440x900) and phone (390x844) size: the sessions list
grouped by repository then branch, each row saying where it is, and the run page's panel for each state
a person may act on (stalled, waiting for the user, canceled, a branch left behind). Each page must fit
its window (tests/browser/layout.py); the screenshots are kept for a person to review."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from runs.models import Session
from runs.store.actors import Actor, Door, acting_as
from tests.browser.layout import (
    PHONE,
    assert_copy_buttons_whole,
    assert_fits,
    css_colour,
    keep_screenshot,
    on_one_line,
    visible_text,
    visit,
)
from tests.browser.timeline import assert_axis_reads, assert_times_said_one_way
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review, node_id_of
from tests.support.mcp_calls import start_workflow

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


@pytest.fixture
def quiet_after_30(settings):
    settings.WORKRAIL_STALL_MINUTES = 30


def said(page, words: str) -> int:
    """How many times the page shows `words`, the timeline's colour key aside (a key, not a statement)."""
    return visible_text(page, skip=(".timeline",)).count(words)


def assert_cancel_in_its_place(page) -> None:
    """The run's "Cancel run…" is in one place on every run: beside its title on a desktop; on a phone at the
    end of the run's card, under what is going on (the run's panel, or its status line when it has none) and
    away from the panel's main button: after the run's facts (friction18b 13), never between the title and
    it (friction13 11), whatever the title's length (friction9 15)."""
    title = page.locator("#run-title").bounding_box()
    cancel = page.locator(".run-head .confirm > summary").bounding_box()
    assert title is not None and cancel is not None
    under = cancel["y"] >= title["y"] + title["height"]
    phone = (page.viewport_size or {})["width"] < 600
    assert under == phone, (title, cancel)
    panel = page.locator("section[data-run] > :is(.blocked-panel, .state-panel)")
    status = (panel if panel.count() else page.locator("#run-status")).first.bounding_box()
    if status is not None:
        assert (cancel["y"] >= status["y"] + status["height"]) == phone, (status, cancel)
    facts = page.locator("#run-facts").bounding_box()
    assert facts is not None and (cancel["y"] >= facts["y"] + facts["height"]) == phone, (facts, cancel)


def test_the_sessions_list_says_where_each_session_is(sized_page, console_log, site, service_catalog, quiet_after_30):
    made.two_repositories()
    waiting = made.waiting_for_user(service_catalog["extra"], quiet_minutes=45)
    start_workflow(made.PLAN, context={"sessionKey": "MR-77"})
    stuck = blocked_review("MR-77")
    made.stalled()
    made.canceled()
    visit(sized_page, site + "/sessions/", "sessions")
    groups = sized_page.locator("tr.group-row")
    expect(groups.filter(has_text="shop")).to_have_count(1)
    expect(groups.filter(has_text="blog")).to_have_count(2)  # main and feature/x of the same repository
    waiting_row = sized_page.locator('.where-line[data-place="waiting_for_user"]')
    expect(waiting_row).to_contain_text(
        "Plan and build: Approve the plan · step 2 of 3 · waiting for your confirmation"
    )
    expect(waiting_row).to_be_visible()
    blocked_row = sized_page.locator('.where-line[data-place="blocked"]')
    expect(blocked_row).to_contain_text("Risk-Scaled Merge Request Review (run 2 of 2)")
    expect(blocked_row).to_contain_text("Record the Changed Files · step 2 of 8")
    expect(sized_page.locator(".where-reason")).to_have_text("the agent did not attach the list of changed files")
    expect(sized_page.locator('.where-line[data-place="stalled"]')).to_contain_text("stalled for 45 min")
    # Whose move it is, on the pills and the filters: the confirmation and the stalled one yours, the block the
    # agent retries its.
    chips = sized_page.locator(".status-chips")
    expect(chips.locator(".badge[data-move=yours]")).to_have_text("Your move 2")
    expect(sized_page.locator("tbody .badge.state-needs_you")).to_have_text("Your move · Confirm")
    expect(sized_page.locator("tbody .badge.state-blocked")).to_have_text("Agent's move · Retrying")
    # A session's key stands whole on its line, never broken at its hyphen ("CANCEL-/1").
    keys = sized_page.locator("tr.session-row a.session-key")
    expect(keys.filter(has_text="CANCEL-1")).to_have_count(1)
    split = keys.evaluate_all(
        """links => links.filter((a) => {
             const range = document.createRange(); range.selectNodeContents(a);
             return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
           }).map((a) => a.textContent)"""
    )
    assert split == [], split
    blocked_row.get_by_role("link").click()
    expect(sized_page).to_have_url(f"{site}/runs/{stuck.run_id}/")
    expect(sized_page.locator(".blocked-panel").first).to_be_visible()
    sized_page.goto(site + "/sessions/")
    # Its where-words link the run as on every row (friction32 2), and the move links the run's panel, another
    # place (friction28b 10).
    waiting_links = sized_page.locator('.where-line[data-place="waiting_for_user"]').get_by_role("link")
    expect(waiting_links).to_have_count(2)
    expect(waiting_links.first).to_have_attribute("href", f"/runs/{waiting.run_id}/")
    expect(waiting_links.last).to_have_text("review and reply")
    waiting_links.last.click()
    expect(sized_page).to_have_url(f"{site}/runs/{waiting.run_id}/#waiting_for_user-1")
    console_log.assert_clean()


def test_a_stalled_steps_resume_box_is_the_run_pages_stalled_box(
    sized_page, console_log, site, service_catalog, quiet_after_30
):
    # Round 64: the run page's stalled box was amber and held the resume message; the step page's "Resume here"
    # holding the same message was a white card. Both are the state's box: the message inside, the same colours.
    with acting_as(Actor("", Door.STDIO, client_name="claude-code")):
        stalled = made.stalled()
    look = "e => ['backgroundColor', 'borderLeftColor', 'borderLeftWidth'].map(k => getComputedStyle(e)[k])"
    visit(sized_page, f"{site}/runs/{stalled.run_id}/", "stalled-box-run")
    panel = sized_page.locator(".state-panel.state-stalled")
    expect(panel.locator(".copy-button")).to_have_text("Copy the resume message")
    on_run = panel.evaluate(look)
    visit(sized_page, f"{site}/nodes/{node_id_of(stalled.answer)}/", "stalled-box-step")
    box = sized_page.locator("#resume-here")
    expect(box.locator(".copy-button")).to_have_text("Copy the resume message")
    assert box.evaluate(look) == on_run
    assert on_run[0] != sized_page.locator("#recorded-title").evaluate(
        "h => getComputedStyle(h.closest('.card')).backgroundColor"
    )
    assert_fits(sized_page)
    console_log.assert_clean()


def test_a_stalled_run(sized_page, console_log, site, service_catalog, quiet_after_30):
    with acting_as(Actor("", Door.STDIO, client_name="claude-code")):  # as the MCP server stamps its events
        stalled = made.stalled()
    visit(sized_page, f"{site}/runs/{stalled.run_id}/", "stalled-run")
    panel = sized_page.locator(".state-panel.state-stalled")
    expect(panel).to_be_visible()
    # The state and where the agent is: the run card's one status line; the panel under it says what to do.
    # The step's name, its place and the state on one line (friction28b 5).
    expect(sized_page.locator("#run-where")).to_have_text(
        re.compile(r"^Draft Plan with Risks · step 2 of 3 · stalled for \d+\smin")
    )
    expect(panel.locator("h3")).to_have_count(0)
    expect(panel.locator(".agent-message")).to_contain_text("Resume the WorkRail workflow: call continue_workflow")
    # Its card on the graph is solid: dashed amber is a replaced branch's alone (friction61a 7, 61b 8).
    for card in sized_page.locator("svg.run-graph rect.card.state-stalled").all():
        assert card.evaluate("c => getComputedStyle(c).strokeDasharray") in ("none", ""), "a dashed stalled card"
    copy = panel.locator(".copy-button")  # on the first screen, at every size
    # The one thing to do now is the page's one primary button, drawn in the accent colour.
    accent = sized_page.evaluate(
        "() => { const e = document.createElement('i'); e.style.color = 'var(--accent)'; document.body.append(e);"
        " const c = getComputedStyle(e).color; e.remove(); return c; }"
    )
    assert copy.evaluate("b => getComputedStyle(b).backgroundColor") == accent
    box = copy.bounding_box()
    assert box is not None and box["y"] + box["height"] <= (sized_page.viewport_size or {})["height"], box
    # The button leads, in text as large as the page's (friction11 9), in the one look every copy button has
    # (friction12 9: visit checks that); the raw text is folded under it, one key press away for whoever checks.
    assert copy.evaluate("b => parseFloat(getComputedStyle(b).fontSize)") >= 15
    # Its words on one line at every size, a phone's 390 px too: "Copy the message / for the agent" over two
    # lines read as two buttons (visit checks every copy button shown; this one by name).
    expect(copy).to_have_text("Copy the resume message")
    assert on_one_line(copy)
    message = panel.locator(".agent-message")
    expect(message).not_to_be_visible()
    # The words say what the screen shows (friction12 item 7): copy it with the button; the fold is only for
    # reading it first, not a "sentence below" to find. What to check first is the agent's chat, which the
    # person can see, not whether it "has stopped", which they cannot judge from here (friction24a 13).
    expect(panel.locator(".next-move")).to_have_text(
        "Check the agent's chat first: if it is idle or gone, copy the message."
    )
    expect(panel).not_to_contain_text("sentence below")
    # What the button copies is one key press away, under a summary in plain words: not the message's opening,
    # whose developer words ("continue_workflow", "stateToken") stood in sight, cut off on a phone (friction61b 4).
    opening = panel.locator(".message-fold > summary")
    expect(opening).to_have_text("The message it copies")
    assert on_one_line(opening)
    opening.focus()
    sized_page.keyboard.press("Enter")
    expect(message).to_be_visible()
    expect(message).to_contain_text("Resume the WorkRail workflow: call continue_workflow with stateToken")
    expect(opening).to_be_visible()  # still the fold's handle once open
    # friction26b 6: which of the person's chats: the client that started the run, and when, by the clock and how
    # long ago (friction28a 9); whether a new chat will do, in the same sentence, said once in the panel (friction28b
    # 1); the Copied line names the chat, nothing more, in people's words: one sentence with its verb (friction27a 1).
    which = panel.locator(".which-chat")
    # friction62a 5, 62b 14a: the same sentence whether the client is known or not, the client in the brackets.
    expect(which).to_contain_text("Paste it into the chat that started this run (Claude Code, ")
    # friction60a 16: the "(" on the line of the words before it, never starting a line of its own on a phone.
    assert which.evaluate(
        """p => { const text = [...p.childNodes].find(n => n.nodeType === 3 && n.data.includes('this run'));
            const at = text.data.indexOf('this run') + 'this run'.length, r = document.createRange();
            r.setStart(text, at - 3); r.setEnd(text, at); const word = r.getBoundingClientRect();
            r.setStart(text, at + 1); r.setEnd(text, at + 2); const paren = r.getBoundingClientRect();
            return Math.abs(word.top - paren.top) < 2; }"""
    )
    expect(which).to_contain_text(
        # The clock time, with its date when that was not today (a run 45 min old, read just after midnight).
        re.compile(
            r"\(Claude Code, ([A-Z][a-z]{2} \d{1,2}, )?\d{1,2}:\d{2}( [AP]M)?, \d+ (min|h) ago\); if that chat is"
            r" closed, a new one works too\.$"
        )
    )
    expect(panel).not_to_contain_text("new chat")
    copy.click()
    expect(panel.locator("[data-copy-status]")).to_have_text("Copied for the chat (Claude Code).")
    assert_fits(sized_page)
    # Said once, by the status line's pill: not the page's head, nor the runs column's card (a session of one
    # run); what to do, the panel says.
    expect(sized_page.locator(".run-status .badge.state-stalled")).to_have_text("Your move · Stalled")
    expect(sized_page.locator(".page-head .badge, .runs-nav .badge")).to_have_count(0)
    # "Updates live" stays on the title's line at every size, at its right end, away from the pill (friction10 7,
    # friction17b 2).
    title, live = (sized_page.locator(f".page-head > {i}").bounding_box() for i in ("h1", ".live"))
    assert title and live and title["y"] < live["y"] + live["height"] / 2 < title["y"] + title["height"], (title, live)
    head = sized_page.locator(".page-head").bounding_box()
    assert head and head["x"] + head["width"] - (live["x"] + live["width"]) < 2, (head, live)
    expect(sized_page.locator("#live-dot .live-words")).to_have_text("Updates live")
    assert said(sized_page, "Stalled") == 1
    assert (said(sized_page, "Your move"), said(sized_page, "Agent's move")) == (1, 0)
    assert_cancel_in_its_place(sized_page)
    console_log.assert_clean()


def test_a_run_waiting_for_the_user(sized_page, console_log, site, service_catalog, quiet_after_30):
    waiting = made.waiting_for_user(service_catalog["extra"], quiet_minutes=45)
    Session.objects.filter(public_id=waiting.session_id).update(
        workspace_path="/home/dev/src/shop-storefront", git_branch="feature/checkout-confirmation-step"
    )
    visit(sized_page, f"{site}/runs/{waiting.run_id}/", "waiting-run")
    # The head names the repository and git branch the agent works in, once, inside a 390 px screen too
    # (friction13 7; visit checked the page fits).
    works_in = sized_page.locator("#session-workspace")
    expect(works_in).to_have_text("repository shop-storefront · git branch feature/checkout-confirmation-step")
    box = works_in.bounding_box()
    assert box is not None and box["x"] + box["width"] <= (sized_page.viewport_size or {})["width"], box
    assert said(sized_page, "feature/checkout-confirmation-step") == 1
    panel = sized_page.locator(".state-panel.state-waiting_for_user")
    expect(panel).to_be_visible()
    # The status line says the state and the step, once; the panel where the answer goes: the agent's chat (no
    # button on this page).
    status = sized_page.locator("#run-status")
    expect(status.locator("#run-where")).to_have_text(
        re.compile(r"^Approve the plan · step 2 of 3 · waiting for your confirmation for \d+\smin")
    )
    expect(panel.locator("h3, .step-line")).to_have_count(0)
    expect(panel.locator(".next-move")).to_contain_text("The agent is waiting for you to approve the plan.")
    expect(panel.locator(".next-move")).to_contain_text(
        "The dashboard cannot talk to it: you confirm by copying a reply below."
    )
    # The two replies under it (friction15), the confirmation leading.
    expect(panel.locator(".replies .copy-button")).to_have_text(
        ["Copy “Confirmed” reply", "Copy “Not yet: change…” reply"]
    )
    # The step's prompt is written to the agent: folded; opened, a framed box, not a white strip across the amber.
    asks = panel.locator(".asks")
    expect(asks).not_to_be_visible()
    # Under "Why", the fold's name on the step page too (friction24b 15), with why it waits first.
    why = panel.locator("details.asks-fold > summary")
    expect(why).to_have_text("Why")
    why.click()
    expect(panel.locator(".asks-fold")).to_contain_text("The workflow asks you to confirm this step")
    expect(asks.locator("strong")).to_have_text("ask them to approve it")
    framed = "el => { const s = getComputedStyle(el); return [s.borderTopStyle, parseFloat(s.paddingLeft) > 0]; }"
    assert asks.evaluate(framed) == ["solid", True]
    why.click()
    # Said once: the run's one "Details" fold under the panel does not say why again.
    expect(panel.locator("details.panel-more")).to_have_count(0)
    expect(sized_page.locator("#run-details .panel-more")).to_have_count(0)
    expect(sized_page.locator(".badge.state-stalled")).to_have_count(0)
    # The state once, in the status line's pill, with whose move; the page's head, the runs
    # column's one card, the panel and the graph do not repeat it.
    expect(status.locator(".badge.state-needs_you")).to_have_text("Your move · Confirm")
    expect(sized_page.locator(".page-head .badge, .runs-nav .badge")).to_have_count(0)
    assert said(sized_page, "Your move · Confirm") == 1
    # Whose move, only in that pill: never again in the panel or the run's line.
    assert (said(sized_page, "your move"), said(sized_page, "Your move"), said(sized_page, "Agent's move")) == (0, 1, 0)
    assert_cancel_in_its_place(sized_page)
    assert said(sized_page, "your confirmation") == 1
    # The answered step shows its answer in the list of steps, as every other one does, though the panel quotes
    # it to review: a step with only its prompt read as an answer lost (friction18a 6).
    expect(sized_page.locator("ol.steps .notes")).to_have_text(["Planned it: two modules, one migration."])
    # When it started is a clock time ("started 4:32 AM"), said once: its one run started with the session
    # (not "started 4:32 AM" and "started 45 minutes ago"); how long ago is for the last activity.
    assert_times_said_one_way(sized_page, visible_text(sized_page))
    expect(sized_page.locator("#run-facts > li > time")).to_have_count(0)  # the panel's "since", folded aside
    # The session's one line of facts stays under its title at every size (friction7 7), the run's after what
    # the person must do; on a phone the verdict is on the first screen, and the Mode card comes last, after
    # the timeline, not between the steps and it (friction7 6).
    sized_page.evaluate("window.scrollTo(0, 0)")  # the first screen, as the page opens (a fold opened above scrolled)
    verdict = status.bounding_box()
    steps = sized_page.locator("#steps-title").bounding_box()
    assert verdict is not None and steps is not None
    for facts in ("#session-facts", "#run-facts"):
        box = sized_page.locator(facts).bounding_box()
        assert box is not None and (box["y"] > verdict["y"]) == (facts == "#run-facts"), facts
        assert box["y"] < steps["y"], facts
    # The mode is one short line of the head's facts at every size (friction11 item 2), in sight on the first
    # screen with the state; what it makes the agent do, the switch and the history fold in one card after the
    # timeline, whose title does not name it again (friction26a 9, 26b 16: said twice on a desktop, only at the
    # page's end on a phone).
    expect(sized_page.locator("#session-facts #session-mode")).to_have_text("Mode: Guided, balanced risk · change")
    expect(sized_page.locator("#session-mode")).to_be_in_viewport()
    expect(sized_page.locator("#mode-title")).not_to_contain_text("Guided")
    expect(sized_page.locator("#mode-what")).not_to_be_visible()
    expect(sized_page.locator("#mode > summary")).to_contain_text("what it makes the agent do, change it")
    mode, timeline = sized_page.locator(".mode-card").bounding_box(), sized_page.locator(".timeline").bounding_box()
    assert mode is not None and timeline is not None and mode["y"] > max(steps["y"], timeline["y"]), mode
    if sized_page.viewport_size == PHONE.size:
        assert verdict["y"] + verdict["height"] < PHONE.height
    # The downloads are one "Export" button at the top right (friction6 item 7), its choices folded.
    export = sized_page.locator("details.export-menu > summary")
    box, title = export.bounding_box(), sized_page.locator("h1").bounding_box()
    assert box is not None and title is not None and box["y"] < verdict["y"] and box["y"] <= title["y"]
    assert box["x"] + box["width"] > sized_page.viewport_size["width"] * 0.8
    expect(sized_page.locator(".export-menu .exports")).to_be_hidden()
    # A live session says so with a small dot and a label read aloud, not a line of its own.
    expect(sized_page.locator("#live-dot")).to_be_visible()
    expect(sized_page.locator("#live-dot")).to_contain_text("this page updates by itself")
    # In Working's blue, not a grey that reads as offline.
    blue = css_colour(sized_page, "--info")
    assert sized_page.locator("#live-dot .live-dot").evaluate("e => getComputedStyle(e).backgroundColor") == blue
    # Its state is said in words, the dot a steady decoration of them (a pulse caught at two moments read as
    # two states: friction12 item 14): a poll the server does not answer with a version says "Reconnecting…",
    # with a grey ring, until one it answers (live.js; a tab shown again polls at once).
    marker, words = sized_page.locator("#live-dot"), sized_page.locator("#live-dot .live-words")
    assert marker.locator(".live-dot").evaluate("e => getComputedStyle(e).animationName") == "none"
    expect(words).to_have_text("Updates live")
    poll = "**/live/sessions/*"
    sized_page.route(poll, lambda route: route.fulfill(status=200, content_type="application/json", body="{}"))
    sized_page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(words).to_have_text("Reconnecting…")
    expect(marker).to_have_attribute("title", re.compile("^The dashboard did not answer"))
    assert sized_page.locator("#live-dot .live-dot").evaluate("e => getComputedStyle(e).backgroundColor") != blue
    sized_page.unroute(poll)
    sized_page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(words).to_have_text("Updates live")
    # A tab in the background is not polled, and says so; shown again, it polls at once.
    shown_as = """(state) => {
      Object.defineProperty(document, "visibilityState", {value: state, configurable: true});
      document.dispatchEvent(new Event("visibilitychange"));
    }"""
    sized_page.evaluate(shown_as, "hidden")
    expect(words).to_have_text("Paused while hidden")
    sized_page.evaluate(shown_as, "visible")
    expect(words).to_have_text("Updates live")
    expect(sized_page.get_by_text("This page updates by itself.")).to_have_count(0)
    # One branch, two steps: a compact stepper, not a drawing; the shown step marked once (friction6 item 6).
    stepper = sized_page.locator("ol.stepper")
    expect(stepper.locator(".st-step:not(.upcoming) .st-title")).to_have_text(["Plan", "Approve the plan"])
    expect(stepper.locator('[aria-current="step"] .st-title')).to_have_text("Approve the plan")
    # What is left follows, greyed (friction7 11): the outline's last step, its place said.
    upcoming = stepper.locator(".st-step.upcoming")
    expect(upcoming).to_have_text(re.compile(r"^\s*Build\s+Still to come\s+step 3 of 3\s*$"))
    assert upcoming.locator(".st-title").evaluate("e => getComputedStyle(e).color") == css_colour(sized_page, "--muted")
    # Not reached is a solid grey border on a grey fill, as the graph's card: dashed says a branch no agent works
    # on any more (friction27a 5).
    edge = upcoming.locator(".st-box").evaluate(
        "e => [getComputedStyle(e).borderTopStyle, getComputedStyle(e).backgroundColor]"
    )
    assert edge == ["solid", css_colour(sized_page, "--surface-2")], edge
    expect(sized_page.locator(".graph-frame, .graph-list, .branch-tabs")).to_have_count(0)
    drawn = stepper.bounding_box()
    assert drawn is not None and drawn["height"] < 120, drawn
    # A row on a desktop; on a phone a column, each step at the line's start (no separator left at the start of a line).
    lefts = [box["x"] for box in (s.bounding_box() for s in stepper.locator(".st-box").all()) if box]
    assert (lefts[0] == lefts[1]) == (sized_page.viewport_size == PHONE.size), lefts
    if sized_page.viewport_size == PHONE.size:  # rows of one width, not pills of every width (friction9 13)
        widths = {round(box["width"]) for box in (s.bounding_box() for s in stepper.locator(".st-box").all()) if box}
        assert len(widths) == 1, widths
    assert "you are viewing" not in visible_text(sized_page) and "latest" not in stepper.inner_text()
    # Opened from the keyboard, the menu lists each download with a few words, within the screen.
    export.focus()
    sized_page.keyboard.press("Enter")
    # A session of one run: its report is the session's, offered once (friction61a 5).
    expect(sized_page.locator(".export-menu .ex-name")).to_have_text(["Bundle", "Session report"])
    keep_screenshot(sized_page, "export-menu-open")
    assert_fits(sized_page)
    # Escape closes it, the focus back on its button; so does a click elsewhere on the page.
    sized_page.keyboard.press("Escape")
    expect(sized_page.locator(".export-menu .exports")).to_be_hidden()
    expect(export).to_be_focused()
    export.click()
    expect(sized_page.locator(".export-menu .exports")).to_be_visible()
    sized_page.locator("#steps-title").click()  # out of the menu's way at either size
    expect(sized_page.locator(".export-menu .exports")).to_be_hidden()
    console_log.assert_clean()


def test_a_canceled_run(sized_page, console_log, site, service_catalog):
    canceled = made.canceled()
    visit(sized_page, f"{site}/runs/{canceled.run_id}/", "canceled-run")
    panel = sized_page.locator(".state-panel.state-canceled")
    expect(panel).to_be_visible()
    # Who canceled and where it stopped, in the status line, without opening "Why" (friction10 item 10): here the
    # dashboard's button, with no one signed in; never "from this machine" (friction14). The panel under it says
    # what to do, not that again.
    expect(sized_page.locator(".run-status .badge")).to_have_text("Canceled")
    expect(sized_page.locator("#run-where")).to_contain_text(
        "Draft Plan with Risks · step 2 of 3 · canceled in the dashboard just now"
    )
    expect(panel.locator("h3, .step-line")).to_have_count(0)
    # All three steps, as on every other run: the one it never reached greyed as a step still to come is, its
    # place alone in words (friction60a 18), the tooltip saying it was never reached.
    stepper = sized_page.locator("ol.stepper")
    expect(stepper.locator(".st-step")).to_have_count(3)
    rest = stepper.locator(".st-step.upcoming")
    expect(rest).to_have_count(1)
    expect(rest).to_be_visible()
    expect(rest.locator(".st-words")).to_have_text("step 3 of 3")
    expect(rest.locator(".gl-dot")).to_have_attribute("title", "Never reached: the run was canceled")
    expect(sized_page.locator("#pending-step")).to_have_count(0)
    expect(sized_page.get_by_text("while the agent works")).to_have_count(0)
    # The mode it ran under, in its head as on every run, with its history; nothing to switch any more.
    expect(sized_page.locator("#session-facts #session-mode")).to_contain_text("Mode was: Guided, balanced risk")
    expect(sized_page.locator("#session-mode")).to_be_in_viewport()  # at every size (friction26b 16)
    expect(sized_page.locator("#mode-link")).to_have_text("history")
    expect(sized_page.locator(".mode-choice")).to_have_count(0)
    expect(sized_page.locator("#live-dot")).to_have_count(0)  # nothing left to update: no live dot

    # Its two steps 0.05 s apart: the axis is one clock tick, their start to the minute (friction10 item 9: no
    # "50 ms later" tick; friction59 T 1: no two ticks a second apart), and the fold's line says how long they
    # took, once; it ended: no gap, no "now" (friction12 1).
    labels = assert_axis_reads(sized_page)
    assert len(labels) == 1, labels
    expect(sized_page.locator("#timeline > summary")).to_contain_text("2 steps reached (1 answered) · started ")
    expect(sized_page.locator("svg.tl-axis .tl-now")).to_have_count(0)
    # A session of one run: at any size its card is not listed again beside the run's own card, and on a
    # desktop the run's card takes the width the runs column took (friction16b 14).
    expect(sized_page.locator(".runs-nav")).to_be_hidden()
    main = sized_page.locator(".session-main").bounding_box()
    layout = sized_page.locator(".session-layout").bounding_box()
    if (sized_page.viewport_size or {})["width"] >= 600:
        assert main is not None and layout is not None and main["width"] >= layout["width"] - 1, (main, layout)
    console_log.assert_clean()


# The pills of a branch heading in the phone's list that come nearer than 16 px to its box's inner edge.
PILLS_CLEAR = """(box) => {
  const edge = box.getBoundingClientRect();
  const right = edge.right - parseFloat(getComputedStyle(box).borderRightWidth) - 16;
  return [...box.querySelectorAll('.gl-head .badge, .gl-head .gl-shown')]
    .filter((pill) => pill.getBoundingClientRect().right > right)
    .map((pill) => pill.textContent.trim());
}"""


def test_a_branch_left_behind(sized_page, console_log, site, service_catalog):
    rewound = made.left_behind()
    visit(sized_page, f"{site}/runs/{rewound.run_id}/", "left-behind-run")
    # Friction13 item 6: rewound to the run's first step, both branches hang from one "Start" root above their
    # first cards (a fork, not two trees) on a desktop; the phone's list says it in words.
    if (sized_page.viewport_size or {})["width"] >= 600:
        start = sized_page.locator("svg.run-graph g.start-root")
        expect(start.locator("text")).to_have_text("Start")
        expect(sized_page.locator("svg.run-graph path.start-edge")).to_have_count(2)
        root = start.bounding_box()
        firsts = [card.bounding_box() for card in sized_page.locator("svg.run-graph a.graph-node rect.card").all()]
        assert root and all(box and root["y"] + root["height"] <= box["y"] for box in firsts)
    else:
        from_start = re.compile(r"^Redoes .+, from the start$")
        expect(sized_page.locator(".gl-branch .gl-fork", has_text=from_start)).to_have_count(1)
        # No blank band between the line that says the other branches are there and the run's fold under it
        # (friction26a 6: about 40 px, as if something had failed to show).
        gap = sized_page.evaluate(
            "() => document.querySelector('#run-details').getBoundingClientRect().top"
            " - document.querySelector('#others-line').getBoundingClientRect().bottom"
        )
        assert gap <= 12, gap
    # One line beside the live branch, which leads; no "Resume here →" on it (friction26a 7: a second agent by one
    # click), nor a "Want it back?" fold (friction22a B3): its link opens the branch, whose panel offers resuming.
    # On a phone the list of branches below names it instead (friction18a 17): its heading opens the branch.
    line = sized_page.locator(".left-behind-line#left_behind-1")
    if sized_page.viewport_size["width"] < 600:
        expect(sized_page.locator("#other-branches")).to_be_hidden()
        sized_page.locator(".graph-list .gl-head a", has_text="Branch 1").click()
    else:
        expect(line).to_contain_text(re.compile(r"Branch 1 · .+ · step 3 of 3"))
        expect(line.locator(".agent-message")).to_have_count(0)
        expect(line.get_by_role("link")).to_have_count(1)
        line.get_by_role("link", name=re.compile(r"^Branch 1 · .+ · step 3 of 3$")).click()
    expect(sized_page.locator("#shown-branch")).to_contain_text("Viewing branch 1 (left behind).")
    panel = sized_page.locator(".state-panel.state-left_behind")
    expect(panel).to_be_visible()
    # Its resume is the quiet button, not the page's biggest (friction15, friction19b 15: a solid one invited
    # reviving the branch by accident), under the message's one name, in sight with its line (friction22a B3).
    expect(panel.locator(".next-move")).to_have_text("Optional: only if you want this branch back.")
    # Then one short line: which chat takes it, a new one, not branch 2's (friction23b 7); no rule of which branch
    # the run page shows (friction24a 8).
    assert panel.locator("#left_behind-then-1").inner_text().splitlines() == [
        "If you resume this branch, branch 2 keeps going too: two agents at once. Paste the message into a new chat.",
    ]
    expect(panel.locator(".copy-button")).to_have_text("Copy the resume message")
    expect(panel.locator(".copy-button")).to_have_class("copy-button copy-quiet")
    assert_copy_buttons_whole(sized_page)
    # Said once on the page (friction22b 13): the phone's list offers no second way back for the branch shown.
    expect(sized_page.get_by_text(re.compile(r"Want it back\?"))).to_have_count(0)
    expect(sized_page.locator(".gl-resume")).to_have_count(0)
    expect(sized_page.locator("#pending-step")).to_have_count(0)
    # Friction12 item 15: on a phone the list's "you are viewing" pill keeps well clear of its box's edge (it
    # wraps whole to the next line rather than come near it).
    if (sized_page.viewport_size or {})["width"] < 600:
        expect(sized_page.locator(".gl-branch.shown .gl-shown")).to_be_visible()
        assert sized_page.locator(".gl-branch.shown").evaluate(PILLS_CLEAR) == []
    keep_screenshot(sized_page, "left-behind-branch")
    assert_fits(sized_page)
    console_log.assert_clean()


STEPPER_LINES = """(ol) => [...ol.querySelectorAll(".st-step")].map((li) => {
  const title = li.querySelector(".st-title");
  const box = li.querySelector(".st-box").getBoundingClientRect();
  return {
    top: Math.round(box.top),
    height: Math.round(box.height),
    lead: getComputedStyle(li, "::before").content,
    sep: getComputedStyle(li, "::after").content,
    fill: getComputedStyle(li.querySelector(".st-box")).backgroundColor,
    cut: getComputedStyle(title).textOverflow === "ellipsis" || title.scrollWidth > title.clientWidth + 1,
  };
})"""


def assert_stepper_strip(page, lines: int) -> None:
    """The stepper reads as one sequence (friction28a 4, 28b 2): at most `lines` lines, the separator leading every step
    but the first (so none ends a line), the pills of a line all one height, every pill filled (the answered one
    too), and no step's name cut short (friction26a 1, 26b 2: the cut one was the current step)."""
    steps = page.locator("ol.stepper").evaluate(STEPPER_LINES)
    assert not any(step["cut"] for step in steps), steps
    tops = sorted({step["top"] for step in steps})
    assert len(tops) <= lines, tops
    assert all(step["sep"] in ("none", "normal", "") for step in steps), steps
    assert [step["lead"] for step in steps[1:]] == ['"\u203a"'] * (len(steps) - 1), steps
    for top in tops:
        assert len({step["height"] for step in steps if step["top"] == top}) == 1, steps
    assert all(step["fill"] not in ("rgba(0, 0, 0, 0)", "transparent") for step in steps), steps


def where_said(page, place: str) -> int:
    """How many times the main region shows the place where the agent is ("step 2 of 3", after the step's name);
    the branch graph, a drawing of every step (history), and the timeline's key aside."""
    text = visible_text(page, skip=("header", ".run-graph-card", ".timeline", "#mode"))
    return len(re.findall(rf"\b{re.escape(place)}\b", text))


@pytest.mark.parametrize("kind", ["blocked", "needs_you", "stalled", "forked"])
def test_a_run_page_says_where_the_agent_is_once(sized_page, console_log, site, service_catalog, quiet_after_30, kind):
    run = {
        "blocked": lambda: blocked_review("WHERE-1"),
        "needs_you": lambda: made.waiting_for_user(service_catalog["extra"], quiet_minutes=45),
        "stalled": made.stalled,
        "forked": made.left_behind,
    }[kind]()
    place = {
        "blocked": "step 2 of 8",
        "needs_you": "step 2 of 3",
        "stalled": "step 2 of 3",
        "forked": "step 2 of 3 · branch 2",
    }
    visit(sized_page, f"{site}/runs/{run.run_id}/", f"where-{kind}")
    # The run card opens with the state's chip and one sentence of where; nothing else on the page says it again.
    # The step's name, then its counters, then the state, on one line (friction25a 8, 28b 5).
    expect(sized_page.locator("#run-where")).to_contain_text(f" · {place[kind]} · ")
    line = sized_page.locator("#run-status").bounding_box()
    chip = sized_page.locator("#run-status .badge").bounding_box()
    if sized_page.viewport_size != PHONE.size:
        assert line is not None and chip is not None and line["height"] < 2 * chip["height"] + 4  # one line
    assert where_said(sized_page, place[kind]) == 1, visible_text(sized_page)
    if kind == "blocked" and sized_page.viewport_size != PHONE.size:
        # Eight steps in three lines at most, each led by its separator, none left at the end of a line (friction25a 6).
        assert_stepper_strip(sized_page, lines=3)
    # (the branch graph is history: its list on a phone names each branch's state, as its drawing does)
    expect(sized_page.locator("main .badge[data-move]:not([data-move=nobody]):not(.graph-list *)")).to_have_count(1)
    expect(sized_page.locator("#pending-step, #run-status-summary, .verdict-line")).to_have_count(0)
    if kind == "forked":
        # About the branch the agent works on; the shown branch, when another, named once after it.
        expect(sized_page.locator("#run-where")).to_contain_text(" · step 2 of 3 · branch 2 · ")
        expect(sized_page.locator("#shown-branch")).to_have_count(0)
        tip = sized_page.locator(".left-behind-line a[href^='?tip=']").first.get_attribute("href")
        visit(sized_page, f"{site}/runs/{run.run_id}/{tip}", "where-forked-branch-1")
        # One banner (friction24a 9): the branch shown in its state's word, then where the agent works, once, with
        # the run's pill (friction61a 9: without it the card had no state); the box under it says where the shown
        # branch stopped, not a bare step name.
        expect(sized_page.locator("#shown-branch")).to_have_text(
            "Viewing branch 1 (left behind). Branch 2: Agent's move · Working"
            " Draft Plan with Risks · step 2 of 3\u00a0→"
        )
        expect(sized_page.locator("#shown-branch .badge")).to_have_text("Agent's move · Working")
        expect(sized_page.locator("#left_behind-step-1")).to_have_text(
            "Branch 1 stopped at: Self-Check the Plan · step 3 of 3"
        )
        assert where_said(sized_page, "Working Draft Plan with Risks") == 1, visible_text(sized_page)
        assert "the latest" not in visible_text(sized_page) and "Latest:" not in visible_text(sized_page)
        # Two open branches, both stopped by canceling: the button says it covers the whole run, shown branch 1
        # or not (friction22a B5), its confirmation names them as their cards say them (friction17b 18) and
        # says it cannot be undone.
        # friction28b 14: "the whole run", not only the branch in view.
        expect(sized_page.locator("#cancel-button")).to_have_text("Cancel run (all branches)…")
        expect(sized_page.locator("#cancel-button + .confirm-body > p")).to_contain_text(
            "This cannot be undone: every branch of the run stops"
        )
        expect(sized_page.locator("#cancel-button + .confirm-body > p")).to_contain_text(
            "with branch 2 in progress and branch 1 left behind"
        )
    else:
        expect(sized_page.locator("#cancel-button")).to_have_text("Cancel run…")
    console_log.assert_clean()
