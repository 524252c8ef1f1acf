"""Why each step, in a real browser: the node pages of a run with a skipped conditional step and a
counted loop say what was evaluated, in plain words."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser import screenshot
from tests.browser.layout import assert_fits, keep_screenshot
from tests.support.traced_run import TracedRun, install, traced_run

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


@pytest.fixture
def run(live_server, service_catalog) -> TracedRun:
    install(service_catalog["extra"])
    return traced_run()


def test_a_node_page_says_which_step_was_skipped_and_where_the_loop_stands(page, console_log, live_server, run):
    page.goto(f"{live_server.url}/nodes/{run.node_at('verify', 0)}/")
    trace = page.locator("section[aria-labelledby=trace-title] ol.trace li")
    expect(trace).to_have_text(
        [
            "Skipped Update the docs: it runs only if touches docs is true, and touches docs is not set. "
            "Condition: touchesDocs",
            "Started loop Verify slices: 3 rounds because slice count is 3; this is round 1 of 3.",
            "Went on to Verify slice 1, the next step in the workflow (it has no condition).",
        ]
    )
    expect(trace.nth(0).locator("code")).to_have_text("touchesDocs")
    screenshot(page, "node-trace-loop-start")

    page.goto(f"{live_server.url}/nodes/{run.node_at('verify', 1)}/")
    expect(trace.first).to_have_text(
        "Next round of loop Verify slices: this is round 2 of 3 (3 rounds because slice count is 3)."
    )

    page.goto(f"{live_server.url}/nodes/{run.node_at('phase-1')}/")
    expect(trace.first).to_have_text(
        "Skipped Phase 0b: it runs only if task complexity is 'Small', and task complexity is 'Large'. "
        "Condition: taskComplexity == 'Small'"
    )
    expect(page.locator("h2#trace-title")).to_have_text("Why this step")
    # The session is named after its workflow: the crumbs say that name once, yet keep every step page's shape,
    # Sessions / session / run / step (friction63a 14: this one jumped from the session to the step).
    crumbs = page.locator("p.crumbs")
    expect(crumbs.locator("a")).to_have_text(["Sessions", "Sliced change", "run"])
    expect(crumbs.locator("a").nth(2)).to_have_attribute("href", f"/runs/{run.run_id}/")
    assert crumbs.inner_text().count("Sliced change") == 1
    screenshot(page, "node-trace-skipped")
    page.wait_for_load_state("networkidle")
    console_log.assert_clean()


def test_the_progress_strip_says_a_skipped_step_where_it_would_stand(sized_page, console_log, live_server, run):
    # Friction62b 15: a step passed over by its condition was missing from the strip, step 1 then step 3; it is a
    # dashed chip where it would stand, "step 2 skipped", why in its tooltip.
    sized_page.goto(f"{live_server.url}/runs/{run.run_id}/")
    skipped = sized_page.locator(".stepper .st-step.skipped")
    # Phase 0b, Update the docs; Polish, a loop that ran no round: "step 6 skipped" too, one word for a step the
    # workflow passed over by its own rule (friction63b 12: "skipped" beside "not run"), why in its tooltip.
    expect(skipped).to_have_count(3)
    expect(skipped.first.locator(".st-title")).to_have_text("Phase 0b")
    expect(skipped.first.locator(".st-words")).to_have_text("step 2 skipped")
    assert "task complexity is 'Small'" in (skipped.first.locator(".st-box").get_attribute("title") or "")
    assert skipped.first.locator(".st-box").evaluate("e => getComputedStyle(e).borderTopStyle") == "dashed"
    titles = sized_page.locator(".stepper .st-step .st-title").all_inner_texts()
    assert titles[:4] == ["Intake", "Phase 0b", "Phase 1", "Update the docs"]
    expect(skipped.nth(2).locator(".st-words")).to_have_text("step 6 skipped")
    assert "polish rounds is 0" in (skipped.nth(2).locator(".st-box").get_attribute("title") or "")
    # The finished run's end is a plain end marker, outlined as the answered steps before it, not as the current
    # step (friction63a 13: its thick dark outline read as the step the run is at).
    end = sized_page.locator(".stepper .st-step", has_text="Complete")
    expect(end).not_to_have_class(re.compile(r"\bcurrent\b"))
    expect(sized_page.locator(".stepper [aria-current]")).to_have_count(0)
    look = "e => [getComputedStyle(e).borderTopColor, getComputedStyle(e).borderTopStyle]"
    before = sized_page.locator(".stepper .st-step", has_text="Wrap up").locator(".st-box")
    assert end.locator(".st-box").evaluate(look) == before.evaluate(look)
    for listed in sized_page.locator(".stepper, ol.steps").all():
        expect(listed).not_to_contain_text("not run")
    # A run that never forked names no branch (friction63a 11, 63b 4: "Summary of branch 1" on its only branch).
    expect(sized_page.locator("#synthesis-title")).to_have_text("Summary")
    expect(sized_page.locator("#synthesis-done")).to_have_text(re.compile(r"^completed "))
    expect(sized_page.locator("#synthesis-notes summary")).to_have_text("The notes as one document")
    keep_screenshot(sized_page, "progress-skipped")
    assert_fits(sized_page)
    console_log.assert_clean()
