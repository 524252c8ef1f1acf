"""Sharing in a real browser: download a session's bundle from its page, import it through the
import page the sessions list's "Import" button opens, and land on the imported session (CSRF and the
CSP on, as served)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from runs.models import Event, EventKind, Session
from tests.browser import screenshot
from tests.browser.layout import DESKTOP, PHONE, assert_fits, keep_screenshot
from tests.browser.timeline import assert_axis_reads
from tests.exports.bundle.support import empty_the_store
from tests.support.sample_session import two_runs_one_forked_twice

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


def test_a_bundle_downloaded_from_a_session_page_imports_through_the_form(
    page, console_log, live_server, service_catalog, tmp_path
):
    site = str(live_server.url)
    built = two_runs_one_forked_twice()
    page.goto(f"{site}/sessions/{built.session_id}/")
    page.locator("details.export-menu > summary", has_text="Export").click()  # the downloads are in its menu
    with page.expect_download() as download:
        page.get_by_role("link", name=".workrail-bundle.json").click()  # the Import page's word for it
    bundle = tmp_path / download.value.suggested_filename
    download.value.save_as(bundle)
    assert bundle.name == "TICKET-4242.workrail-bundle.json"  # named after the session's key
    # Leave the session's page before its session goes: its live updates would ask for it and get a 404.
    page.goto("about:blank")
    empty_the_store()

    page.goto(f"{site}/sessions/")
    # An empty list leads with "Start a workflow", in sight at every size; "Import" stays in the head.
    before = page.viewport_size
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size.size)
        start = page.locator("#start-first").get_by_role("link", name="Start a workflow")
        expect(start).to_have_attribute("href", "/workflows/")
        box = start.bounding_box()
        assert box is not None and box["y"] + box["height"] <= size.height, box
        # Its hint apart from it, not touching (friction61b 15): beside it with a gap, or on a line under it.
        hint = page.locator("#start-first .start-line .muted").bounding_box()
        assert hint is not None
        assert hint["x"] >= box["x"] + box["width"] + 8 or hint["y"] >= box["y"] + box["height"] + 4, (box, hint)
        assert_fits(page)
        keep_screenshot(page, "sessions-empty")
    page.set_viewport_size(before)
    page.locator(".page-head").get_by_role("link", name="Import").click()  # the list's head opens the import page
    page.set_input_files("#import-bundle", str(bundle))
    screenshot(page, "sessions-import-form")
    page.get_by_role("button", name="Import", exact=True).click()

    expect(page).to_have_url(f"{site}/sessions/{built.session_id}/?imported=1")
    expect(page.locator(".messages")).to_contain_text("Imported TICKET-4242 (")
    expect(page.locator(".messages")).not_to_contain_text("stateToken")
    # No agent holds an imported run: both read Paused, the person's move, never "Agent working on"; the shown
    # run's status line says since when, its panel gives its message, ready to copy, once (no banner above it).
    expect(page.locator("a.run-link")).to_have_count(2)
    before = page.viewport_size
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size.size)
        expect(page.locator("#resume-after-import")).to_have_count(0)
        expect(page.locator("a.run-link .badge.state-paused")).to_have_count(2)
        expect(page.locator('a.run-link .badge[data-move="yours"]')).to_have_count(2)
        # One panel for the shown run: the runs column's heading says both need the person (friction19b 14).
        expect(page.locator(".runs-nav h2")).to_have_text("Runs (2 · 2 need you)")
        panel = page.locator(".state-panel.state-paused")
        expect(panel).to_have_count(1)
        # Since when, the card's status line says; why (imported), the panel's fold.
        expect(page.locator("#run-where")).to_contain_text(re.compile(r" · imported [^·]+$"))
        expect(panel.locator("h3")).to_have_count(0)
        expect(page.locator("#run-details .panel-more")).to_contain_text("This session was imported")
        expect(panel.locator(".agent-message")).to_contain_text("Resume the WorkRail workflow: call continue_workflow")
        expect(panel.get_by_role("button", name="Copy the resume message")).to_be_in_viewport()
        # Which of the two to start first, the order they last moved before the export (friction64).
        expect(panel.locator("#start-order")).to_contain_text(
            re.compile(r"^2 runs here have no agent yet: start them in the order they last moved before the import, ")
        )
        expect(page.locator("body")).not_to_contain_text("Agent working on")
        expect(page.locator("body")).not_to_contain_text("agent's move")
        assert_fits(page)
        keep_screenshot(page, "imported-paused")
    page.set_viewport_size(before)
    assert_axis_reads(page)
    # Two runs wait for an agent: nothing ended, so the summary says when the newest step was, never how long the
    # session "took" (friction63a 3: "took under a minute" read as finished work).
    expect(page.locator("#timeline > summary")).to_contain_text(re.compile(r"· last step \S"))
    expect(page.locator("#timeline > summary")).not_to_contain_text("took")
    # Paused's dots are squares, its key beside the row too: told from Running's blue by shape, not only by
    # its cyan (friction9 item 7).
    paused = page.locator(".tl-track:visible .tl-dot.dot-paused")
    assert paused.count() >= 1 and {dot.evaluate("d => d.tagName") for dot in paused.all()} == {"rect"}
    key = page.locator(".tl-key.dot-paused").first
    assert key.evaluate("k => getComputedStyle(k).borderTopLeftRadius") == "2px"
    # The Progress strip has no key: its current step's mark is the dot every current step has, not the timeline's
    # square (friction28a 16), the pill around it in Paused's colour.
    current = page.locator(".stepper .st-step.current .gl-dot.dot-paused")
    assert current.evaluate("d => getComputedStyle(d).borderTopLeftRadius") == "50%"
    screenshot(page, "imported-session")
    assert Session.objects.get().public_id == built.session_id
    assert Event.objects.filter(kind=EventKind.SESSION_IMPORTED, data__via="dashboard").exists()
    console_log.assert_clean()


def test_a_damaged_bundle_shows_the_error_and_what_to_do(page, console_log, live_server, service_catalog, tmp_path):
    site = str(live_server.url)
    damaged = tmp_path / "damaged.json"
    damaged.write_text('{"bundleSchemaVersion":1,"kind":"workrail.session-bundle"')
    page.goto(f"{site}/sessions/import")
    page.set_input_files("#import-bundle", str(damaged))
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.locator("body")).to_contain_text("BUNDLE_CORRUPT")
    expect(page.locator("body")).to_contain_text("Export the session again")
    assert Session.objects.count() == 0
