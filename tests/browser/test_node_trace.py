"""Why each step, in a real browser: the node pages of a run with a skipped conditional step and a
counted loop say what was evaluated, in plain words."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import screenshot
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
            "Skipped Update the docs: it runs only if touchesDocs is true, and touchesDocs is not set. "
            "Condition: touchesDocs",
            "Started loop Verify slices: 3 rounds because sliceCount = 3; this is round 1 of 3.",
            "Went on to Verify slice 1, the next step in the workflow (it has no condition).",
        ]
    )
    expect(trace.nth(0).locator("code")).to_have_text("touchesDocs")
    screenshot(page, "node-trace-loop-start")

    page.goto(f"{live_server.url}/nodes/{run.node_at('verify', 1)}/")
    expect(trace.first).to_have_text(
        "Next round of loop Verify slices: this is round 2 of 3 (3 rounds because sliceCount = 3)."
    )

    page.goto(f"{live_server.url}/nodes/{run.node_at('phase-1')}/")
    expect(trace.first).to_have_text(
        "Skipped Phase 0b: it runs only if taskComplexity is 'Small', and taskComplexity is 'Large'. "
        "Condition: taskComplexity == 'Small'"
    )
    expect(page.locator("h2#trace-title")).to_have_text("Why this step")
    # The session is named after its workflow: the crumbs say that name once ("Sessions / Sliced change / ...").
    crumbs = page.locator("p.crumbs")
    expect(crumbs.locator("a")).to_have_count(2)
    assert crumbs.inner_text().count(page.locator("p.crumbs a").nth(1).inner_text()) == 1
    screenshot(page, "node-trace-skipped")
    page.wait_for_load_state("networkidle")
    console_log.assert_clean()
