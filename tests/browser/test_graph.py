"""The branch graph read at a glance, in a real browser: labelled cards, the loop marks, the newest and
the shown node tagged, "Branch N" per lane; at 300 nodes the graph still fits its box, its long straight
stretch collapsed. The timeline has clock times on its axis."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from runs.models import Node
from tests.browser import screenshot
from tests.support.looped_run import looped_and_forked

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


@pytest.fixture
def site(live_server) -> str:
    return str(live_server.url)


def test_a_looped_forked_run_reads_without_hovering(page, console_log, site, service_catalog, settings):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{site}/runs/{looped.run_id}/")
    graph = page.locator("svg.run-graph")
    # Titles on the cards themselves, not only in tooltips.
    expect(graph.locator("text.ct", has_text="Scope the change")).to_be_visible()
    expect(graph.locator("text.ct", has_text="Verify slice 2").first).to_be_visible()
    # The second time round the loop is marked, and the checkpoint's card is told apart.
    expect(graph.locator("tspan.loop", has_text="↻ 2").first).to_be_visible()
    expect(graph.locator("rect.card.checkpoint")).to_have_count(1)
    expect(graph.locator("text.cs", has_text="checkpoint")).to_have_count(1)
    # Branches labelled as everywhere else; the newest node (the fork) is also the one shown.
    expect(graph.locator("text.tag-text.lane")).to_have_text(["Branch 1", "Branch 2"])
    newest = graph.locator("a.graph-node:has(rect.card.newest)")
    expect(newest).to_have_count(1)
    expect(newest).to_have_attribute("aria-current", "true")
    expect(newest.locator("text.tag-text")).to_have_text(["Branch 2", "running", "newest", "shown"])
    screenshot(page, "graph-looped-forked", full_page=False)

    # Showing the first branch: its last node is shown, the fork stays the newest.
    first_leaf = graph.locator('a.graph-node[data-lane="0"][href*="?tip="]')
    first_leaf.click()
    expect(page).to_have_url(re.compile(r"\?tip=\d+$"))
    shown = page.locator('svg.run-graph a.graph-node[aria-current="true"]')
    expect(shown).to_have_attribute("data-lane", "0")
    expect(shown.locator("text.tag-text")).to_have_text(["done", "shown"])
    expect(page.locator("svg.run-graph rect.card.newest")).to_have_count(1)
    screenshot(page, "graph-looped-forked-first-branch", full_page=False)

    # Links name nodes by a short id; the full one is in the URL and the tooltip.
    page.goto(f"{site}/sessions/{looped.session_id}/")
    ticks = page.locator(".timeline text.tl-tick")
    expect(ticks.first).to_have_text(re.compile(r"^\d\d:\d\d"))
    expect(page.locator(".timeline .tl-duration").first).to_be_visible()
    screenshot(page, "timeline", full_page=True)
    console_log.assert_clean()


def test_at_300_nodes_the_graph_fits_its_box_and_collapses_the_long_stretch(
    page, console_log, site, service_catalog, settings
):
    settings.WORKRAIL_RATE_LIMIT_BURST = 100_000
    looped = looped_and_forked(service_catalog["extra"], iterations=150)
    nodes = Node.objects.filter(run__public_id=looped.run_id).count()
    assert nodes >= 300
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{site}/runs/{looped.run_id}/")
    # The straight stretch of branch 1 is one dashed line saying which steps it stands for; the rest,
    # the fork and both ends, are cards. Nothing scrolls sideways: the drawing is as wide as its box at most.
    expect(page.locator("svg.run-graph .gap-text").first).to_have_text(re.compile(r"^⋯ steps \d+-\d+$"))
    drawn = page.locator("svg.run-graph a.graph-node").count()
    assert 10 < drawn < nodes / 4
    widths = page.locator(".graph-fit").evaluate(
        "b => [b.querySelector('svg').getBoundingClientRect().width, b.clientWidth, b.scrollWidth]"
    )
    assert widths[0] <= widths[1] and widths[2] <= widths[1]
    # Showing the first branch: its end (step 300 or so) is a card, with its state in words.
    leaf = page.locator('svg.run-graph a.graph-node[data-lane="0"][href*="?tip="]').get_attribute("href")
    page.goto(site + str(leaf))
    shown = page.locator('svg.run-graph a.graph-node[aria-current="true"]')
    expect(shown.locator("text.ct")).to_have_text("Complete")
    expect(shown.locator("text.tag-text.state")).to_have_text("done")
    shown.scroll_into_view_if_needed()
    expect(shown).to_be_in_viewport()
    screenshot(page, "graph-300-first-branch", full_page=False)
    console_log.assert_clean()
