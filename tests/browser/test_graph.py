"""The branch graph read at a glance, in a real browser: labelled cards, the loop marks, the newest and
the shown node tagged, "Branch N" per lane; at 300 nodes the graph scrolls within its box, the page
still scrolls, and the shown node is in view. The timeline has clock times on its axis."""

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


def in_view(page, box: str, item: str) -> bool:
    """Whether `item` lies within the visible part of its scrolling `box` and of the window."""
    return bool(
        page.evaluate(
            """([box, item]) => {
                const b = document.querySelector(box).getBoundingClientRect();
                const n = document.querySelector(item).getBoundingClientRect();
                return n.left >= b.left && n.right <= b.right && n.top >= b.top && n.bottom <= b.bottom;
            }""",
            [box, item],
        )
    )


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
    expect(newest.locator("text.tag-text")).to_have_text(["Branch 2", "newest", "shown"])
    screenshot(page, "graph-looped-forked", full_page=False)

    # Showing the first branch: its last node is shown, the fork stays the newest.
    first_leaf = graph.locator('a.graph-node[data-lane="0"][href*="?tip="]')
    first_leaf.click()
    expect(page).to_have_url(re.compile(r"\?tip=\d+$"))
    shown = page.locator('svg.run-graph a.graph-node[aria-current="true"]')
    expect(shown).to_have_attribute("data-lane", "0")
    expect(shown.locator("text.tag-text")).to_have_text(["shown"])
    expect(page.locator("svg.run-graph rect.card.newest")).to_have_count(1)
    screenshot(page, "graph-looped-forked-first-branch", full_page=False)

    # Links name nodes by a short id; the full one is in the URL and the tooltip.
    page.goto(f"{site}/sessions/{looped.session_id}/")
    ticks = page.locator(".timeline text.tl-tick")
    expect(ticks.first).to_have_text(re.compile(r"^\d\d:\d\d"))
    expect(page.locator(".timeline text.tl-duration").first).to_be_visible()
    screenshot(page, "timeline", full_page=True)
    console_log.assert_clean()


def test_at_300_nodes_the_graph_scrolls_in_its_box_and_shows_the_shown_node(
    page, console_log, site, service_catalog, settings
):
    settings.WORKRAIL_RATE_LIMIT_BURST = 100_000
    looped = looped_and_forked(service_catalog["extra"], iterations=150)
    nodes = Node.objects.filter(run__public_id=looped.run_id).count()
    assert nodes >= 300
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{site}/runs/{looped.run_id}/")
    box = page.locator(".graph-scroll")
    expect(page.locator("svg.run-graph a.graph-node")).to_have_count(nodes)
    # The graph is wider than its box, which scrolls; the page around it does not grow sideways.
    sizes = box.evaluate("b => [b.scrollWidth, b.clientWidth, document.documentElement.scrollWidth, innerWidth]")
    assert sizes[0] > 10 * sizes[1]
    assert sizes[2] <= sizes[3]
    # The shown node (the newest: the fork, early in the run) is in view in its box.
    assert in_view(page, ".graph-scroll", 'a.graph-node[aria-current="true"]')
    screenshot(page, "graph-300-newest", full_page=False)

    # Showing the first branch, whose end is 300 steps to the right: scrolled to it.
    leaf = page.locator('svg.run-graph a.graph-node[data-lane="0"][href*="?tip="]').get_attribute("href")
    page.goto(site + str(leaf))
    assert in_view(page, ".graph-scroll", 'a.graph-node[aria-current="true"]')
    expect(page.locator('svg.run-graph a.graph-node[aria-current="true"] text.ct')).to_have_text("Complete")
    screenshot(page, "graph-300-first-branch", full_page=False)
    # The rest of the page is still there and scrolls with the wheel: down to the steps below the graph.
    page.mouse.move(640, 850)
    page.mouse.wheel(0, 500)
    page.wait_for_function("() => window.scrollY > 0")
    expect(page.locator("#steps-title")).to_be_in_viewport()
    console_log.assert_clean()


def test_showing_the_first_branch_keeps_where_the_second_leaves_it_in_view(page, console_log, site, service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{site}/runs/{looped.run_id}/")
    # Every lane shows: the box is as tall as the drawing.
    box = page.locator(".graph-scroll")
    assert box.evaluate("b => b.clientHeight >= b.querySelector('svg').getBoundingClientRect().height")
    leaf = page.locator('svg.run-graph a.graph-node[data-lane="0"][href*="?tip="]').get_attribute("href")
    page.goto(site + str(leaf))
    # Branch 1's end and where branch 2 leaves it (branch 2's first card) in view together; no sign needed.
    assert in_view(page, ".graph-scroll", 'a.graph-node[aria-current="true"]')
    assert in_view(page, ".graph-scroll", 'a.graph-node[data-lane="1"]')
    expect(page.locator(".lane-sign:visible")).to_have_count(0)
    # Scrolled away from the start: the left edge fades (there is more that way).
    assert box.evaluate("b => getComputedStyle(b).getPropertyValue('--fade-start')") != "0px"
    screenshot(page, "graph-first-branch-fork-in-view", full_page=False)
    console_log.assert_clean()


def test_a_branch_scrolled_out_of_view_keeps_a_sign_that_brings_it_back(page, console_log, site, service_catalog):
    # Six slices: branch 1's end is too far from where branch 2 leaves it to show both.
    looped = looped_and_forked(service_catalog["extra"], iterations=6)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{site}/runs/{looped.run_id}/")
    leaf = page.locator('svg.run-graph a.graph-node[data-lane="0"][href*="?tip="]').get_attribute("href")
    page.goto(site + str(leaf))
    assert in_view(page, ".graph-scroll", 'a.graph-node[aria-current="true"]')
    assert not in_view(page, ".graph-scroll", 'a.graph-node[data-lane="1"]')
    sign = page.locator(".lane-sign:visible")
    expect(sign).to_have_text("◂ Branch 2")
    screenshot(page, "graph-first-branch-sign", full_page=False)
    sign.click()
    page.wait_for_function(
        """() => { const b = document.querySelector(".graph-scroll").getBoundingClientRect();
            const n = document.querySelector('.graph-scroll a.graph-node[data-lane="1"]').getBoundingClientRect();
            return n.left >= b.left && n.right <= b.right; }"""
    )
    expect(page.locator(".lane-sign:visible")).to_have_count(0)
    # At the start nothing lies to the left: that edge does not fade.
    page.locator(".graph-scroll").evaluate("b => { b.scrollLeft = 0; }")
    page.wait_for_function(
        "() => getComputedStyle(document.querySelector('.graph-scroll')).getPropertyValue('--fade-start') === '0px'"
    )
    console_log.assert_clean()
