"""The dashboard in a real browser: a session with two runs (one forked twice), switching runs, the
graph's links, the mode control, live updates without a reload, and hostile agent text that never runs.
The harness (conftest.py) fails a test on any Content Security Policy violation; each test also checks
that the page logged no console error."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from runs.models import Event, EventKind, Node
from tests.browser import screenshot
from tests.browser.layout import PASTE_NEXT
from tests.support.sample_session import SESSION_KEY, Built, advance, two_runs_one_forked_twice

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

LIVE_WAIT_MS = 10_000


@pytest.fixture
def built(live_server, service_catalog) -> Built:
    return two_runs_one_forked_twice()


def test_a_session_with_two_runs_switch_runs_and_open_a_node(page, console_log, site, built):
    page.goto(site + "/sessions/")
    screenshot(page, "sessions")
    # The row's title opens the run its "Where it is" describes (friction60b 13): the row names the plan, run 2.
    row = page.locator("tr.session-row", has=page.get_by_role("link", name=SESSION_KEY, exact=True))
    expect(row.locator(".where-line")).to_contain_text("Focused Plan Routine (run 2 of 2): ")
    page.get_by_role("link", name=SESSION_KEY, exact=True).click()
    expect(page.locator("h1")).to_have_text(SESSION_KEY)
    expect(page.locator("#run-title")).to_have_text("Focused Plan Routine")
    # The page as the row's link opens it, named apart from the page once run 1 is picked in the sidebar (one
    # "session" screenshot of that, read alone, looked as if the row's link had opened run 1).
    screenshot(page, "session-as-opened")

    runs = page.locator("nav.runs-nav a.run-link")
    expect(runs).to_have_count(2)
    # The newest root run is shown first: the plan; then switch to the review in the sidebar.
    expect(page.locator("#run-title")).to_have_text("Focused Plan Routine")
    page.locator(f'a.run-link[data-run-id="{built.review_run}"]').click()
    expect(page.locator("#run-title")).to_have_text("Risk-Scaled Merge Request Review")
    expect(page.locator(f'a.run-link[data-run-id="{built.review_run}"]')).to_have_attribute("aria-current", "page")
    nodes = page.locator("svg.run-graph a.graph-node")
    # The checkpoint is a mark on its step, not a card, and each of the two rewound branches starts with a card
    # of the step it answered again: 12 cards where the old drawing had 11.
    expect(nodes).to_have_count(12)
    expect(page.locator("svg.run-graph a.checkpoint-mark")).to_have_count(1)
    lanes = {nodes.nth(i).get_attribute("data-lane") for i in range(12)}
    assert lanes == {"0", "1", "2"}
    screenshot(page, "session-run-1-picked")

    # A leaf of another branch shows that branch; then a node of it opens the node page with its notes.
    page.locator('svg.run-graph a.graph-node[href*="?tip="]').first.click()
    expect(page.locator("#steps-title")).to_be_visible()
    expect(page.get_by_text("A second look after a rewind.").first).to_be_visible()

    second = Node.objects.filter(run__public_id=built.review_run, depth=1).get()
    page.locator(f'svg.run-graph a.graph-node[data-node-id="{second.public_id}"]').click()
    expect(page).to_have_url(re.compile(rf"/nodes/{second.public_id}/$"))
    expect(page.locator("h1")).to_have_text("Record the Changed Files")
    expect(page.locator("#recorded-title ~ ol .markdown.notes").first).to_contain_text("Step 2 of the review.")
    expect(page.locator("#state-token")).to_have_text(re.compile(r"^st1_"))
    page.wait_for_load_state("networkidle")
    console_log.assert_clean()


def test_changing_the_mode_records_it_and_the_page_shows_it(page, console_log, site, built):
    page.goto(f"{site}/sessions/{built.session_id}/")
    # The head names the mode, default or not; "change" opens the fold with what it makes the agent do, the
    # switch and the history.
    expect(page.locator("#mode-name")).to_have_text("Guided, balanced risk")
    does = "The agent asks you at every confirmation, and weighs risk against speed."
    expect(page.get_by_text("No change yet")).not_to_be_visible()
    page.locator("#mode-link").click()
    expect(page.locator("#mode-does")).to_have_text(does)
    expect(page.get_by_text("No change yet")).to_be_visible()
    page.get_by_role("button", name=re.compile(r"^Autopilot")).click()
    expect(page.locator(".messages")).to_contain_text("Preferences saved: Autopilot")
    expect(page.locator("#mode-name")).to_have_text("Autopilot, stops for you, balanced risk")
    page.locator("#mode > summary").click()
    history = page.locator("ol.history li.preferences-change")
    expect(history.first).to_contain_text("autopilot")
    expect(history.first).to_contain_text("autonomy: guided → full_auto_stop_on_user_deps")
    expect(page.get_by_role("button", name=re.compile(r"^Autopilot"))).to_have_attribute("aria-pressed", "true")
    assert Event.objects.filter(session__public_id=built.session_id, kind=EventKind.PREFERENCES_CHANGED).exists()

    # Fine-tuning through the selects, then canceling the plan run through its confirmation.
    page.locator("#fine-tune summary").click()
    page.select_option("#pref-risk", "conservative")
    page.locator("#fine-tune button[type=submit]").click()
    expect(history.first).to_contain_text("riskPolicy: balanced → conservative")
    page.get_by_text("Cancel run…").click()
    page.get_by_role("button", name="Yes, cancel this run").click()
    expect(page.locator(".messages")).to_contain_text("is canceled")
    expect(page.locator(f'a.run-link[data-run-id="{built.plan_run}"] .badge')).to_have_text("Canceled")
    page.wait_for_load_state("networkidle")
    console_log.assert_clean()


def test_a_new_step_appears_without_a_reload(page, console_log, site, built):
    page.goto(f"{site}/runs/{built.review_run}/")
    page.wait_for_load_state("networkidle")
    page.evaluate("window.__marker = 1")
    # The user is typing in the mode form: the live update must leave that form alone.
    page.locator("#mode > summary").click()
    page.locator("#fine-tune summary").click()
    page.locator("#pref-risk").focus()

    advance(built.answers[-1], "A **live** note from the agent.")

    expect(page.locator("section[aria-labelledby=steps-title] > ol.steps")).to_contain_text(
        "A live note from the agent.", timeout=LIVE_WAIT_MS
    )
    # The status line follows: the run is done, where its card opens.
    expect(page.locator("#run-status .badge")).to_have_text("Done")
    expect(page.locator("#run-where")).to_contain_text("Finished ")
    assert page.evaluate("window.__marker") == 1  # the same document: no reload
    assert page.evaluate("document.activeElement && document.activeElement.id") == "pref-risk"
    assert page.evaluate("document.getElementById('fine-tune').open") is True
    console_log.assert_clean()


def test_the_sessions_list_updates_without_a_reload(page, console_log, site, built):
    page.goto(site + "/sessions/")
    page.wait_for_load_state("networkidle")
    page.evaluate("window.__marker = 1")
    from tests.support.mcp_calls import start_workflow

    start_workflow("wr.routine-focused_plan", context={"sessionKey": "LIVE-NEW-SESSION"})
    expect(page.get_by_role("link", name="LIVE-NEW-SESSION")).to_be_visible(timeout=LIVE_WAIT_MS)
    assert page.evaluate("window.__marker") == 1
    console_log.assert_clean()


def test_hostile_agent_text_never_runs(page, console_log, site, built):
    page.goto(f"{site}/runs/{built.review_run}/")
    page.wait_for_load_state("networkidle")
    # The payload is there, as text.
    expect(page.locator("section[aria-labelledby=files-title] table.changed-files")).to_contain_text(
        "<script>window.__pwned = 1</script>"
    )
    expect(page.locator("section[aria-labelledby=findings-title] table.findings")).to_contain_text(
        'onerror="window.__pwned = 2"'
    )
    # The Markdown link to javascript: is no link at all (CommonMark refuses the target): its text shows
    # as written, and no link on the page goes to javascript:.
    page.locator("#earlier-steps > summary").click()  # the step that wrote it is among the earlier ones
    note = page.locator(".markdown", has_text="click me").first
    expect(note).to_contain_text("[click me](javascript:window.__pwned=3)")
    hrefs = page.locator("a[href]").evaluate_all("links => links.map(link => link.getAttribute('href'))")
    assert not [href for href in hrefs if href.strip().lower().startswith("javascript:")]
    note.click()
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.__pwned") == "undefined"

    second = Node.objects.filter(run__public_id=built.review_run, depth=1).get()
    for url in (f"/nodes/{second.public_id}/", f"/sessions/{built.session_id}/", "/sessions/?q=%3Cscript%3E"):
        page.goto(site + url)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("typeof window.__pwned") == "undefined", url
    console_log.assert_clean()


def test_the_copy_button_copies_the_message_for_the_agent(page, console_log, site, built):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    second = Node.objects.filter(run__public_id=built.review_run, depth=1).get()
    page.goto(f"{site}/nodes/{second.public_id}/")
    page.locator("#branch-here > summary").click()  # "Branch from here": one quiet fold (friction62a 6)
    page.locator("details.resume-message > summary").first.click()  # a done step: "Redo with the same inputs", folded
    message = page.locator("#node-message").inner_text().strip()
    token = page.locator("#state-token").text_content().strip()  # folded, for the API
    page.get_by_role("button", name="Copy the redo message").click()
    expect(page.get_by_text(PASTE_NEXT, exact=True)).to_be_visible()  # the copy says the next step (friction18a 10)
    assert page.evaluate("navigator.clipboard.readText()").strip() == message and f'stateToken "{token}"' in message
    console_log.assert_clean()


def test_the_other_pages_load_clean(page, console_log, site, built):
    for url in ("/workflows/", "/workflows/wr.risk_scaled_mr_review/", "/timings/", "/connect/", "/sessions/nope/"):
        page.goto(site + url)
        page.wait_for_load_state("networkidle")
        expect(page.locator("nav[aria-label=Main]")).to_be_visible()
    # The 404 page's document itself is an expected error response, not a console error of ours.
    console_log.errors[:] = [e for e in console_log.errors if "404" not in e]
    console_log.assert_clean()
