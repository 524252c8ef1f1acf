"""The branch graph read at a glance, in a real browser: labelled cards, the loop marks, the newest and
the shown node tagged, "Branch N" per lane; at 300 nodes the graph still fits its box, its long straight
stretch collapsed. The timeline has clock times on its axis."""

from __future__ import annotations

import itertools
import re

import pytest
from playwright.sync_api import expect

from runs.models import Node
from tests.browser import screenshot
from tests.browser.layout import assert_fits, css_colour, keep_screenshot
from tests.browser.timeline import assert_axis_reads
from tests.support.looped_run import looped_and_forked
from tests.support.sample_session import two_runs_one_forked_twice

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


# The step lines (and what-made-it lines) of the graph's cards that run past their card's right edge.
STEP_LINES_OVERFLOW = """() => [...document.querySelectorAll("svg.run-graph .graph-node")].flatMap((node) => {
  const card = node.querySelector("rect.card").getBBox();
  return [...node.querySelectorAll("text.cs, text.cv")]
    .filter((line) => line.getBBox().x + line.getBBox().width > card.x + card.width - 4)
    .map((line) => line.textContent);
})"""


# How many graph cards the steps list also shows, and those whose step line is not what the list's heading for the
# same node says after the step's name (the one short locator, "step 2b of 3 (round 2 of 3)": friction19b 9).
CARD_AND_LIST_DIFFER = """() => {
  const pairs = [...document.querySelectorAll("svg.run-graph a.graph-node")].flatMap((card) => {
    const step = document.querySelector(`.steps li[data-step-node="${card.dataset.nodeId}"] .step-head`);
    const line = card.querySelector("text.cs");
    const placed = step && line && /^step \\d/.test(line.textContent);
    return placed ? [[line.textContent, step.textContent.replace(/\\s+/g, " ")]] : [];
  });
  // A card says the list's locator, the round's length left out where it is too narrow ("step 2b of 3 (round 149)"
  // for "step 2b of 3 (round 149 of 150)"; friction28a 3, 60a 4, 61a 6: one notation, the step's total kept).
  const bare = (words) => words.replace(/ of \\d+(?=\\)| \\(|$)/g, "");
  const differs = ([card, list]) => !bare(list).includes(bare(card));
  return [pairs.length, pairs.filter(differs)];
}"""


# The drawing's untidiness (tenth review item 5), as a list of what is wrong: tags overlapping each other or a
# card they do not belong to, tags of one card not in one column of one width, cards of different heights, and
# cards whose text does not sit centred (a blank band under a one-line title).
UNTIDY = """() => {
  const svg = document.querySelector("svg.run-graph");
  const box = (el) => el.getBBox();
  const meets = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  const cards = [...svg.querySelectorAll("a.graph-node")].map((node) => [node, box(node.querySelector("rect.card"))]);
  const owner = (tag) => tag.closest("a.graph-node") || tag.closest("a.checkpoint-mark").previousElementSibling;
  const tags = [...svg.querySelectorAll("rect.tag")].map((tag) => [tag, owner(tag), box(tag)]);
  const wrong = [];
  tags.forEach(([tag, node, at], i) => {
    const word = tag.nextElementSibling.textContent;
    tags.slice(i + 1).filter(([, , other]) => meets(at, other)).forEach(([other]) =>
      wrong.push(`tag ${word} overlaps tag ${other.nextElementSibling.textContent}`));
    cards.filter(([card, size]) => card !== node && meets(at, size)).forEach(([card]) =>
      wrong.push(`tag ${word} overlaps the card ${card.dataset.nodeId}`));
  });
  for (const [node] of cards) {
    const own = tags.filter(([, of]) => of === node).map(([, , at]) => `${at.x}/${at.width}`);
    if (new Set(own).size > 1) wrong.push(`the tags of ${node.dataset.nodeId} are not one column: ${own}`);
  }
  if (new Set(cards.map(([, size]) => size.height)).size > 1) wrong.push("cards of several heights");
  for (const [node] of cards) {  // a redone step's badge (friction22b A5) clear of its card's words
    const badge = node.querySelector("g.again-badge");
    if (!badge) continue;
    [...node.querySelectorAll("text.ct, text.cv, text.cs")].filter((t) => t.textContent && meets(box(t), box(badge)))
      .forEach((t) => wrong.push(`the badge of ${node.dataset.nodeId} covers ${t.textContent}`));
  }
  for (const [node, size] of cards) {
    const texts = [...node.querySelectorAll("text.ct, text.cv, text.cs")].filter((t) => t.textContent).map(box);
    const above = Math.min(...texts.map((t) => t.y)) - size.y;
    const below = size.y + size.height - Math.max(...texts.map((t) => t.y + t.height));
    if (Math.abs(above - below) > 6) wrong.push(`the text of ${node.dataset.nodeId} is off centre: ${above}/${below}`);
  }
  return wrong;
}"""


# Each card swatch of the one-line key as drawn: its fill, outline and dashes.
KEY_SWATCH_LOOKS = """() => [...document.querySelectorAll('.state-legend li')].flatMap((li) => {
    const rect = li.querySelector('svg.swatch rect.card');
    if (!rect) return [];
    const s = getComputedStyle(rect);
    return [[li.textContent.trim(), [s.fill, s.stroke, s.strokeDasharray, s.strokeWidth].join(' ')]];
})"""


def assert_key_swatches_differ(page) -> None:
    """No two entries of the graph's one-line key are drawn alike (friction23a A4, 23b 3: "Done" and "answered")."""
    looks = page.evaluate(KEY_SWATCH_LOOKS)
    alike = [(a, b) for i, (a, look) in enumerate(looks) for b, other in looks[i + 1 :] if look == other]
    assert looks and alike == [], looks


def test_a_looped_forked_run_reads_without_hovering(page, console_log, site, service_catalog, settings):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{site}/runs/{looped.run_id}/")
    graph = page.locator("svg.run-graph")
    # The key: the run's finished branch is said by the "Done" pill on its last card; its green card is an answered
    # step's, keyed once as "answered".
    expect(page.locator(".state-legend li")).to_have_text(["answered", "current", "checkpoint", "↺ redone"])
    expect(graph.locator(".tag-text.state-done", has_text="Done")).to_have_count(1)
    assert_key_swatches_differ(page)
    # Titles on the cards themselves, not only in tooltips.
    expect(graph.locator("text.ct", has_text="Scope the change")).to_be_visible()
    expect(graph.locator("text.ct", has_text="Verify slice 2").first).to_be_visible()
    # Each card says its step's place in the outline as the step list does (the loop's second round
    # included); the checkpoint is no card (it read as its step twice, ninth review item 5) but a mark beside
    # its step's card, a link to its own node's page (it can be resumed from).
    # included) in the one short form of the list's headings (friction12 4); the whole place, the loop named, is
    # the heading's tooltip.
    # One locator, the headline's and the heading's (friction22a A1): round 2's "Verify slice 2" and its record
    # each say the list's words whole, lettered apart (friction61a 6, 61b 1: both read "step 2 of 3 (round 1 of
    # 3)"; friction60a 4: "loop round 2, part 1 of 2" needed the glossary), and no card says the outline's "2.2",
    # read as a version number (friction24a 10).
    verify = graph.locator("a.graph-node", has=page.locator("text.ct", has_text="Verify slice 2"))
    record = graph.locator("a.graph-node", has=page.locator("text.ct", has_text=re.compile("^Record what")))
    expect(verify.locator("text.cs", has_text=re.compile(r"^step 2a of 3 \(round 2 of 3\)$"))).to_have_count(2)
    expect(record.locator("text.cs", has_text=re.compile(r"^step 2b of 3 \(round 2 of 3\)$"))).to_have_count(2)
    expect(graph.locator("text.cs", has_text=re.compile(r"^step 2 of 3"))).to_have_count(0)
    expect(graph.locator("text.cs", has_text=re.compile(r"part|loop"))).to_have_count(0)
    expect(graph.locator("text.cs", has_text=re.compile(r"\d\.\d"))).to_have_count(0)
    expect(graph.locator("tspan.loop")).to_have_count(0)
    listed = page.locator(".steps h3", has_text=re.compile(r"^Verify slice 2 · step 2a of 3 \(round 2 of 3\)$")).first
    expect(listed).to_be_visible()
    expect(listed).to_have_attribute(
        "title",
        re.compile(r"^step 2a of 3 \(round 2 of 3\) in “Verify each slice” · step verify in the workflow"),
    )
    # One node, one place: each card's step line is its step-list heading's place, the loop unnamed.
    compared, differ = page.evaluate(CARD_AND_LIST_DIFFER)
    assert compared >= 3 and differ == []
    expect(graph.locator("rect.card.checkpoint")).to_have_count(0)
    mark = graph.locator("a.checkpoint-mark")
    expect(mark).to_have_count(1)
    expect(mark).to_have_attribute("href", re.compile(r"^/nodes/\d+/$"))
    # Friction14: a checkpoint is a diamond, not a pill like "↺ redone": a path, no tag, no word on it.
    expect(mark.locator("path.checkpoint-flag")).to_have_count(1)
    expect(mark.locator("rect, text")).to_have_count(0)
    # A mark, not a state (friction13 item 8): the page's ink, no state's hue.
    ink = page.evaluate("() => getComputedStyle(document.body).color")
    assert mark.locator("path").evaluate("e => getComputedStyle(e).fill") == ink
    # Inside the card of the step it was saved during ("Record what the slice showed", round 1), in its top right
    # corner, clear of its edges and of its title (friction62a 9, 62b 4: under the card, on the line to the next
    # step, it read as "after step 7"; on its edge as a rendering glitch, friction61b 8).
    host = graph.locator("a.graph-node", has=page.locator("text.ct", has_text="Record what the")).first
    expect(host.locator("text.ct")).to_have_text(["Record what the", "slice showed"])
    card, flag = host.locator("rect.card").bounding_box(), mark.bounding_box()
    assert card and flag
    assert card["x"] + card["width"] / 2 < flag["x"] and flag["x"] + flag["width"] < card["x"] + card["width"] - 2
    assert card["y"] + 2 < flag["y"] and flag["y"] + flag["height"] < card["y"] + card["height"] / 2, (card, flag)
    title = host.locator("text.ct").first.bounding_box()
    assert title and title["x"] + title["width"] < flag["x"], (title, flag)
    # Every step line fits inside its card.
    assert page.evaluate(STEP_LINES_OVERFLOW) == []
    # Branches labelled as everywhere else; the newest node is also the one shown: its state and one marker of
    # where, not "latest" too.
    names = graph.locator("text.tag-text.lane:not(.viewing, .shared)")
    assert sorted(names.all_text_contents()) == ["Branch 1", "Branch 2"]
    # Friction18a 13, friction18b 3: each name where its branch splits off, never beside the shared first steps,
    # and the branch viewed (here the newest, branch 2) says so under its name.
    first = graph.locator("a.graph-node", has=page.locator("text.tag-text.lane", has_text="Branch 1"))
    expect(first.locator("text.ct")).not_to_have_text(["Scope the change", "into slices"])
    expect(graph.locator("text.tag-text.lane.viewing")).to_have_text(["viewing"])
    viewed = graph.locator("a.graph-node", has=page.locator("text.tag-text.lane.viewing"))
    expect(viewed.locator("text.tag-text.lane:not(.viewing)")).to_have_text("Branch 2")
    # Friction13 item 6: a branch's name heads its column, bold words first by its first card, not a pill; a
    # branch forked mid-run grows from its fork. Friction14: the graph starts from "Start" all the same, as every
    # graph does, one line down from it into the first card.
    assert graph.locator("rect.tag.lane").first.evaluate("e => getComputedStyle(e).stroke") == "none"
    assert (
        int(graph.locator("text.tag-text.lane:not(.shared)").first.evaluate("e => getComputedStyle(e).fontWeight"))
        >= 700
    )
    # Friction22b 15: the shared first steps are headed too, faint, beside the first card: not unlabelled.
    shared = graph.locator("a.graph-node", has=page.locator("text.tag-text.lane.shared"))
    expect(shared.locator("text.tag-text.lane.shared")).to_have_text("Branches 1-2")
    expect(shared.locator("text.ct")).to_have_text(["Scope the change", "into slices"])
    assert int(shared.locator("text.tag-text").evaluate("e => getComputedStyle(e).fontWeight")) < 700
    expect(graph.locator("g.start-root text")).to_have_text("Start")
    expect(graph.locator("path.start-edge")).to_have_count(1)
    newest = graph.locator("a.graph-node:has(rect.card.newest)")
    expect(newest).to_have_count(1)
    expect(newest).to_have_attribute("aria-current", "true")
    # Its one tag: its branch's state (the blue fill says it is the branch viewed, friction14).
    expect(newest.locator("text.tag-text")).to_have_text(["Working"])
    # Ninth review item 3: the step branch 2 answered again (Verify slice 2) is branch 2's first card, named
    # so, beside branch 1's (not above the fork as if shared), and opens the same page the step list links.
    # Friction22b A5: its mark is a "↺" badge inside the card's box, at its top right, named for a screen reader;
    # no pill beside it (the pills are the branch states').
    again = graph.locator('a.graph-node[data-lane="1"]', has=page.locator("g.again-badge"))
    expect(again.locator("text.ct")).to_have_text(["Verify slice 2"])
    expect(again.locator("text.tag-text")).to_have_text(["Branch 2", "viewing"])
    expect(again.locator("g.again-badge")).to_have_attribute("aria-label", "redone after branching")
    box, badge = again.locator("rect.card").bounding_box(), again.locator("g.again-badge").bounding_box()
    assert box and badge
    assert box["x"] + box["width"] / 2 < badge["x"] and badge["x"] + badge["width"] <= box["x"] + box["width"]
    assert box["y"] <= badge["y"] and badge["y"] + badge["height"] <= box["y"] + box["height"] / 2
    # A handful of tags on the whole graph, one at most per card: the two branches' states.
    expect(graph.locator("rect.tag:not(.lane)")).to_have_count(2)
    per_card = graph.locator("a.graph-node").evaluate_all(
        "cards => cards.map((card) => card.querySelectorAll('rect.tag:not(.lane)').length)"
    )
    assert max(per_card) == 1, per_card
    rewound_to = (
        page.locator(".steps h3", has_text="Verify slice 2")
        .last.locator("xpath=..")
        .get_by_role("link", name="the step's page")
    )
    assert again.get_attribute("href") == rewound_to.get_attribute("href")
    # Tenth review item 5: every tag in one column right of its card, none over another or over a card, every
    # card one height with its text centred; the end card says what "Complete" means.
    assert page.evaluate(UNTIDY) == []
    expect(graph.locator("a.graph-node:has(rect.card.complete) text.cs")).to_have_text("all steps done")  # none skipped
    screenshot(page, "graph-looped-forked", full_page=False)

    # Showing the first branch: its last node is shown, the fork stays the newest.
    first_leaf = graph.locator('a.graph-node[data-lane="0"][href*="?tip="]')
    first_leaf.click()
    expect(page).to_have_url(re.compile(r"\?tip=\d+$"))
    shown = page.locator('svg.run-graph a.graph-node[aria-current="true"]')
    expect(shown).to_have_attribute("data-lane", "0")
    expect(shown.locator("text.tag-text")).to_have_text(["Done"])
    expect(page.locator("svg.run-graph rect.card.newest")).to_have_count(1)
    expect(page.locator("svg.run-graph a.graph-node:has(rect.card.newest) text.tag-text")).to_have_text(["Working"])
    screenshot(page, "graph-looped-forked-first-branch", full_page=False)

    # Links name nodes by a short id; the full one is in the URL and the tooltip.
    page.goto(f"{site}/sessions/{looped.session_id}/#timeline")  # folded by default; a link to it opens it
    ticks = page.locator(".timeline text.tl-tick")
    # Clock times on the reader's clock (a run walked within a second: one, its start); how long its steps
    # took is the row's to say, as a person counts it, never "steps took 36 ms" (friction16b 3).
    expect(ticks.first).to_have_text(re.compile(r"^\d{1,2}:\d\d(:\d\d)?( [AP]M)?$"))
    expect(page.locator("#timeline > summary")).to_contain_text(re.compile(r"started .+\s·\slast step "))
    expect(page.locator("#timeline > summary")).not_to_contain_text("took")
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
    # The straight stretch of branch 1 is one dashed line saying which rounds of the loop (the step the
    # cards on either side name) it stands for; the rest, the fork and both ends, are cards. Nothing scrolls
    # sideways: the drawing is as wide as its box at most.
    expect(page.locator("svg.run-graph .gap-text").first).to_have_text(re.compile(r"^⋯ rounds \d+-\d+ of 150$"))
    expect(page.locator("svg.run-graph .gap title").first).to_contain_text(re.compile(r"\(step 2 of 3 \(rounds "))
    drawn = page.locator("svg.run-graph a.graph-node").count()
    assert 10 < drawn < nodes / 4
    widths = page.locator(".graph-fit").evaluate(
        "b => [b.querySelector('svg').getBoundingClientRect().width, b.clientWidth, b.scrollWidth]"
    )
    assert widths[0] <= widths[1] and widths[2] <= widths[1]
    # Every card's step line stays inside its card, a long loop's too (its trailing parts dropped: "step 2 of 3").
    crossing = page.locator("svg.run-graph a.graph-node").evaluate_all(
        """cards => cards.filter((card) => {
          const box = card.querySelector('rect.card').getBoundingClientRect();
          const line = card.querySelector('text.cs');
          return line && line.getBoundingClientRect().right > box.right - 2;
        }).map((card) => card.querySelector('text.cs').textContent)"""
    )
    assert crossing == []
    expect(page.locator("svg.run-graph text.cs", has_text=re.compile(r"/")).first).not_to_be_attached()
    # Every card keeps its step's total (friction61a 6, 61b 1: "step 2 (round 149 of 150)" beside "step 3 of 3"),
    # and, two branches leaving room, its round's too: the cards widen to say the list's words whole (friction62a,
    # 62b 12: "(round 149)" on a card, "(round 150 of 150)" in the list, read as two counts).
    lines = page.locator("svg.run-graph text.cs").all_text_contents()
    assert [line for line in lines if re.match(r"^step \d+[a-z]? \(", line)] == []
    assert any(re.fullmatch(r"step 2[ab] of 3 \(round \d{3} of 150\)", line) for line in lines), lines
    assert not any(re.fullmatch(r"step 2[ab] of 3 \(round \d+\)", line) for line in lines), lines
    # The cards and the steps list (its last 50 steps) say the same numbers for the nodes both show.
    compared, differ = page.evaluate(CARD_AND_LIST_DIFFER)
    assert compared >= 3 and differ == []
    # Showing the first branch: its end (step 300 or so) is a card, with its state in words.
    leaf = page.locator('svg.run-graph a.graph-node[data-lane="0"][href*="?tip="]').get_attribute("href")
    page.goto(site + str(leaf))
    shown = page.locator('svg.run-graph a.graph-node[aria-current="true"]')
    expect(shown.locator("text.ct")).to_have_text("Complete")
    expect(shown.locator("text.tag-text.state")).to_have_text("Done")
    # One fold for the earlier steps, loaded or not, and its link counts as the card's head does (friction60a 9:
    # a "253 earlier steps not shown. Show all 303" banner over "Earlier steps (47)", under "302 steps answered").
    steps = page.locator("section[aria-labelledby=steps-title]")
    head = steps.locator(".card-head > .muted").inner_text().split(" · ")[0]
    expect(steps.locator(":scope > .notice")).to_have_count(0)
    expect(steps.locator("details.earlier-steps")).to_have_count(1)
    answered = int(head.split(" ")[0])
    expect(steps.locator("#earlier-steps > summary")).to_have_text(f"Earlier steps ({answered - 3})")
    steps.locator("#earlier-steps > summary").click()
    expect(steps.locator("#steps-not-loaded a")).to_have_text(f"Show all {head}")
    steps.locator("#steps-not-loaded a").click()
    expect(steps.locator("#earlier-steps li.step")).to_have_count(answered - 3)
    expect(steps.locator("#steps-not-loaded")).to_have_count(0)
    page.goto(site + str(leaf))
    shown.scroll_into_view_if_needed()
    expect(shown).to_be_in_viewport()
    screenshot(page, "graph-300-first-branch", full_page=False)
    console_log.assert_clean()


# Every text of the branch graph the window shows (the drawing, its legends, the phone's list) that reads
# smaller than 12 px: an SVG text at its font size times the drawing's scale in its box.
SMALL_TEXT = """() => [...document.querySelectorAll(
    "svg.run-graph text, .graph-head *, .state-legend *, .graph-list *, .branch-tabs *")]
  .filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .filter((el) => { const box = el.getBoundingClientRect(); return box.width > 1 && box.height > 1; })
  .filter((el) => !el.closest(".visually-hidden"))
  .map((el) => {
    const scale = el instanceof SVGElement ? el.getScreenCTM().a : 1;
    return [el.textContent.trim(), parseFloat(getComputedStyle(el).fontSize) * scale];
  })
  .filter(([, size]) => size < 12)
  .map(([text, size]) => `${text} (${size.toFixed(1)}px)`)"""


# Every step name of the phone's list of the graph, as the window shows it: hidden, or under 12 px.
# Rows of the phone's branch list whose name does not sit under their place, starting where it starts.
TWO_LINES = """rows => rows.filter((row) => {
  const place = row.querySelector('.gl-place').getBoundingClientRect();
  const title = row.querySelector('.gl-title').getBoundingClientRect();
  return title.top < place.bottom - 1 || Math.abs(title.left - place.left) > 1;
}).map((row) => row.textContent.trim())"""
LIST_PROBLEMS = """() => [...document.querySelectorAll(".graph-list :is(.gl-title, .gl-head, .gl-fork)")]
  .filter((el) => !el.closest("details:not([open])") || el.matches("summary"))
  .map((el) => [el.textContent.trim(), el.getBoundingClientRect(), parseFloat(getComputedStyle(el).fontSize)])
  .filter(([, box, size]) => box.width < 1 || box.height < 1 || size < 12)
  .map(([text, , size]) => `${text} (${size}px)`)"""


def test_a_forked_graph_is_a_drawing_on_a_desktop_and_a_list_of_branches_on_a_phone(
    sized_page, console_log, site, viewport
):
    forked = two_runs_one_forked_twice()
    sized_page.goto(f"{site}/runs/{forked.review_run}/")
    drawing, listed = sized_page.locator(".graph-frame"), sized_page.locator(".graph-list")
    # One name at both sizes (friction62b 8: "Branches" on a phone, "Branch graph" on a desktop), true of the list
    # too (friction60b 9: "Branch graph" over a list).
    heading = sized_page.get_by_role("heading", level=3, name=re.compile("^Branch"))
    expect(heading).to_have_text("Branches", use_inner_text=True)
    expect(heading).to_have_accessible_name("Branches")
    if viewport.name == "phone":
        # The drawing would shrink its text to 8 px: a section per branch instead, each step a row.
        expect(drawing).to_be_hidden()
        expect(listed.locator(".gl-branch")).to_have_count(3)
        expect(listed.locator(".gl-head strong")).to_have_text(["Branch 1", "Branch 2", "Branch 3"])
        # The branch viewed comes first; the branches left behind fold to their heading's line (friction25b 11).
        expect(listed.locator("details.gl-fold[open] > summary strong")).to_have_text(["Branch 1"])
        # Folded: its heading and, under it, where it stands (friction61b 10) and where it split off, no step rows.
        assert listed.locator(".gl-branch").nth(1).bounding_box()["height"] < 130
        expect(listed.locator(".gl-branch").nth(1).locator(".gl-stands")).to_contain_text(" · step ")
        # Folded, each still says where it split off (friction62b 8: "no hint where they split off").
        expect(listed.locator("details.gl-fold:not([open]) .gl-from")).to_have_text(
            [
                "Redoes Review api · step 4 of 8 (area 1 of 2), from branch 1",
                "Redoes Record the Changed Files · step 2 of 8, from branch 1",
            ]
        )
        for fold in listed.locator("details.gl-fold:not([open]) .gl-from").all():
            expect(fold).to_be_visible()
        listed.locator("details.gl-fold").evaluate_all("folds => folds.forEach((f) => { f.open = true; })")
        expect(listed.locator(".gl-head .badge")).to_have_text(["Agent's move · Working", "Left behind", "Left behind"])
        expect(listed.locator(".gl-fork")).to_have_text(
            [
                "Redoes Review api · step 4 of 8 (area 1 of 2), from branch 1",
                "Redoes Record the Changed Files · step 2 of 8, from branch 1",
            ]
        )
        # Each row says its step's place as the step list and the drawing's card say it.
        # Branch 2's rows: the step it answered again after the rewind (its own, ninth review item 3), then its last;
        # never led by the step passed over on the way into it (friction22a B13: read as branch 2's own skip).
        expect(listed.locator(".gl-branch").nth(1).locator(".gl-words")).to_have_text(
            ["Step 4 of 8 (area 1 of 2)", "Step 4 of 8 (area 2 of 2)"]
        )
        # Friction16b 6: a step passed over between two of a branch's steps stands where it would, a row of its own
        # with a dashed dot (branch 3: after the step it redoes).
        expect(listed.locator(".gl-branch").nth(2).locator(".gl-words")).to_have_text(
            ["Step 2 of 8", "Step 3 skipped", "Step 4 of 8 (area 1 of 2)"]
        )
        skipped_row = listed.locator(".gl-branch").nth(2).locator(".gl-step.skipped")
        expect(skipped_row.locator(".gl-dot.dot-skipped")).to_have_count(1)
        expect(skipped_row.locator(".gl-title")).to_have_text("Trace the Impact Beyond the Diff")
        # Each step's mark is the drawing's card in small, not a round dot or ring that reads as a radio button;
        # dashed on a branch no agent works on (friction25b 4), and the "?" keys those fills on a phone too.
        marks = listed.locator(".gl-step:not(.skipped) .gl-dot")
        shapes = marks.evaluate_all(
            "ms => ms.map(m => [getComputedStyle(m).borderTopLeftRadius, getComputedStyle(m).borderTopStyle,"
            " m.closest('.gl-branch').classList.contains('aside'), m.getBoundingClientRect().width])"
        )
        assert shapes and all(
            radius == "3px" and style == ("dashed" if aside else "solid") and width > 12
            for radius, style, aside, width in shapes
        ), shapes
        assert {aside for *_, aside, _ in shapes} == {True, False}
        sized_page.locator("#graph-help > summary").click()
        key = sized_page.locator("#graph-help li.listed")
        expect(key).to_have_text(
            [
                "green fill: answered",
                "blue fill: current, the step the agent works on",
                "grey fill: not answered",
                "grey dashed border: no agent works on that branch any more",
                # The "↺ redone" its rows say, its symbol keyed (friction62b 8).
                re.compile(r"↺\s+the branch's first step, redone after branching"),
                "“step N skipped”: a step the workflow's condition skipped on that branch",
            ]
        )
        for swatch in key.locator("svg.swatch").all():
            expect(swatch).to_be_visible()
        sized_page.locator("#graph-help > summary").click()
        redone = listed.locator(".gl-branch").nth(1).locator(".gl-notes").first
        expect(redone).to_have_text("↺ redone")
        assert (
            redone.evaluate("e => getComputedStyle(e).borderTopStyle") == "none"
        )  # words, not a pill (friction22b A5)
        # The shown branch's steps are the Steps card's, right under the graph (friction12 item 2): its box counts
        # them and links there, and lists one row only: where it stands now, its pending step (friction17a 15); the
        # other branches' steps are listed nowhere else.
        shown = listed.locator(".gl-branch.shown")
        expect(shown.locator(".gl-listed")).to_have_text("7 steps answered · listed below")
        expect(shown.locator(".gl-listed a")).to_have_attribute("href", "#steps-title")
        expect(shown.locator(".gl-step")).to_have_count(1)
        expect(shown.locator(".gl-step.tip .gl-words")).to_have_text("Step 8 of 8")
        expect(shown.locator(".gl-step.tip .gl-title")).to_have_text("Summarize the Review")
        expect(sized_page.locator("ol.steps > li.step")).to_have_count(7)  # the 7 it counts, listed below
        expect(listed.locator(".gl-title")).to_have_count(
            1 + 2 + 3
        )  # branch 2: two steps; branch 3: two and one skipped
        # "you are viewing" once in the shown branch's box: in its heading.
        assert shown.inner_text().count("you are viewing") == 1
        assert sized_page.evaluate(LIST_PROBLEMS) == []
        # The link takes a tap to the list of the steps.
        shown.locator(".gl-listed a").click()
        expect(sized_page.locator("#steps-title")).to_be_in_viewport()
        # Showing branch 2, branch 1's steps are rows of its box: each the same two lines (friction8 9), its place
        # with its marks, then its name under it, flush.
        listed.get_by_role("link", name="Branch 2").click()
        first = listed.locator(".gl-branch[aria-label='Branch 1']")
        # Branch 2 viewed is listed first, branch 1 still at work open under it, branch 3 left behind folded.
        expect(listed.locator(".gl-head strong")).to_have_text(["Branch 2", "Branch 1", "Branch 3"])
        expect(listed.locator("details.gl-fold[open] > summary strong")).to_have_text(["Branch 2", "Branch 1"])
        # It counts the steps it shares with branch 1 apart from its own: the boxes add up (friction15).
        expect(listed.locator(".gl-branch.shown .gl-listed")).to_have_text(
            re.compile(r"^3 steps answered: \d shared with branch 1, \d on this branch · listed below$")
        )
        expect(first.locator(".gl-words")).to_have_count(9)  # one "Step 7 of 8" row, and "Step 3 skipped"
        assert listed.locator(".gl-step:has(.gl-words)").evaluate_all(TWO_LINES) == []
        # The checkpoint: a chip on its step's row, linking its own page (ninth review item 5), not a second row.
        checkpoint = listed.locator(".gl-place .gl-notes", has_text="checkpoint")
        expect(checkpoint).to_have_count(1)
        expect(checkpoint).to_have_attribute("href", re.compile(r"^/nodes/\d+/$"))
        # A mark, not a state (friction13 item 8), in the page's ink; the drawing's diamond before its word
        # (friction14), no pill like "↺ redone".
        expect(checkpoint.locator(".cp-glyph")).to_have_text("◆")
        assert checkpoint.evaluate("e => getComputedStyle(e).borderTopStyle") == "none"
        ink = sized_page.evaluate("() => getComputedStyle(document.body).color")
        assert checkpoint.evaluate("e => getComputedStyle(e).color") == ink
        assert sized_page.evaluate(LIST_PROBLEMS) == []
        # Each row is coloured by its state; the branch's last step carries the branch's state.
        expect(first.locator(".gl-step.tip .gl-notes")).to_have_count(0)  # no "latest": the drawing has none
        expect(first.locator(".gl-step.tip .gl-dot")).to_have_class(re.compile(r"\bdot-running\b"))
        expect(first.locator(".gl-step:not(.tip) .gl-dot.dot-done")).to_have_count(
            first.locator(".gl-step:not(.skipped)").count() - 1
        )
        # its outline, as the drawing's card (its fill the same colour, soft)
        colour = first.locator(".gl-step.tip .gl-dot").evaluate("dot => getComputedStyle(dot).borderTopColor")
        badge = first.locator(".gl-head .badge").evaluate("badge => getComputedStyle(badge).color")
        assert colour == badge
        sized_page.go_back()
    else:
        expect(drawing).to_be_visible()
        expect(listed).to_be_hidden()
        # Friction r59 1: one rule for every name beside the drawing: a name wherever the branches a card belongs
        # to change. "Branches 1-3" by the step all three share, "Branches 1-2" by the one branches 1 and 2 share
        # (unnamed, "Branch 1" half-way down read as branch 1 beginning there), and each "Branch N" beside that
        # branch's first card of its own, in its lane, level with the card's top, right of it.
        svg = drawing.locator("svg.run-graph")
        named = svg.locator("a.graph-node:has(text.tag-text.lane:not(.viewing))").evaluate_all(
            """cards => cards.map((card) => {
              const box = card.querySelector("rect.card").getBoundingClientRect();
              const tag = card.querySelector("text.tag-text.lane:not(.viewing)");
              const at = tag.getBoundingClientRect();
              const title = [...card.querySelectorAll("text.ct")].map((t) => t.textContent).join(" ");
              const beside = at.left > box.right && at.top >= box.top - 2 && at.bottom <= box.bottom;
              return [tag.textContent, Number(card.dataset.lane), title, beside];
            })"""
        )
        assert sorted(named) == [
            ["Branch 1", 0, "Review api", True],
            ["Branch 2", 1, "Review api", True],
            ["Branch 3", 2, "Record the Changed Files", True],
            ["Branches 1-2", 0, "Record the Changed Files", True],
            ["Branches 1-3", 0, "Triage the Change", True],
        ], named
        # Each lane's first card is named: no branch's own cards begin unnamed, nor its shared ones.
        firsts = svg.locator("a.graph-node").evaluate_all(
            """cards => Object.values(cards.reduce((top, card) => {
              const y = card.querySelector("rect.card").getBoundingClientRect().top;
              if (!(card.dataset.lane in top) || y < top[card.dataset.lane][0]) top[card.dataset.lane] = [y, card];
              return top;
            }, {})).map(([, card]) => !!card.querySelector("text.tag-text.lane"))"""
        )
        assert firsts == [True, True, True]
        # Friction16b 6: the step passed over between step 2 and step 4 is drawn, a dashed placeholder on the line
        # between their cards (on each branch that passed it), its why in its tooltip.
        skipped = drawing.locator("g.skipped-step")
        # On every line that passes over it, one rule for every branch: branches 1 and 2 after "Record the Changed
        # Files", branch 3 from its own redone card (friction63b 9: drawn once where two branches split, the one
        # turning out read as not skipping it).
        expect(skipped).to_have_count(3)
        expect(skipped.first.locator("text")).to_have_text("step 3 skipped")
        expect(skipped.first.locator("title")).to_contain_text("step 3 of 8, skipped: it runs only if")
        pill = skipped.first.locator("rect").bounding_box()
        cards = [c.bounding_box() for c in drawing.locator("rect.card").all()]
        assert pill is not None and all(
            c is None
            or pill["y"] + pill["height"] <= c["y"] + 0.5
            or pill["y"] >= c["y"] + c["height"] - 0.5
            or pill["x"] + pill["width"] <= c["x"]
            or pill["x"] >= c["x"] + c["width"]
            for c in cards
        ), "the placeholder sits between cards, over none"
        # Friction19a 4: a branch's line leaves the card it branched after, never a placeholder on another branch's
        # line (it read as "split at the skipped step"): no line turning into another lane runs through a
        # placeholder but its own, on the straight stretch into its card.
        pills = [
            [float(r.get_attribute(a) or 0) for a in ("x", "y", "width", "height")]
            for r in drawing.locator("rect.skipped-pill").all()
        ]
        turns = 0
        for d in drawing.locator("path.edge").evaluate_all("paths => paths.map((p) => p.getAttribute('d'))"):
            bent = re.fullmatch(r"M(-?\d+) (-?\d+)V(-?\d+)H(-?\d+)V(-?\d+)", d)
            if bent is None:
                continue
            x1, _, turn, x2, _ = (float(v) for v in bent.groups())
            turns += 1
            for x, y, width, height in pills:
                own = abs(x + width / 2 - x2) < 1
                across = y <= turn <= y + height and min(x1, x2) < x + width and max(x1, x2) > x
                assert own or not across, (d, (x, y, width, height))
        assert turns >= 2  # branches 2 and 3 each turn out of branch 1's lane
    # Friction12 item 15: the key is one line of named swatches beside the drawing on a desktop (tenth review:
    # in sight), folded behind the "?" on a phone, where the list names each branch's state in words.
    key = sized_page.locator(".state-legend")
    # Friction22a B8, friction22b A5: swatches and words, no pills (they read as filters): each branch state by its
    # word after a swatch of its card, so grey (left behind) and blue (the agent's step) are keyed; then the marks
    # drawn that no word on a card explains: the fills, the redone step's "↺" badge, the checkpoint's diamond.
    # Friction24a 5, 24b 11: one rule, each meaning once: the border dashed where no agent works on the branch any
    # more, the fill the step's state; every name lower-case (friction24a 18).
    expect(key.locator("li")).to_have_text(
        [
            "answered",
            "current",
            "not answered",
            "no agent works on that branch any more",
            "checkpoint",
            "↺ redone",
            "skipped by the workflow's condition",  # "step 3 skipped" said once (friction r60)
        ]
    )
    expect(key.locator(".badge, .state-key, .tag-key")).to_have_count(0)
    expect(key.locator("li svg.swatch")).to_have_count(7)
    expect(key.locator("li", has_text="redone").locator("svg.swatch circle.again-dot")).to_have_count(1)
    expect(key.locator("li", has_text="checkpoint").locator("svg.swatch path.checkpoint-flag")).to_have_count(1)
    # Friction15a 6: one meaning of "left behind", true of every branch left behind (here branch 1 is the one
    # the agent works on, and 2 and 3, which it redid, are set aside).
    expect(key.locator("li", has_text="no agent works")).to_have_attribute(
        "title", "grey dashed border: no agent works on that branch any more"
    )
    expect(key).not_to_contain_text("Left behind")  # the dashed border says it, once
    if viewport.name == "desktop":
        expect(key).to_be_visible()
        tops = key.locator("li").evaluate_all("items => items.map((li) => Math.round(li.getBoundingClientRect().top))")
        assert max(tops) - min(tops) < 8, tops  # one line
        assert_key_swatches_differ(sized_page)
        # Each swatch is drawn with the drawing's own classes: the same fill and outline as its cards'.
        graph = sized_page.locator("svg.run-graph")
        for word, kind, props in (
            ("not answered", "state-left-behind", ("fill", "stroke")),
            ("current", "state-running", ("fill", "stroke")),
            ("answered", "answered", ("fill", "stroke", "strokeDasharray")),
            ("no agent works", "state-left-behind", ("strokeDasharray",)),
        ):
            # Anchored: "answered" is also the end of "not answered".
            swatch = key.locator("li", has_text=re.compile(rf"^\s*{word}")).locator("svg.swatch rect.card")
            card = graph.locator(f"rect.card.{kind}").first
            for prop in props:
                js = f"e => getComputedStyle(e).{prop}"
                assert swatch.evaluate(js) == card.evaluate(js), (word, prop)
        grey, green = css_colour(sized_page, "--surface-2"), css_colour(sized_page, "--ok-soft")
        blue = css_colour(sized_page, "--info-soft")
        fill = "c => getComputedStyle(c).fill"
        assert key.locator("li", has_text="not answered").locator("rect").evaluate(fill) == grey
        assert key.locator("li", has_text="current").locator("rect").evaluate(fill) == blue
        assert graph.locator("rect.card.answered").first.evaluate("c => getComputedStyle(c).fill") == green
        aside = graph.locator("rect.card.aside").first
        assert aside.evaluate("c => getComputedStyle(c).fill") == green
        assert aside.evaluate("c => getComputedStyle(c).strokeDasharray") not in ("none", "")
        # The branch viewed has no heavier outline of its own (friction22a B8: a dashed card with a dark outline
        # read as a third mark): its cards are drawn as any card of their state; its line and "viewing" say it.
        viewed = graph.locator("rect.card.on-branch.answered").first
        # (compared with the key's "answered" swatch: the other branches' own cards here are aside, grey-edged)
        other = key.locator("li", has_text=re.compile(r"^\s*answered")).locator("svg.swatch rect.card")
        for prop in ("stroke", "strokeWidth"):
            js = f"c => getComputedStyle(c).{prop}"
            assert viewed.evaluate(js) == other.evaluate(js), prop
    else:
        expect(key).to_be_hidden()
    # Every mark once with its meaning, folded behind a "?" beside the heading: the branch states first.
    help_box = sized_page.locator(".graph-head details.graph-help")
    expect(help_box).to_have_count(1)
    expect(help_box.locator(".legend")).to_be_hidden()
    help_box.locator("summary").click()
    expect(help_box.locator("li strong")).to_have_text(["Left behind", "Working"])
    # Each meaning once: the fill-and-border rule says what "Left behind" and "Working" mean, on the drawing and on
    # the phone's list alike (friction25b 4: the list's marks are the cards in small).
    said = help_box.locator("li:visible").all_inner_texts()
    assert sum("no agent works" in line for line in said) == 1, said
    expect(
        help_box.locator("li", has_text="grey dashed border: no agent works on that branch any more")
    ).to_be_visible()
    assert not any(help_box.locator("li strong").nth(i).is_visible() for i in range(2))
    # Friction15a 7: one legend in sight at a time: the explained one replaces the one-line key while open.
    expect(key).to_be_hidden()
    expect(sized_page.locator(".legend:visible")).to_have_count(1)
    expect(help_box.locator(".badge, .state-key, .tag-key")).to_have_count(0)
    drawing_marks = help_box.locator("li").filter(
        has_text=re.compile("redone after branching|a checkpoint the agent saved|Branch N|dark line, “viewing”")
    )
    expect(drawing_marks).to_have_count(4)
    if viewport.name == "desktop":
        for mark in drawing_marks.all():
            expect(mark).to_be_visible()
    else:
        # Friction r59 2: the phone's key said six marks of the drawing, most of which its list does not draw (the
        # lanes' names, the dark line). Every entry it shows names a mark its list draws, in sight once each branch
        # is opened: "↺ redone" too where its rows say it (friction62b 8: the symbols were not in its key).
        expect(drawing_marks.filter(has_text="redone after branching")).to_be_visible()
        for mark in drawing_marks.filter(has_text=re.compile("a checkpoint the agent saved|Branch N|dark line")).all():
            expect(mark).to_be_hidden()
        folds = listed.locator("details.gl-fold")
        were_open = folds.evaluate_all("folds => folds.map((f) => { const was = f.open; f.open = true; return was; })")
        shown_keys = help_box.locator("li:visible")
        assert shown_keys.evaluate_all("ls => ls.map((l) => l.dataset.key)") == [
            "answered",
            "pending",
            "unreached",
            "aside",
            "again",
            "skipped",
        ]
        marks_of = {
            "again": ".gl-place .gl-notes:text-is('↺ redone')",
            "answered": ".gl-step:not(.skipped) .gl-dot.dot-done",
            "pending": ".gl-step .gl-dot.dot-running",
            "unreached": ".gl-step .gl-dot:is(.dot-left_behind, .dot-canceled)",
            "aside": ".gl-branch.aside .gl-step:not(.skipped) .gl-dot",
            "skipped": ".gl-step.skipped .gl-dot.dot-skipped",
        }
        for entry in shown_keys.all():
            key = entry.get_attribute("data-key") or ""
            if key.startswith("state-"):  # a branch state: the word its heading's pill says
                word = entry.locator("strong").inner_text()
                expect(listed.locator(".gl-head .badge", has_text=word).first).to_be_visible()
                continue
            mark = listed.locator(marks_of[key]).first
            expect(mark).to_be_visible()
            if key == "aside":
                assert mark.evaluate("m => getComputedStyle(m).borderTopStyle") == "dashed"
        folds.evaluate_all("(folds, open) => folds.forEach((f, i) => { f.open = open[i]; })", were_open)
    # No text of the graph reads smaller than 12 px, legend open, at either size.
    assert sized_page.evaluate(SMALL_TEXT) == []
    # Friction12 item 2: no row of branch links under the graph, saying again what the run card's "Other
    # branches of this run" says; that list switches branches at both sizes, without a script.
    expect(sized_page.locator(".run-graph-card nav, .branch-tabs")).to_have_count(0)
    others = sized_page.locator(".branch-callouts a[href*='?tip=']:not(.resume a)")
    expect(others).to_have_text([re.compile(r"^Branch 2 · "), re.compile(r"^Branch 3 · ")])
    for link in others.all():
        if viewport.name == "phone":  # the list of branches below says them there (friction18a 17)
            expect(link).to_be_hidden()
        else:
            expect(link).to_be_visible()
    if viewport.name == "phone":
        # The list's branch headings link to the other branches too.
        expect(listed.locator(".gl-head a")).to_have_text(["Branch 2", "Branch 3"])
    else:
        # Three branches, a checkpoint and a step answered again: the tags stay tidy (tenth review item 5).
        assert sized_page.evaluate(UNTIDY) == []
        # Friction14: one tag per card at most, three on the graph (the three branch states); the checkpoint a
        # diamond, the redone steps badges inside their cards (friction22b A5): different elements, different shapes.
        graph = sized_page.locator("svg.run-graph")
        expect(graph.locator("rect.tag:not(.lane)")).to_have_count(3)
        per_card = graph.locator("a.graph-node").evaluate_all(
            "cards => cards.map((card) => card.querySelectorAll('rect.tag:not(.lane)').length)"
        )
        assert max(per_card) == 1, per_card
        expect(graph.locator("g.again-badge")).to_have_count(2)
        expect(graph.locator("text.tag-text.again")).to_have_count(0)
        expect(graph.locator("a.checkpoint-mark path.checkpoint-flag")).to_have_count(1)
        expect(graph.locator("a.checkpoint-mark rect, a.checkpoint-mark text")).to_have_count(0)
        # Forked after steps 1 and 2, not at the start: the graph starts from "Start" still.
        expect(graph.locator("g.start-root text")).to_have_text("Start")
    keep_screenshot(sized_page, "forked-graph")
    assert_fits(sized_page)
    console_log.assert_clean()


# Each timeline dot: its state (from its class), its name, its fill; and the colour of that state's badge.
# Only the dots of the layout shown at this width (timeline_page.py lays each row out for a wide and a
# narrow track); a dot that stands for several nodes counts once per node, its name on its group.
DOTS = """() => [...document.querySelectorAll(".timeline .tl-track")]
  .filter((track) => getComputedStyle(track).display !== "none")
  .flatMap((track) => [...track.querySelectorAll(".tl-dot")]).flatMap((dot) => {
  const state = [...dot.classList].find((c) => c.startsWith("dot-")).slice(4);
  const named = dot.closest("[aria-label]");
  const group = dot.closest(".tl-group");
  const times = group ? Number(group.querySelector(".tl-count").textContent) : 1;
  const badge = document.createElement("i");  // the state's own colour (dashboard.css: --state)
  badge.className = "state-" + state;
  badge.style.color = "var(--state)";
  document.body.append(badge);
  const colour = getComputedStyle(badge).color;
  badge.remove();
  const row = [state, named.getAttribute("aria-label"), named.querySelector("title").textContent,
               getComputedStyle(dot).fill, colour, times, getComputedStyle(dot).stroke, dot.tagName];
  return Array(times).fill(row);
})"""


# Each state's pill, whoever's move it is: the contrast of its words on its fill (on the card's surface where the
# pill has none).
BADGE_CONTRASTS = """() => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 4).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => v / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const card = document.querySelector(".card");
  const found = {};
  for (const state of ["needs_you", "blocked", "paused", "stalled", "running", "left_behind", "done", "canceled"])
  for (const move of ["yours", "agents", "nobody"]) {
    const badge = document.createElement("span");
    badge.className = "badge state-" + state;
    badge.dataset.move = move;
    badge.textContent = state;
    card.append(badge);
    const style = getComputedStyle(badge);
    const fill = rgb(style.backgroundColor);
    const under = fill.length === 4 && fill[3] === 0 ? rgb(getComputedStyle(card).backgroundColor) : fill;
    const [a, b] = [lum(rgb(style.color)), lum(under)].sort((x, y) => y - x);
    found[state + " " + move] = (a + 0.05) / (b + 0.05);
    badge.remove();
  }
  return found;
}"""


def test_a_fork_points_step_page_names_its_branches_as_the_graph_does(sized_page, console_log, site, viewport):
    # Friction r59 (K): "Record the Changed Files", where branch 3 answered again, is drawn "Branches 1-2" on the
    # graph (branch 3 has its own redone copy); its page said "On branches 1, 2 and 3", its next steps "Branch 1"
    # and "Branch 3", "listed above" of a list below, and "The answer: …" under the next step for this one's.
    forked = two_runs_one_forked_twice()
    nodes = Node.objects.filter(run__public_id=forked.review_run, children__isnull=False).order_by("depth")
    record = next(n for n in nodes if n.children.count() > 1)
    if viewport.name == "desktop":
        sized_page.goto(f"{site}/runs/{forked.review_run}/")
        card = sized_page.locator(f'svg.run-graph a.graph-node[href$="/nodes/{record.public_id}/"]')
        expect(card.locator("text.tag-text.lane.shared")).to_have_text("Branches 1-2")
    sized_page.goto(f"{site}/nodes/{record.public_id}/")
    expect(sized_page.locator("h1")).to_have_text("Record the Changed Files")
    # The redo is said once, in its own card (friction61b 7: "(redo on branch 3)" in the heading too).
    # One card says where the run went from here (friction62a 4: "On branches 1 and 2" and "Next step", apart,
    # under a head that promised "several branches" and a card that listed one next step).
    where = sized_page.locator("#node-branch")
    expect(sized_page.locator("#node-branch-title")).to_have_text("Where it went")
    # Each next step named by the branches the graph draws through its card (friction63a 5, 63b 3: "Branches 1-2 ·
    # Review api" named a card only branch 1 passes): branch 1's Review api, then branch 2's own redone one, which
    # opens the redo card of that step's page.
    expect(where.locator("#where-next > li h3")).to_have_text(
        [
            re.compile(r"^Branch 1 · Review api · step 4"),
            re.compile(r"^Branch 2 · Review api \(redone\) · step 4"),
            re.compile(r"^Branch 3 · Review api · step 4"),
        ]
    )
    redone = where.locator("#where-next > li.next-redone h3 a")
    shared = where.locator("#where-next > li:first-child h3 a")
    expect(redone).to_have_attribute("href", re.compile(r"^/nodes/\d+/#redos$"))
    assert redone.get_attribute("href") == f"{shared.get_attribute('href')}#redos"
    # Only the branches that pass through this step's card went on from it: branch 3 came from its own redo
    # (friction60a 2: "Where branches 1, 2 and 3 went on from this step"). Where each stands now is one list
    # (friction63a 5: "Other branches of this run" was a second list of branches), without branch 3, which only
    # redid the step (friction64: "Branches 1, 2 and 3 now:" under "Where it went"): its redo card says where it is.
    expect(sized_page.locator("#node-went-on")).to_have_text("Branches 1 and 2 now:")
    expect(sized_page.locator("#node-branch ul.node-branches > li")).to_have_count(2)
    expect(sized_page.locator("#node-branch #other-branches")).to_have_count(0)
    # It stopped at the step its "Then" line names: its state alone, not that step a second time.
    expect(sized_page.locator("#redos #redo-now-3")).to_have_text(re.compile(r"^Now: Left behind there\s·\s"))
    # Every branch row says when it last moved, those that went on from here as the run's other branches do
    # (friction62b 14: "· just now" on branch 3's row, none on branch 2's).
    rows = sized_page.locator("#node-branch li.callout, #redos .redo-now")
    expect(rows).to_have_count(3)
    for row in rows.all():
        expect(row.locator("time")).to_have_count(1)
        expect(row).to_contain_text(re.compile(r"\s·\s(just now|\d+ (min|h) ago)"))
    # The page follows the graph (friction61a 1): the one answer drawn on this card, and the one step drawn
    # after it; branch 3's answer and its Review api are in the redo card, as the graph draws its own card.
    answers = sized_page.locator("section[aria-labelledby=recorded-title]")
    expect(answers.locator("h2")).to_have_text("Answer")
    expect(answers).not_to_contain_text("A second look after a rewind.")
    expect(sized_page.locator("#branches-title")).to_have_count(0)  # no second card of next steps
    expect(where.locator(".answer-preview")).to_have_count(0)  # the answer is its own card, not quoted again
    # Branch 3, which redid this step, is a row of the same list in the same shape, saying so, with its answer
    # (friction65a 13: a card of its own further down read as another kind of thing).
    expect(sized_page.locator("#redos-title")).to_have_count(0)
    redo = where.locator("#where-next > li.redo-answered")
    expect(redo).to_have_attribute("id", "redos")
    expect(redo.locator("h3")).to_have_text(re.compile(r"^Branch 3 · Review api · step 4"))
    expect(redo.locator(".via")).to_have_text("redid this step")
    expect(redo.locator(".redo-answer-title")).to_have_text("This step's answer on branch 3:")
    expect(redo).to_contain_text("A second look after a rewind.")
    rows = where.locator("#where-next > li")
    expect(rows).to_have_count(3)
    # One shape: each row's heading, its how and when on one line with it (on a desktop), the same size.
    sizes = rows.locator("h3").evaluate_all("hs => hs.map(h => getComputedStyle(h).fontSize)")
    assert len(set(sizes)) == 1, sizes
    # The head says no "several branches (listed below)": the card right under it says where (friction62a 4).
    expect(sized_page.locator("#now-at")).to_have_count(0)
    head, box = sized_page.locator(".page-head").bounding_box(), where.bounding_box()
    assert head and box and box["y"] >= head["y"] + head["height"]
    keep_screenshot(sized_page, "node-fork-point-branches")
    console_log.assert_clean()


def test_every_timeline_dot_is_coloured_by_its_state_and_named(sized_page, console_log, site, viewport):
    forked = two_runs_one_forked_twice()
    sized_page.goto(f"{site}/sessions/{forked.session_id}/#timeline")
    dots = sized_page.evaluate(DOTS)
    assert len(dots) == 11 + 2 + 2  # every node, and the review's two steps redone after a rewind
    for state, label, title, fill, badge, times, stroke, shape in dots:
        assert label == title and re.match(
            r"^([^:]* within (a second|a minute|[\d]+ (min|h))( \([^)]+\))?: )?"
            r"(.+ · step \d+[a-z]? of \d+( \((round|area) \d+ of \d+\))?( ↺ redone)?|Complete): [A-Z]",
            label,
        )
        # The state's own colour (its pill's is whose move); Left behind's dots are rings of it (friction9 item 7),
        # grey as the graph's and the chips' (friction16a 18), every other a disc of it.
        if state == "left_behind":
            assert stroke == badge != fill, (state, stroke, fill, badge)
            assert stroke == css_colour(sized_page, "--idle"), stroke
        else:
            assert fill == badge, (state, fill, badge)
        # Only Paused's are squares (test_sharing), and a checkpoint a ◆, as the graph draws it (friction61a 3).
        assert shape == ("path" if label.startswith("◆ checkpoint at ") else "circle"), (state, shape)
        if times > 1:  # a dot for several nodes names each of them, all of its state
            assert re.match(r"^\d+ steps?[^:]* within ", label) and label.count(" UTC") == times
            assert label.count(": Answered") in (0, times)
    assert {state for state, *_ in dots} == {"done", "left_behind", "running"}
    # A checkpoint is its own kind of entry, never its step named again with a tag (friction61a 6: "Post the Approved
    # Comments · step 7 of 8" listed twice, once "(checkpoint)").
    labels = [label for _, label, *_ in dots]
    assert any("◆ checkpoint at Post the Approved Comments · step 7 of 8: Answered" in label for label in labels)
    assert not any("(checkpoint)" in label for label in labels), labels
    # The axis's labels (rewritten on the reader's clock by times.js) stay short and apart, in any locale.
    ticks = sized_page.evaluate("""() => [...document.querySelectorAll("svg.tl-axis text.tl-tick")]
      .filter((t) => getComputedStyle(t).display !== "none")
      .map((t) => { const r = t.getBoundingClientRect(); return [t.textContent, r.left, r.right]; })""")
    assert ticks, ticks
    assert_axis_reads(sized_page)  # clock times in the reader's form, as every other time on the page
    assert all(left[2] <= right[1] for left, right in itertools.pairwise(ticks)), ticks
    # Every state a row's words list has a dot of its colour in sight on that row: the two left behind too.
    hidden = sized_page.evaluate("""() => [...document.querySelectorAll(".timeline .tl-row")].flatMap((row) => {
      const seen = new Set([...row.querySelectorAll(".tl-track")]
        .filter((track) => getComputedStyle(track).display !== "none")
        .flatMap((track) => [...track.querySelectorAll(".tl-dot")])
        .filter((dot) => dot.getBoundingClientRect().width >= 9)
        .map((dot) => [...dot.classList].find((c) => c.startsWith("dot-"))));
      return [...row.querySelectorAll(".tl-states .tl-key")]
        .map((key) => [...key.classList].find((c) => c.startsWith("dot-"))).filter((state) => !seen.has(state));
    })""")
    assert hidden == []
    # Beside the track, in words, which states its dots show: never over the dots.
    review = sized_page.locator(f'.tl-row[data-run-id="{forked.review_run}"]')
    expect(review.locator(".tl-states li")).to_have_text(["Working", "Left behind", "Answered", "Checkpoint"])
    text_on_dots = sized_page.evaluate("""() => {
      const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const dots = [...document.querySelectorAll(".timeline .tl-dot")].map((d) => d.getBoundingClientRect())
        .filter((r) => r.width > 0);
      return [...document.querySelectorAll(".timeline .tl-states li")]
        .filter((li) => dots.some((d) => meet(li.getBoundingClientRect(), d))).map((li) => li.textContent);
    }""")
    assert text_on_dots == []
    keep_screenshot(sized_page, "timeline-states")
    # Every state's badge is legible: its words at WCAG AA contrast on its fill, in either colour scheme.
    for scheme in ("light", "dark"):
        sized_page.emulate_media(color_scheme=scheme)
        contrasts = sized_page.evaluate(BADGE_CONTRASTS)
        assert all(ratio >= 4.5 for ratio in contrasts.values()), (scheme, contrasts)
    sized_page.emulate_media(color_scheme="light")
    assert_fits(sized_page)
    console_log.assert_clean()
