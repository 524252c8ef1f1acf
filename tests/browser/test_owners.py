"""A team's shared store in a real browser: the sessions list has an Owner column, the session, run and node
pages say who did each thing in plain words. Screenshots: owners-sessions, owners-session, owners-node,
owners-fork-node."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import screenshot
from tests.support.team_session import Team, team_sessions

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


@pytest.fixture
def team(live_server, service_catalog) -> Team:
    return team_sessions()


def test_the_pages_of_a_shared_store_say_who_did_what(page, console_log, live_server, team):
    site = str(live_server.url)
    page.goto(site + "/sessions/")
    expect(page.locator("th", has_text="Owner")).to_be_visible()
    expect(page.locator("td.owner", has_text="alice")).to_be_visible()
    # Bob's branch, started by hand, no agent has had yet: its link gets the same message as every resume, in the
    # same words (friction62a 5: "get its message" read as a message of its own).
    bobs = page.locator(".where-line", has_text="started by hand")
    expect(bobs.locator(".your-action")).to_have_text("get the resume message")
    expect(page.locator(".your-action", has_text="get its message")).to_have_count(0)
    screenshot(page, "owners-sessions")

    page.goto(f"{site}/sessions/{team.alice_session}/")
    expect(page.locator("#session-owner")).to_have_text("by alice")
    expect(page.locator("#session-people")).to_have_text("people: alice, bob")
    expect(page.locator(".fork-note .by")).to_have_text("Started by bob (dashboard).")
    expect(page.locator("ol.steps .by").first).to_have_text("by alice's agent (over HTTP)")
    # Bob started branch 2 by hand just now: the graph's legend says of the branch it replaced that its agent may
    # still be working (friction19b 2), not that the agent went back, and what to do (friction22a B9: "Replaced",
    # nobody's move). "Started by hand" is the card's words, no border of its own, so no key entry says a border
    # no card draws (friction62a 9: a teal dotted "started by hand" key beside an amber dotted card).
    key = page.locator(".graph-help .legend")
    page.locator(".graph-help summary").click()
    expect(key.locator("li", has=page.locator("rect.card.state-superseded"))).to_have_text(
        "Replaced: a redo made in the dashboard replaced it while its agent may still be working (dashed in amber,"
        " not grey as a branch left behind, which it becomes once quiet): tell it in its chat to stop"
    )
    expect(page.locator(".badge", has_text="Superseded")).to_have_count(0)
    expect(key).not_to_contain_text("no agent works on it now")
    expect(key).not_to_contain_text("started by hand")
    page.locator(".graph-help summary").click()  # closed again: the one-line key is back
    expect(page.locator(".state-legend li", has_text="started by hand")).to_have_count(0)
    # Bob's card says it in words beside it, under its branch's name, its title whole on two lines as on branch 1's
    # card (friction63a 6, 63b 8: on a line of the card it cut the title to "Draft Plan with Ri…").
    bobs = page.locator("svg.run-graph a.graph-node", has=page.locator("rect.card.state-paused"))
    expect(bobs.locator("text.tag-text.via")).to_have_text("started by hand")
    expect(bobs.locator("text.ct")).to_have_text(["Draft Plan with", "Risks"])
    expect(bobs.locator("text.cv")).to_have_count(0)
    said, box = bobs.locator("text.tag-text.via").bounding_box(), bobs.locator("rect.card").bounding_box()
    svg = page.locator("svg.run-graph").bounding_box()
    assert said and box and svg and said["x"] > box["x"] + box["width"], (said, box)  # beside the card
    assert said["x"] + said["width"] <= svg["x"] + svg["width"] + 0.5, (said, svg)  # not cut by the drawing's edge
    expect(bobs.locator("text.cs")).to_have_text("step 2 of 3")
    screenshot(page, "owners-session")

    page.goto(f"{site}/nodes/{team.answered_node}/")
    expect(page.locator("#recorded-title")).to_be_visible()
    # The checkpoint saved during the step is its own card (friction62b 3): not under Answer, not a next step,
    # and the head does not link this step as where its branch "is now".
    checkpoint = page.locator("#checkpoints")
    expect(checkpoint.locator("h2")).to_have_text("Checkpoint saved during this step")
    expect(checkpoint).to_contain_text("Half way through.")
    expect(checkpoint.locator(".by")).to_have_text("by alice (HTTP API)")
    expect(page.get_by_text("by alice (HTTP API)")).to_have_count(1)
    expect(page.locator("#recorded-title + ol")).not_to_contain_text("Checkpoint")
    expect(page.locator("#recorded-title + ol")).not_to_contain_text("Half way through.")
    expect(page.locator("#branches-title")).to_have_count(0)
    expect(page.locator("#now-at")).to_have_count(0)
    expect(checkpoint.locator(".after-checkpoint a")).to_have_text("This step from the checkpoint on →")
    expect(page.locator(f'a[href="/nodes/{team.answered_node}/"]')).to_have_count(0)  # nothing links the page
    expect(page.locator(".next-nodes .by", has_text="by bob (dashboard)")).to_be_visible()
    screenshot(page, "owners-node")

    page.goto(f"{site}/nodes/{team.fork_node}/")
    # Who started the branch, in the step's line of facts, said once: not again in its hand-over.
    expect(page.locator("#node-facts")).to_contain_text("by bob (dashboard)")
    expect(page.locator(".fork-handover")).not_to_contain_text("by bob")
    screenshot(page, "owners-fork-node")
    console_log.assert_clean()
