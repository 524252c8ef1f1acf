"""Every dashboard page at desktop (1440x900) and phone (390x844) size: nothing wider than the window,
no text clipped, no table behind a sideways scroll; a screenshot of each kept for a person to review.
One test per page, run at both sizes; the sessions are the ones the other browser tests build (a forked
review with a second run, a blocked review, a looped and forked run)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from runs.models import Node
from runs.store import tool_calls
from tests.browser.layout import (
    assert_fits,
    assert_fold_mark_fits,
    keep_screenshot,
    on_one_line,
    separator_orphans,
    viewport_name,
    visible_text,
    visit,
)
from tests.browser.timeline import assert_axis_reads, assert_times_said_one_way
from tests.browser.words import assert_plain_words
from tests.support.branched_review import BlockedReview, blocked_review
from tests.support.looped_run import Looped, looped_and_forked
from tests.support.mcp_calls import start_workflow
from tests.support.sample_session import REVIEW, Built
from tests.support.timed_calls import Timed
from tests.support.workflow_files import workflow_doc, write_json

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


@dataclass
class Samples:
    forked: Built
    blocked: BlockedReview
    looped: Looped


@pytest.fixture
def blocked(live_server, service_catalog) -> BlockedReview:
    return blocked_review()


@pytest.fixture
def looped(live_server, service_catalog) -> Looped:
    return looped_and_forked(service_catalog["extra"], iterations=3)


@pytest.fixture
def samples(forked, blocked, looped) -> Samples:
    return Samples(forked, blocked, looped)


# The boxes drawn around a focused control, by their colour: its outline, its own border and its ::after's (a phone's
# small box inside a 44 px tap area); and the page's focus colour.
FOCUS_BOXES = """e => {
  const own = getComputedStyle(e), after = getComputedStyle(e, "::after");
  const drawn = [];
  if (own.outlineStyle !== "none" && parseFloat(own.outlineWidth) > 0) drawn.push(own.outlineColor);
  if (parseFloat(own.borderTopWidth) > 0 && own.borderTopColor !== "rgba(0, 0, 0, 0)") drawn.push(own.borderTopColor);
  if (after.content !== "none" && parseFloat(after.borderTopWidth) > 0) drawn.push(after.borderTopColor);
  const probe = document.createElement("span");
  probe.style.color = "var(--focus)";
  document.body.append(probe);
  const focus = getComputedStyle(probe).color;
  probe.remove();
  return {focused: e.matches(":focus-visible"), drawn, focus};
}"""


def test_the_sessions_list(sized_page, console_log, site, samples, viewport):
    visit(sized_page, site + "/sessions/", "sessions")
    # The state leads: its own column on a desktop; on a phone the card's first line, beside the name, with
    # no column names (a headline card, not a list of labelled lines).
    state = sized_page.locator("td.session-state:has(.badge.state-blocked)")
    expect(state).to_be_visible()
    shown = state.evaluate("cell => getComputedStyle(cell, '::before').content")
    assert shown in ("none", "normal")
    # On a desktop every column's name is one line ("LAST ACTIVITY" wrapped: friction28a 19).
    if viewport_name(sized_page) != "phone":
        heads = sized_page.locator("table.session-list thead th")
        for index in range(heads.count()):
            lines = (
                "e => { const r = document.createRange(); r.selectNodeContents(e); return r.getClientRects().length; }"
            )
            assert heads.nth(index).evaluate(lines) == 1, heads.nth(index).inner_text()
    # The list says it updates live with the marker every other page has, dot and words (friction65b 28: "updates
    # live" here, "● Updates live" there), in the head, in sight at both sizes.
    marker = sized_page.locator(".page-head #live-dot")
    expect(marker.locator(".live-words")).to_have_text("Updates live")
    expect(marker.locator(".live-dot")).to_be_visible()
    if viewport_name(sized_page) != "phone":  # at the head's end, beside its buttons, as on a session's page
        mark, buttons = marker.bounding_box(), sized_page.locator(".page-head .head-actions").bounding_box()
        assert mark and buttons and 0 <= buttons["x"] - (mark["x"] + mark["width"]) <= 24, (mark, buttons)
    assert_fits(sized_page)
    console_log.assert_clean()


def said(page, words: str) -> int:
    """How many times the page shows `words`, the timeline's colour key aside (a key, not a statement)."""
    return visible_text(page, skip=(".timeline",)).count(words)


# The forked review's run page, at most this tall (px): about 4251 on a phone and 3295 on a desktop before its
# earlier steps and, on a phone, its findings folded.
PHONE_HEIGHT_BOUND = 3500
DESKTOP_HEIGHT_BOUND = 3000


def test_a_session_with_a_forked_run(sized_page, console_log, site, forked):
    visit(sized_page, f"{site}/sessions/{forked.session_id}/", "forked-session")
    assert separator_orphans(sized_page) == []
    assert_axis_reads(sized_page)
    # Two runs, both running: each run's card in the runs column (the index) has its pill; the shown run's status
    # line has its own, once; the session's head says none again. Each pill says whose move.
    # On a phone the shown run's row is its name alone, its card right under the list (friction32 1).
    phone = (sized_page.viewport_size or {})["width"] < 600
    rows_with_pill = 1 if phone else 2
    assert said(sized_page, "Agent's move · Working") == said(sized_page, "Agent's move") == 1 + rows_with_pill
    assert said(sized_page, "Your move") == 0
    expect(sized_page.locator(".runs-nav .badge").first).to_have_text("Agent's move · Working")
    # Each run card's pill on one line, never broken inside itself (friction10 7): on a phone the cards stack.
    for pill in sized_page.locator(".runs-nav .badge[data-move]").all():
        assert on_one_line(pill), pill.inner_text()
    # Every run card has the same shape at every size (friction17a 1): the whole name (never cut short), the
    # pill under it, then where the run stands; the shown run's card too, beside it on a desktop (on a phone
    # its row is its name, "shown below": friction32 1).
    for card in sized_page.locator(".runs-nav a.run-link" + (":not([aria-current])" if phone else "")).all():
        name = card.locator(".run-name")
        assert name.evaluate("e => e.scrollWidth <= e.clientWidth && getComputedStyle(e).textOverflow !== 'ellipsis'")
        name_box, pill, summary = (card.locator(i).bounding_box() for i in (".run-name", ".badge", ".run-summary"))
        assert name_box and pill and summary
        assert name_box["y"] + name_box["height"] <= pill["y"] + 1 and pill["y"] + pill["height"] <= summary["y"] + 1
    shown_summary = sized_page.locator(".runs-nav a.run-link[aria-current=page] .run-summary")
    expect(shown_summary).to_be_hidden() if phone else expect(shown_summary).to_be_visible()
    # The mode is one line in the head, not a card between the run and its steps (friction11 item 2): its fold
    # comes after the steps at every size.
    run_card, mode, steps = (
        sized_page.locator(i).bounding_box()
        for i in ("section[aria-labelledby=run-title]", ".mode-card", "#steps-title")
    )
    assert run_card and mode and steps and run_card["y"] < steps["y"] < mode["y"]
    # What covers every run comes under one divider, after all of the shown run's (friction28a 8, 28b 4).
    divider = sized_page.locator("#scope-divider")
    expect(divider).to_have_text("Whole session")
    line, timeline = divider.bounding_box(), sized_page.locator("#timeline-title").bounding_box()
    assert line and timeline and steps["y"] < line["y"] < timeline["y"] < mode["y"]
    # The head counts the runs at every size (friction28a 16: a phone's left it out).
    expect(sized_page.locator("#session-facts .fact-runs")).to_have_text("2 runs")
    if (sized_page.viewport_size or {})["width"] > 800:
        # One layout whatever the run shown (friction28a 15, 28b 4): only the run's card beside the runs column;
        # a one-branch run's Progress, as a branched run's, takes the whole width under both.
        rail, graph, layout = (
            sized_page.locator(i).bounding_box() for i in (".runs-nav", ".run-graph-card", ".session-layout")
        )
        assert rail and graph and layout and graph["y"] >= rail["y"] + rail["height"], (rail, graph)
        assert abs(graph["x"] - layout["x"]) < 1 and graph["width"] >= layout["width"] - 1, (graph, layout)
        # Where the run's sections leave the column's side, a divider names the run (friction29a 14, 29b 8), whole:
        # the card after it starts under it (friction30a 1: a card covered its lower half).
        own = sized_page.locator("#run-scope-divider")
        expect(own).to_have_text(re.compile(r"^Run [12] of 2: "))
        named, after = own.bounding_box(), own.locator("xpath=following-sibling::*[1]").bounding_box()
        assert named and after and named["y"] + named["height"] <= after["y"], (named, after)
    else:
        # In a phone's one column the run's sections follow its card straight on: no divider cuts the run in two.
        expect(sized_page.locator("#run-scope-divider")).to_be_hidden()
    # The head names the mode at every size, once: its fold's title does not again (friction26a 9, 26b 16).
    expect(sized_page.locator("#session-mode")).to_be_in_viewport()
    expect(sized_page.locator("#mode-title")).not_to_contain_text("Guided")
    visit(sized_page, f"{site}/runs/{forked.review_run}/", "forked-review")
    # The long run page, shortened (friction24a 15, 24b 12): the earlier steps folded, and on a phone the
    # findings too. Before: 4251 px on a phone, 3295 on a desktop.
    height = sized_page.evaluate("document.documentElement.scrollHeight")
    print(f"forked-review page height at {viewport_name(sized_page)}: {height} px")
    phone_size = (sized_page.viewport_size or {})["width"] < 600
    assert height < (PHONE_HEIGHT_BOUND if phone_size else DESKTOP_HEIGHT_BOUND), height
    # Export and Cancel run… are small buttons like the others: on a phone their box sits inside a thumb's
    # height to tap (friction24a 16-17, 24b 8: a 44 px bordered box beside the title).
    for control in ("#cancel-button", ".export-menu > summary"):
        box = sized_page.locator(control).evaluate(
            "e => { const b = e.getBoundingClientRect(); const s = getComputedStyle(e, '::after');"
            " return {tap: b.height, box: s.content === 'none' ? b.height : parseFloat(s.height)}; }"
        )
        assert box["box"] <= 32 and box["tap"] >= (44 if phone_size else 0), (control, box)
        if phone_size:
            # Focused from the keyboard, one box is drawn, in the focus colour: not the page's ring around the tap
            # area as well as the small box inside it (friction64: the Export menu's double box).
            sized_page.locator(control).focus()
            sized_page.keyboard.press("Shift+Tab")
            sized_page.keyboard.press("Tab")
            boxes = sized_page.locator(control).evaluate(FOCUS_BOXES)
            assert boxes["focused"] and len(boxes["drawn"]) == 1, (control, boxes)
            assert boxes["drawn"][0] == boxes["focus"], (control, boxes)
    # The shown run's card in the runs column counts its branches as the others do (friction19a 14), beside
    # the run on a desktop; on a phone its row is its name, the run's card under it (friction32 1).
    shown_meta = sized_page.locator(".runs-nav a.run-link[aria-current=page] .run-meta")
    expect(shown_meta).to_contain_text("3 branches")
    expect(shown_meta).to_be_hidden() if phone_size else expect(shown_meta).to_be_visible()
    if (sized_page.viewport_size or {})["width"] > 800:
        # On a wide screen the runs column stands beside the run's card, which starts at its top, and the cards
        # past its end take the whole width under it (friction26a 15, 26b 14: a column kept down the page stood
        # empty beside squeezed findings and graph).
        rail, run_card, steps, layout = (
            sized_page.locator(i).bounding_box()
            for i in (
                ".runs-nav",
                "section[aria-labelledby=run-title]",
                "section[aria-labelledby=steps-title]",
                ".session-layout",
            )
        )
        assert rail and run_card and steps and layout
        assert run_card["x"] >= rail["x"] + rail["width"] and abs(run_card["y"] - rail["y"]) < 24, (rail, run_card)
        assert abs(steps["x"] - layout["x"]) < 1 and steps["width"] >= layout["width"] - 1, (steps, layout)
    # No "·" starts or ends a line (friction16a 15, friction16b 8). On a phone the other branches fold to their
    # count, so the shown branch's steps come sooner (friction16a 13); on a desktop they show, under a heading.
    assert separator_orphans(sized_page) == []
    others = sized_page.locator("#other-branches")
    if (sized_page.viewport_size or {})["width"] < 600:
        # On a phone the branch graph is a list of the branches, each linked: the run card does not fold the
        # same two again (friction18a 17).
        expect(others).to_be_hidden()
        expect(sized_page.locator(".graph-list .gl-head a")).to_have_text(["Branch 2", "Branch 3"])
        # ... but one line says the others are there; each branch left behind's heading opens it, whose panel
        # offers resuming: no "Resume here →" in the list (friction26a 7: a second agent by one click).
        # Its "?" leads to what a branch is, on the words page (friction26b 9).
        expect(sized_page.locator("#others-line")).to_have_text("Other branches: 2 left behind → ?")
        expect(sized_page.locator("#others-line a").first).to_have_attribute("href", "#graph-title")
        expect(sized_page.locator("#others-line a.term-link")).to_have_attribute("href", "/words/#branch")
        expect(sized_page.locator(".graph-list .gl-resume")).to_have_count(0)
        # Another branch shown: the card leads with it, and the run's line under it, small, leads back to the
        # latest (friction20a 2); the others line counts the one branch left.
        branch_2 = sized_page.locator(".graph-list .gl-head a").first.get_attribute("href") or ""
        shown_2 = sized_page.context.new_page()
        shown_2.set_viewport_size(sized_page.viewport_size)
        shown_2.goto(site + branch_2)
        # One banner: the branch shown, then the way to the latest (friction24a 9).
        banner = shown_2.locator("#shown-branch")
        expect(banner).to_contain_text(re.compile(r"^Viewing branch 2 \(\w[\w ]*\)\. "))
        expect(banner.locator("a#run-where")).to_have_attribute("href", re.compile(r"/runs/[^?]+/$"))
        expect(shown_2.locator("#run-status")).to_have_count(0)
        expect(shown_2.locator("#others-line")).to_have_text("Other branches: 1 left behind → ?")
        shown_2.close()
        # Each answered step, folded, says its answer's first line without a tap, up to two lines of it (one
        # line cut most answers mid-word: friction21a 6), never wider than the card.
        gists = sized_page.locator(
            "section[aria-labelledby=steps-title] > ol.steps details.step-fold:not([open]) > summary .step-gist"
        )
        assert gists.count() >= 1
        for gist in gists.all():
            expect(gist).to_be_visible()
            lines = gist.evaluate("el => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).fontSize)")
            assert 0.9 < lines < 2 * 1.6, lines  # one or two lines of text, at most
            assert gist.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
        first = sized_page.locator("section[aria-labelledby=steps-title] > ol.steps details.step-fold").first
        first.locator(":scope > summary > h3").click()  # the title: the row's link goes to its page
        expect(first.locator(":scope > summary .step-gist")).to_be_hidden()  # opened, the notes say it whole
        first.locator(":scope > summary > h3").click()
        sized_page.evaluate("window.scrollTo(0, 0)")  # back to the first screen, which is checked next
    else:
        expect(sized_page.locator("ol.steps .step-gist").first).to_be_hidden()  # the notes show in full
        expect(others.locator(":scope > summary h3")).to_contain_text("Other branches of this run")
        expect(others.locator(":scope > summary .fold-count")).to_be_hidden()
        expect(others.locator(":scope > ul")).to_be_visible()
        expect(sized_page.locator("#others-line")).to_be_hidden()  # the list says them
    # What the run produced is named on the first screen, under its header; a link jumps to the findings.
    produced = sized_page.locator("#run-produced")
    expect(produced).to_contain_text("findings · changed files")  # named: the folds below count them, once
    expect(produced).not_to_contain_text("3 findings")
    expect(produced).to_be_in_viewport()
    # What it produced comes before how it got there: the findings above the branch graph and the steps.
    findings, graph, steps = (
        sized_page.locator(i).bounding_box()["y"] for i in ("#findings-title", "#graph-title", "#steps-title")
    )
    assert findings < graph < steps, (findings, graph, steps)
    # The findings and the changed files are one line each, how many and of what kind, folded on every screen
    # (a phone's page is a few screens, not eight); the run's state and its pending step are never folded.
    expect(sized_page.locator("#findings-title")).to_have_text("3 findings on branch 1 1 critical, 1 major, 1 minor")
    expect(sized_page.locator("#files-title")).to_have_text("2 changed files on branch 1 1 high risk, 1 low risk")
    expect(sized_page.locator("#files-fold table")).not_to_be_visible()
    # A critical finding: the findings open from the start (friction18a 24, 18b 14); closed, the line names it.
    # On a phone the most severe shows, the rest behind one line (friction26b 18: all folded to "Critical: …";
    # friction60b 9: two of them pushed the branches and the steps a screen further down).
    findings_fold = sized_page.locator("#findings-fold")
    rows = findings_fold.locator("table.findings tbody tr")
    more = findings_fold.locator("#more-findings")
    if (sized_page.viewport_size or {})["width"] < 600:
        expect(rows.nth(0)).to_be_visible()
        expect(rows.nth(0).locator(".sev")).to_have_text("critical")
        expect(rows.nth(1)).to_be_hidden()
        expect(rows.nth(2)).to_be_hidden()
        expect(more).to_have_text("Show 2 more findings")
        # The fold's line right under the one finding shown: the branches come a finding sooner.
        shown, line = rows.nth(0).bounding_box(), more.bounding_box()
        assert shown and line and 0 <= line["y"] - (shown["y"] + shown["height"]) < 40, (shown, line)
        more.locator("summary").click()
        expect(rows.nth(1)).to_be_visible()
        expect(rows.nth(2)).to_be_visible()
        expect(more).to_be_hidden()
    else:
        expect(rows).to_have_count(3)
        for row in rows.all():
            expect(row).to_be_visible()
        expect(more).to_be_hidden()
    expect(findings_fold.locator("table")).to_be_visible()
    expect(findings_fold.locator(".fold-critical")).to_be_hidden()
    findings_fold.locator(":scope > summary").click()
    expect(findings_fold.locator("table")).not_to_be_visible()
    expect(findings_fold.locator(".fold-critical")).to_be_visible()
    expect(findings_fold.locator(".fold-critical")).to_contain_text("Critical: ")
    expect(sized_page.locator("#run-status")).to_be_visible()
    expect(sized_page.locator("#pending-step")).to_have_count(0)
    # Opened in place from the keyboard, the changed files are cards titled by their paths on a phone: no
    # column names on every row, the risk said in words.
    sized_page.locator("#files-fold > summary").focus()
    sized_page.keyboard.press("Enter")
    files = sized_page.locator("#files-fold table.changed-files")
    expect(files).to_be_visible()
    expect(files.locator("tbody tr").first).to_contain_text("src/alpha.py")
    phone = (sized_page.viewport_size or {})["width"] < 600
    if phone:  # a card under a finger is not shaded as if selected (friction18b 22)
        card = files.locator("tbody tr").nth(1)
        card.hover()
        assert card.evaluate("r => getComputedStyle(r).backgroundColor") == "rgba(0, 0, 0, 0)"
    # One title size for cards and folds, and a marker as big as the title's letters (friction18a 20).
    titles = ("#graph-title", "#steps-title", "#findings-title")
    sizes = [sized_page.locator(i).evaluate("e => getComputedStyle(e).fontSize") for i in titles]
    assert len(set(sizes)) == 1, sizes
    for fold in ("#files-fold > summary", "#timeline > summary", "#mode > summary"):  # friction22a A6
        assert_fold_mark_fits(sized_page, fold, "#steps-title")
    assert said(sized_page, "high risk") == 1 + phone  # the summary's, then the card's
    if phone:
        label = "td => getComputedStyle(td, '::before').content"
        assert files.locator("tbody td").evaluate_all(f"cells => cells.map({label})") == ["none"] * 6
    assert_fits(sized_page)
    keep_screenshot(sized_page, "forked-review-files")
    sized_page.keyboard.press("Enter")
    expect(files).not_to_be_visible()
    # Each answered step: on a phone one line, its title with its place, then its time, that opens in place (a
    # native fold, no script) to its id, prompt and notes; on a desktop all of it in sight as before.
    # The newest three steps show; the earlier ones wait in one fold that counts them, every one still listed
    # (friction24a 15, 24b 12: the graph above draws them all).
    earlier = sized_page.locator("#earlier-steps")
    expect(earlier.locator(":scope > summary")).to_have_text("Earlier steps (4)")
    expect(earlier.locator("li.step")).to_have_count(4)
    expect(sized_page.locator("section[aria-labelledby=steps-title] > ol.steps > li.step")).to_have_count(3)
    expect(earlier.locator("li.step").first).not_to_be_visible()
    earlier.locator(":scope > summary").click()
    first = sized_page.locator("ol.steps > li.step").first
    head = first.locator("summary.step-head")
    notes = first.locator(".markdown.notes").get_by_text("Step 1 of the review. Looked at the diff.")
    expect(head.locator("h3")).to_have_text("Triage the Change · step 1 of 8")
    expect(head.locator(".step-when time")).to_be_visible()
    # Folded on a phone, the step's page is still a link on the time's line (friction19a 11).
    expect(first.locator(".step-page")).to_be_visible()
    page_link, when = (head.locator(i).bounding_box() for i in (".step-page", ".step-when"))
    assert page_link and when and abs(page_link["y"] - when["y"]) < 4
    hidden = (
        notes,
        first.locator("details.step-fold details > summary", has_text="Prompt"),
    )
    for part in hidden:
        expect(part).to_be_visible() if not phone else expect(part).not_to_be_visible()
    if phone:
        # the title's line (its "· prompt" may wrap it), the time's and the answer's first line
        assert head.bounding_box()["height"] < 100
        # The answer's first line says what the step did without a tap (friction18a 17).
        expect(head.locator(".step-gist")).to_have_text("Step 1 of the review. Looked at the diff.")
        head.locator("h3").click()
        for part in hidden:
            expect(part).to_be_visible()
        head.locator("h3").click()
        expect(notes).not_to_be_visible()
        # Folded, the step names what a tap opens, a muted word on its title's line inside the one summary: no
        # second control (friction25b 3, friction24b 16).
        expect(head.locator(".step-open")).to_have_text("· prompt")
        # Its ▸ before the word, as a desktop's "▸ Prompt", none before the title (friction28b 12).
        marker = "(e, where) => getComputedStyle(e, where).content"
        assert head.evaluate(marker, "::before") == "none"
        assert head.locator(".step-open-word").evaluate(marker, "::before").startswith('"▸ "')
        title, opens = (head.locator(i).bounding_box() for i in ("h3", ".step-open"))
        assert title and opens and abs(title["y"] + title["height"] - opens["y"] - opens["height"]) < 6
        expect(first.locator("a.step-page")).to_have_count(1)
    else:
        expect(head.locator(".step-open")).to_be_hidden()
    earlier.locator(":scope > summary").click()
    # People's words on the page; the ids wait, still copyable, in the run's "For developers" fold.
    assert_plain_words(sized_page)
    details = sized_page.locator("#run-details")
    expect(details.locator(f"#run-id-{forked.review_run}")).not_to_be_visible()
    details.locator("summary").click()
    expect(details.locator(f"#run-id-{forked.review_run}")).to_have_text(forked.review_run)
    expect(details).to_contain_text(REVIEW)
    # No node count beside the timeline's and graph's step counts (friction60a 8: "Nodes 11" read as a miscount).
    expect(details).not_to_contain_text("Nodes")
    keep_screenshot(sized_page, "forked-review-details")
    produced.get_by_role("link", name="findings").click()
    expect(sized_page.locator("#findings-title")).to_be_in_viewport()
    expect(sized_page.locator("#findings-fold table.findings")).to_be_visible()  # the jump opens the fold
    assert sized_page.url.endswith("#findings-title")
    assert said(sized_page, "Agent's move") == said(sized_page, "Agent's move · Working")  # in its pills alone
    assert said(sized_page, "Your move") == 0
    console_log.assert_clean()


SEPARATOR = "\u203a"  # the progress strip's mark between two steps


def assert_code_folded(page: Page, scope: str, viewport: Any, shot: str) -> None:
    """An opened "Details" shows no JSON until its own fold is opened, so the page stays short (friction63a 8,
    63b 7: 4,100 px on a phone with the JSON open); its screenshot is kept as `shot`."""
    expect(page.locator(f"{scope} pre").filter(visible=True)).to_have_count(0)
    tall = page.evaluate("document.documentElement.scrollHeight")
    print(f"{shot} height, Details open:", tall)
    assert tall < (3100 if viewport.name == "phone" else 1900), tall
    keep_screenshot(page, shot)


def test_a_blocked_run_and_its_node(sized_page, console_log, site, blocked, viewport):
    visit(sized_page, f"{site}/runs/{blocked.run_id}/", "blocked-run")
    assert_axis_reads(sized_page)
    # "Refused at 5:20 AM" and "It becomes your move at 5:50 AM if no corrected answer comes": local clock times, no
    # "UTC" in what a person reads.
    assert_times_said_one_way(sized_page, visible_text(sized_page))
    expect(sized_page.locator(".blocked-panel").first).to_be_in_viewport()
    # The progress strip (friction28a 4, 28b 2): the separator leads a step, so no line ends on one and a wrapped
    # line starts with it; every step after the first has it on a desktop, none on a phone's column.
    marks = sized_page.locator(".stepper .st-step").evaluate_all(
        "steps => steps.map((s) => [getComputedStyle(s, '::before').content, getComputedStyle(s, '::after').content])"
    )
    assert len(marks) > 2 and all(after in ("none", "normal") for _, after in marks), marks
    before = [mark for mark, _ in marks]
    assert before[0] in ("none", "normal"), before
    if viewport.name == "desktop":
        assert before[1:] == [f'"{SEPARATOR}"'] * (len(marks) - 1), before
    else:
        assert set(before) <= {"none", "normal"}, before
    # The state and the step in the card's one status line; the panel under it says what happens next; the call
    # and the example wait behind a disclosure.
    expect(sized_page.locator("#run-where")).to_have_text(
        re.compile(r"^Record the Changed Files · step 2 of 8 · refused .+, the agent must resend it$")
    )
    expect(sized_page.locator(".blocked-panel .verdict")).to_have_count(0)
    # The step named once, by the status line, not in the panel again (friction9 item 2).
    panel_words = sized_page.locator(".blocked-panel").first.evaluate(
        "(p) => { const c = p.cloneNode(true); c.querySelectorAll('pre').forEach((e) => e.remove());"
        " return c.textContent; }"
    )
    assert panel_words.count("Record the Changed Files") == 0, panel_words
    assert said(sized_page, "Record the Changed Files") == 1 + 1  # the status line, and the graph's step
    # "Retrying" once (the agent's side of a refused step, friction18b 2, 28a 2; two parts at most, friction62a 1),
    # in the status line's pill with whose move, on the first screen (a session of one run: not in the page's head,
    # nor on the runs column's card); no countdown doubting it (friction61b 3: "if it does not retry").
    assert (said(sized_page, "Retrying"), said(sized_page, "does not retry"), said(sized_page, "Agent's move")) == (
        1,
        0,
        1,
    )
    assert said(sized_page, "to resend") == 0
    expect(sized_page.locator(".run-status .badge.state-blocked")).to_have_text("Agent's move · Retrying")
    expect(sized_page.locator(".run-status .badge.state-blocked")).to_be_in_viewport()
    # One "Details" fold on the run, after the panel: the refused answer, then the resend call and the run's ids.
    expect(sized_page.locator(".blocked-panel .refused-answer, .blocked-panel .blocked-more")).to_have_count(0)
    expect(sized_page.locator("summary").filter(has_text=re.compile(r"^Details: the refused answer, "))).to_have_count(
        1
    )
    expect(sized_page.locator("#run-details .resend-call")).not_to_be_visible()
    sized_page.locator("#run-details > summary").click()
    # Opened, "Details" reads as short lines: each JSON block waits in its own closed fold, named by what it holds,
    # so a phone's page is not 4,100 px of wrapped JSON with "Cancel run…" below it all (friction63a 8, 63b 7).
    expect(sized_page.locator("#run-details details.dev-code > summary")).to_have_text(
        ["The call the agent must make", "Example artifact"]
    )
    assert_code_folded(sized_page, "#run-details", viewport, "blocked-run-developers")
    sized_page.locator("#resend-fold-1 > summary").click()
    expect(sized_page.locator("#run-details .resend-call")).to_be_visible()
    expect(sized_page.locator(f"#run-details #run-id-{blocked.run_id}")).to_be_visible()
    assert_one_message_then_developers(sized_page, "#run-details")
    # No heading with nothing under it: "For developers" leads straight to the refusal's codes, which the call's
    # parts point back to by that heading's words.
    expect(sized_page.locator("#run-details h4", has_text="The refused step")).to_have_count(0)
    expect(sized_page.locator("#run-details ul.resend")).to_contain_text("(see the refusal's codes above)")
    # The call's JSON wraps as the Connect page's code does: each key starts its own line, a long line goes on
    # under its start, and nothing is cut at the box's edge (a sideways scroll read as clipped, friction62a 8,
    # 62b 9).
    assert_code_whole(sized_page, "#run-details .resend-call")
    assert sized_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    keep_screenshot(sized_page, "blocked-run-developers-call")
    sized_page.locator("#run-details > summary").click()
    visit(sized_page, f"{site}/nodes/{blocked.node_id}/", "blocked-node")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    # The refused step's page shows the refusal itself, right under its head: what is wrong, in view, and
    # for the agent; no link away to a panel elsewhere.
    expect(sized_page.locator("#step-state")).to_have_text("Agent's move · Retrying")
    expect(sized_page.locator("#node-refusal .verdict")).to_contain_text(
        "Refused: the agent normally resends this step by itself"
    )
    expect(sized_page.locator("#node-refusal .blocked-issues li").first).to_be_visible()
    expect(sized_page.locator("#node-refusal .issue-codes")).to_contain_text("ARTIFACT_MISSING")  # folded
    expect(sized_page.locator("#node-refusal .verdict")).to_be_in_viewport()
    assert said(sized_page, "see above") == 0 and said(sized_page, "Open the refused step") == 0
    # As on the run page: the head's pill says "Retrying" (the agent's move, friction18b 2), the verdict
    # what is wrong, headed "Refused" (friction28a 2: one word for the refused family, never "Blocked"); whose move
    # once, in the pill.
    assert (said(sized_page, "Retrying"), said(sized_page, "to resend"), said(sized_page, "Blocked")) == (1, 0, 0)
    assert said(sized_page, "Agent's move") == 1
    expect(sized_page.locator(".page-head .badge.state-blocked")).to_have_text("Agent's move · Retrying")
    # The message, "Resume here"'s right under the refusal (friction22a B1), then the developers' call: here the
    # panel's last fold, inside the box it belongs to as on the confirm step's page (friction17b 6), the one such
    # fold on the page.
    expect(sized_page.get_by_text("For developers", exact=True)).to_have_count(1)
    # One "Details" fold, its last: the refused answer, then "For developers" (friction22a B6, 22b B11).
    expect(sized_page.locator("#node-refusal details.refused-answer")).to_have_count(0)
    expect(sized_page.locator("#blocked-more-1 .refused-answer")).to_have_count(1)
    expect(sized_page.locator("#blocked-more-1 > summary")).to_have_text(re.compile(r"^Details: the refused answer, "))
    sized_page.locator("#blocked-more-1 > summary").click()
    assert_one_message_then_developers(sized_page, "#blocked-more-1", inside=True)
    # As on the run page: the call and the example each in a closed fold of its own (friction63a 8, 63b 7).
    assert_code_folded(sized_page, "#blocked-more-1", viewport, "blocked-node-developers")
    sized_page.locator("#resend-fold-1 > summary").click()
    sized_page.locator("#example-fold-1 > summary").click()
    # The call and the example whole, each in a code box: opened on purpose, never cut off inside a scroll area
    # that a screenshot or a phone shows no sign of (friction59b 3: "stops mid-object"), nor set on the panel's
    # own colour.
    for pre in sized_page.locator("#blocked-more-1 pre.resend-call, #blocked-more-1 pre.expected-example").all():
        whole = pre.evaluate(
            "p => [p.scrollHeight <= p.clientHeight + 1, getComputedStyle(p).backgroundColor,"
            " getComputedStyle(p.closest('.blocked-panel')).backgroundColor]"
        )
        assert whole[0] and whole[1] != whole[2], whole
    assert_code_whole(sized_page, "#blocked-more-1 pre.resend-call")
    assert_code_whole(sized_page, "#blocked-more-1 pre.expected-example")
    keep_screenshot(sized_page, "blocked-node-developers-call")
    console_log.assert_clean()


def assert_code_whole(page: Page, selector: str) -> None:
    """A developer's code box shows all its text: no line runs past the box's edge (nor behind a sideways
    scroll), and each line of the code starts a line of its own (a key never joins the one before)."""
    clipped, starts, written = page.locator(selector).evaluate(
        "(e) => [e.scrollWidth - e.clientWidth, e.querySelectorAll('.hang').length,"
        " e.textContent.trim().split('\\n').length]"
    )
    assert clipped <= 0 and starts == written, (selector, clipped, starts, written)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def assert_one_message_then_developers(page: Page, drawer: str, inside: bool = False) -> None:
    """A blocked step's page or run page says what to give a stopped agent once: one message for the agent, in
    the box on the run page, in "Resume here" right under it on the step's; the one "For developers" drawer
    holds the raw call alone, without a second "give it this" (friction12 item 8): under the box on the run page
    (the run's fold), `inside` it, last, on the step's."""
    panel = page.locator(".blocked-panel").first
    expect(page.locator(".agent-message")).to_have_count(1)
    expect((page.locator("#resume-here") if inside else panel).locator(".agent-message")).to_have_count(1)
    if inside:
        expect(panel.locator(f"{drawer}.blocked-more")).to_have_count(1)
        expect(panel.locator("> details").last).to_have_id(drawer.lstrip("#"))
        expect(page.locator(drawer)).not_to_contain_text("give it this call")
        return
    expect(panel.locator("details.blocked-more")).to_have_count(0)
    expect(page.locator(f"{drawer} .resend-call")).to_be_visible()
    expect(page.locator(drawer)).not_to_contain_text("give it this call")
    expect(page.locator(drawer)).not_to_contain_text("Nothing for you to do")
    box, below = panel.bounding_box(), page.locator(drawer).bounding_box()
    assert box is not None and below is not None and below["y"] >= box["y"] + box["height"], (box, below)


def test_a_looped_run(sized_page, console_log, site, looped):
    visit(sized_page, f"{site}/runs/{looped.run_id}/", "looped-run")
    assert_axis_reads(sized_page)
    # Numbered dots (steps too close to draw apart) have a legend in sight, and each says how close. Whether
    # there are any depends on how evenly the machine spaced the steps over the span (first step to newest).
    if sized_page.locator(".tl-track:visible .tl-group").count():
        expect(sized_page.locator(".tl-legend:visible")).to_contain_text(
            "that many steps or checkpoints of one colour, too close in time"
        )
        expect(sized_page.locator(".tl-track:visible .tl-group title").first).to_have_text(
            re.compile(r"^\d+ steps?[^:]* within (a second|a minute|[\d]+ (min|h))[^:]*: ")
        )
    else:
        expect(sized_page.locator(".tl-legend:visible")).to_have_count(0)
    # The checkpoint saved while a step was pending shows under its step, folded or not (friction19b 6).
    marks = sized_page.locator("ol.steps details.checkpoint-mark")
    assert marks.count() >= 1
    for mark in marks.all():
        expect(mark.locator(":scope > summary")).to_be_visible()
    if (sized_page.viewport_size or {})["width"] < 600:
        # A folded step's title that wraps hangs under its own first letter, the marker on its first line
        # (friction19a 3, friction19b 7): made long enough to wrap, whatever the title's words say.
        head = sized_page.locator("ol.steps details.step-fold:not([open]) > summary").first
        head.locator("h3").evaluate("h => { h.textContent += ' and a few more words so that it wraps'; }")
        lines, marker = head.evaluate(HANGING)
        assert len(lines) >= 2, lines
        assert all(abs(left - lines[0][0]) <= 1 for left, _, _ in lines), lines
        if head.locator(".step-open").count():
            # A step with a prompt has its marker before "prompt", none in the gutter (friction28b 12).
            assert head.evaluate("s => getComputedStyle(s, '::before').content") == "none"
        else:
            assert marker["right"] <= lines[0][0], (marker, lines)  # in the gutter, left of the text
        first_top, first_bottom = lines[0][1], lines[0][2]
        assert first_top - 1 <= marker["top"] and marker["bottom"] <= first_bottom + 1, (marker, lines)
        # The Timeline and Mode folds: the heading's lines start at one x, right of the marker, which sits on
        # the heading's first line (its baseline), not centred on the wrapped lines.
        for fold in ("#timeline", "#mode"):
            summary = sized_page.locator(f"{fold} > summary")
            assert summary.evaluate("s => getComputedStyle(s, '::before').alignSelf") != "center"
            starts = summary.locator("h2").evaluate(LINE_STARTS)
            assert len(starts) >= 2 and max(starts) - min(starts) <= 1, (fold, starts)
            assert min(starts) > summary.bounding_box()["x"] + 8, (fold, starts)
    console_log.assert_clean()


# The lines of an element's text, top to bottom: each line's left, top and bottom (a JavaScript function, put
# before the snippets below that use it).
TEXT_LINES = """function textLines(el) {
  const range = document.createRange();
  range.selectNodeContents(el);
  const rows = new Map();
  for (const r of range.getClientRects()) {
    if (r.width === 0) continue;
    const key = Math.round(r.top);
    const row = rows.get(key);
    rows.set(key, row ? [Math.min(row[0], r.left), row[1], row[2]] : [r.left, r.top, r.bottom]);
  }
  return [...rows.values()].sort((a, b) => a[1] - b[1]);
}"""

# A folded step's heading: its title's lines (TEXT_LINES), and where its marker (the summary's ::before,
# absolutely placed in the gutter) is drawn, from its computed box.
HANGING = (
    "(summary) => {\n"
    + TEXT_LINES
    + """
  const lines = textLines(summary.querySelector("h3"));
  const box = summary.getBoundingClientRect();
  const cs = getComputedStyle(summary, "::before");
  const left = box.left + parseFloat(cs.left);
  const top = box.top + parseFloat(cs.top);
  return [lines, {left, top, right: left + parseFloat(cs.width || "0"), bottom: top + parseFloat(cs.lineHeight)}];
}"""
)

# The x at which each line of an element's text starts.
LINE_STARTS = "(el) => {\n" + TEXT_LINES + "\n  return textLines(el).map((line) => line[0]);\n}"


# The phone's branch list: each step's place that runs past its branch's box ("Step 2 of 3 · loop round 2 of 3,
# part 2 of 2" kept on one line crossed the box's border at 390 px).
PLACES_OUTSIDE = """() => [...document.querySelectorAll(".graph-list .gl-words")]
  .filter((el) => el.getBoundingClientRect().width > 0)
  .filter((el) => el.getBoundingClientRect().right > el.closest(".gl-branch").getBoundingClientRect().right - 1)
  .map((el) => el.textContent.trim())"""


# Every card of the branch graph, as the window shows it: inside the window and inside the graph's box.
CARDS_INSIDE = """() => {
  const vw = document.documentElement.clientWidth;
  const frame = document.querySelector(".graph-frame").getBoundingClientRect();
  return [...document.querySelectorAll("svg.run-graph a.graph-node rect.card")].filter((card) => {
    const r = card.getBoundingClientRect();
    return !(r.width > 0 && r.left >= 0 && r.right <= vw && r.left >= frame.left && r.right <= frame.right);
  }).map((card) => card.parentElement.dataset.nodeId);
}"""

# The timeline's texts and dots: pairs whose boxes overlap, tracks past the card, text under 12 px.
TIMELINE_PROBLEMS = """() => {
  const box = (el) => el.getBoundingClientRect();
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const card = box(document.querySelector(".timeline"));
  const texts = [...document.querySelectorAll(
    ".timeline :is(.tl-name, .tl-tick, .tl-legend, .tl-quiet, .tl-quiet-line, .tl-now)")]
    .filter((el) => box(el).width > 0);
  const dots = [...document.querySelectorAll(".timeline .tl-dot")].filter((d) => box(d).width > 0);  // shown
  const problems = [];
  texts.forEach((t) => dots.forEach((d) => {
    if (meet(box(t), box(d))) problems.push("dot on " + t.textContent.trim());
  }));
  document.querySelectorAll(".timeline .tl-track, .timeline .tl-axis, .timeline .tl-dot").forEach((el) => {
    const r = box(el);
    if (r.width === 0) return;  // the layout for the other width
    if (r.right > card.right || r.left < card.left) problems.push("past the card: " + el.getAttribute("class"));
  });
  texts.concat([...document.querySelectorAll(".timeline .tl-label, .timeline .tl-duration")]).forEach((el) => {
    if (parseFloat(getComputedStyle(el).fontSize) < 12) problems.push("small text: " + el.textContent.trim());
  });
  return problems;
}"""


def test_every_graph_node_shows_and_the_timeline_keeps_its_text_off_its_dots(
    sized_page, console_log, site, forked, looped, viewport
):
    # The forked review (three branches) and the looped run (the longest): every card in the window; on a
    # phone the graph is a list of its branches and steps instead (tests/browser/test_graph.py).
    for url, name in (
        (f"{site}/runs/{forked.review_run}/", "graph-forked"),
        (f"{site}/runs/{looped.run_id}/", "graph-looped"),
    ):
        sized_page.goto(url)
        if viewport.name == "phone":
            expect(sized_page.locator(".graph-list .gl-title").first).to_be_visible()
            assert sized_page.evaluate(PLACES_OUTSIDE) == []
            if name == "graph-forked":
                # A folded branch's row says where it stands, as the desktop's list does (friction61b 10); opened,
                # its rows say it, the heading no more.
                fold_id = sized_page.locator(".gl-fold:not([open])").first.get_attribute("id")
                folded = sized_page.locator(f"#{fold_id} > summary")
                stands = folded.locator(".gl-stands")
                expect(stands).to_be_visible()
                expect(stands).to_have_text(re.compile(r"^\S.* · step \d+ of \d+"))
                folded.click()
                expect(stands).to_be_hidden()
                # Where it split off too: its open body says it, the heading no more (said once).
                expect(folded.locator(".gl-from")).to_be_hidden()
                folded.click()
        else:
            expect(sized_page.locator("svg.run-graph a.graph-node").first).to_be_visible()
            assert sized_page.evaluate(CARDS_INSIDE) == []
        keep_screenshot(sized_page, name)
    # Each branch's tip says its branch's state in a word, and the legend says what each word means.
    states = sized_page.locator("svg.run-graph text.tag-text.state")
    expect(states).to_have_text(["Done", "Working"])
    # (the key behind the "?", there at both sizes; a desktop also draws it in one line in sight)
    expect(sized_page.locator(".graph-help .legend li strong")).to_have_text(["Done", "Working"])
    sized_page.goto(f"{site}/sessions/{forked.session_id}/#timeline")
    expect(sized_page.locator(".timeline .tl-dot >> visible=true").first).to_be_visible()
    assert sized_page.evaluate(TIMELINE_PROBLEMS) == []
    keep_screenshot(sized_page, "timeline")
    console_log.assert_clean()


def test_a_node_page(sized_page, console_log, site, forked):
    node = Node.objects.filter(run__public_id=forked.review_run).order_by("-depth").first()
    assert node is not None
    visit(sized_page, f"{site}/nodes/{node.public_id}/", "node")
    # The step's own state beside its name, in view: the branch's pending step, so the branch's state.
    expect(sized_page.locator(".page-head #step-state")).to_have_text("Agent's move · Working")
    expect(sized_page.locator("#step-state")).to_be_in_viewport()
    # Where the step stands is said once, by the crumb, not again under the head; the facts there (after,
    # run, created) flow as one line, on a phone too, not one line each.
    place = re.search(r"step \d+ of \d+", sized_page.locator(".crumbs").inner_text())
    # The crumbs are whole at both sizes: one cut short on a phone left a wide gap before its "/" (friction16b 8).
    phone = (sized_page.viewport_size or {})["width"] < 600
    middle = sized_page.locator(".crumbs a.crumb-mid")
    # On a phone the crumbs are one line, the way up to the step's branch (friction28a 13, 28b 11).
    up = sized_page.locator(".crumb-up a")
    if phone:
        expect(sized_page.locator(".crumbs")).to_be_hidden()
        # Named by the step's session, the ticket the agent is on, which the hidden crumbs named (friction60a 5);
        # the run's name once, in the facts' "run …" line.
        session = sized_page.locator(".crumbs a.crumb-mid").first.evaluate("a => a.textContent")
        expect(up).to_have_text(re.compile(rf"^← {re.escape(session)} \(branch \d+\)$"))
        run_name = sized_page.locator(".crumbs a.crumb-mid").nth(1).evaluate("a => a.textContent")
        assert session != run_name
        seen = sized_page.locator("main").inner_text()
        assert seen.count(run_name) == 1, seen
        assert "?tip=" in (up.get_attribute("href") or "")
        # The link one piece on one line, where the step stands after it (the heading does not say it).
        link = up.bounding_box()
        assert link and link["height"] < 30, link
        expect(sized_page.locator(".crumb-up .crumb-here")).to_have_text(re.compile(r"^ · step \d+ of \d+$"))
    else:
        expect(up).to_be_hidden()
    expect(middle).to_have_count(3)  # the session, the run, and on a forked run the step's branch
    expect(sized_page.locator("#crumb-branch")).to_have_text(re.compile(r"^branch \d+$"))
    for crumb in middle.all():
        name = crumb.evaluate("a => a.textContent")
        assert (crumb.get_attribute("title") or "").startswith(f"{name} ("), name
        assert not crumb.evaluate("a => a.scrollWidth > a.clientWidth + 1"), name
    # No "·" starts or ends a line of the page, at either size.
    assert separator_orphans(sized_page) == []
    expect(sized_page.locator("#node-place")).to_have_text(re.compile(r"step \d+ of \d+$"))
    # How long the agent has been at the step follows its words after a "·" on a desktop; on a phone it has its
    # own line, starting at the line's start, with no "·" leading it. "created" and its time are one piece.
    doing, lasted = sized_page.locator("#node-pending strong"), sized_page.locator("#node-pending .pending-for")
    expect(lasted).to_have_text(re.compile(r"^· for "))
    if phone:
        expect(lasted.locator(".sep")).to_be_hidden()
    else:
        expect(lasted.locator(".sep")).to_be_visible()
    lead, after = doing.bounding_box() or {}, lasted.bounding_box() or {}
    assert (
        (abs(after["x"] - lead["x"]) < 1 and after["y"] >= lead["y"] + lead["height"] - 1)
        if phone
        else (after["x"] > lead["x"] + lead["width"] and abs(after["y"] - lead["y"]) < 4)
    ), (lead, after)
    assert on_one_line(sized_page.locator("#node-facts li").filter(has_text="created").locator(".nowrap"))
    assert place is not None and place.group(0) not in sized_page.locator("#node-facts").inner_text()
    # The facts are one list style everywhere (friction17a 5): each fact wraps whole, set apart by a gap, as the
    # session's head sets its facts apart; no drawn "·" that a wrapped line could start with.
    style = (
        "ul => [getComputedStyle(ul).flexWrap,"
        " [...ul.children].some(li => getComputedStyle(li, '::before').content.includes('·'))]"
    )
    assert sized_page.locator("#node-facts").evaluate(style) == ["wrap", False]
    # A healthy node leads with its step, not with resuming it: while the agent works on the step, "Resume here"
    # is one quiet closed fold under the page's status, "Resume here · only if the agent stopped" (issue 32: not
    # a section heading), the message the quiet outline behind it (no second driver, friction16, 23a A6);
    # "Branch from here" follows what was recorded, branching with other context a fold of its own.
    recorded = sized_page.locator("#recorded-title").bounding_box()
    resume = sized_page.locator("#resume-here").bounding_box()
    branch = sized_page.locator("#branch-here").bounding_box()
    assert recorded is not None and resume is not None and branch is not None
    assert resume["y"] < recorded["y"] < branch["y"]
    expect(sized_page.locator("#resume-here-title, #branch-title")).to_have_text(["Resume here", "Branch from here"])
    expect(sized_page.locator("#resume-here > details > summary")).to_have_text(
        "Resume here · only if the agent stopped"
    )
    expect(sized_page.locator("#resume-message .copy-button")).to_have_class("copy-button copy-quiet")
    expect(sized_page.locator("#resume-message .copy-button")).to_be_hidden()
    expect(sized_page.locator("#resume-here .agent-message")).not_to_be_visible()
    # "Branch from here" is a quiet closed fold while the agent works on the step (friction59a 9: offered "too
    # easily"), small and grey; opened, branching with other context is a fold of its own.
    expect(sized_page.locator("#branch-here")).not_to_have_attribute("open", "")
    expect(sized_page.locator("#branch-here #fork-details > summary")).to_be_hidden()
    sized_page.locator("#branch-here > summary").click()
    expect(sized_page.locator("#branch-here #fork-details > summary")).to_be_visible()
    sized_page.locator("#branch-here > summary").click()
    # The card in people's words; the token, for the API, in a fold inside the message's.
    assert_plain_words(sized_page)
    sized_page.locator("#resume-message > summary").click()
    api = sized_page.locator("details.raw-token")
    expect(api.locator("summary")).to_have_text("For developers")
    api.locator("summary").click()
    expect(api).to_contain_text("stateToken")
    expect(sized_page.locator("#state-token")).to_be_visible()
    console_log.assert_clean()


def test_the_workflow_catalog_and_a_workflow(sized_page, console_log, site, service_catalog):
    # A session ran a workflow since removed from the catalog: the catalog says so under its count (friction19b
    # 17), in one muted line that fits. Made before any page opens.
    shipped = write_json(service_catalog["extra"] / "ship.json", workflow_doc("team.ship", name="Ship it"))
    start_workflow("team.ship", context={"sessionKey": "SHIP-1"})
    shipped.unlink()
    visit(sized_page, site + "/workflows/", "workflows")
    expect(sized_page.locator("#ran-elsewhere")).to_have_text(
        "Sessions here also ran a workflow not in this catalog: “Ship it”."
    )
    # The search's label names its box: beside it on a wide screen, on its line (it sat lower than the box);
    # above it on a phone.
    label = sized_page.locator("label[for=workflow-query]").bounding_box() or {}
    field = sized_page.locator("#workflow-query").bounding_box() or {}
    if (sized_page.viewport_size or {})["width"] >= 600:
        middle = lambda b: b["y"] + b["height"] / 2  # noqa: E731
        assert abs(middle(label) - middle(field)) < 2 and label["x"] < field["x"], (label, field)
    else:
        assert label["y"] + label["height"] <= field["y"], (label, field)
    # On a phone each row's copy button is the small secondary one (friction28b 18): a small box in a thumb's target.
    copy = sized_page.locator("table.catalog .row-start .copy-button").first
    small = copy.evaluate("b => getComputedStyle(b).fontSize")
    assert (small == "13.12px") == ((sized_page.viewport_size or {})["width"] < 600), small
    visit(sized_page, f"{site}/workflows/{REVIEW}/", "workflow")
    # What the agent checks, asks and keeps to, and the details, fold to their titles on a phone, the first
    # counting what it holds; open on a desktop (friction62a 8: the phone page ran to 4,000 px).
    folds = sized_page.locator("#before-starting, #workflow-details")
    expect(folds).to_have_count(2)
    phone = (sized_page.viewport_size or {})["width"] < 600
    summary = sized_page.locator("#before-starting > summary").inner_text().strip()
    assert summary == ("Before starting (3 preconditions, 4 questions, 6 rules)" if phone else "Before starting")
    for fold in folds.all():
        expect(fold.locator("ul, dl").first).to_be_visible(visible=not phone)
    if phone:
        height = sized_page.evaluate("document.documentElement.scrollHeight")
        assert height < 3000, height
        # A phone's bullet lists are indented by their bullet, not 40 px (friction28b 18).
        indents = sized_page.evaluate(
            "() => [...document.querySelectorAll('main ul, main ol')].filter((l) => l.checkVisibility()"
            " && getComputedStyle(l).listStyleType !== 'none').map((l) => parseFloat(getComputedStyle(l).paddingLeft))"
        )
        assert indents and max(indents) <= 20, indents
    # What a person needs first: the name, the description, how to start it, then the outline; About and the
    # rest below it.
    order = sized_page.evaluate(
        "() => [...document.querySelectorAll('main h1, main h2')].map(h => h.textContent.trim())"
    )
    assert order[1:4] == ["Start it", "Outline", "About"], order
    expect(sized_page.locator("#start-it .copy-button")).to_be_in_viewport()
    # The task is typed on the page and lands after "Task:" in the message copied (friction23a B1: copied as it
    # was, the message ended in an empty "Task:").
    message = sized_page.locator("#start-message")
    assert message.text_content().endswith("Task: "), message.text_content()
    # The box keeps the form's gap above the button (friction24a 6: they touched); while it is empty, a line
    # beside the button says the agent will ask (friction24b 7).
    box, button = (sized_page.locator(i).bounding_box() for i in ("#start-task", "#start-it .copy-button"))
    assert box and button and button["y"] - (box["y"] + box["height"]) >= 8, (box, button)
    hint = sized_page.locator("#start-it .task-empty")
    expect(hint).to_have_text("No task typed: the agent will ask you.")
    expect(hint).to_be_visible()
    sized_page.get_by_label("Your task").fill("add rate limiting to login")
    assert message.text_content().endswith("Task: add rate limiting to login"), message.text_content()
    expect(hint).to_be_hidden()
    sized_page.get_by_label("Your task").fill("")
    expect(hint).to_be_visible()
    sized_page.get_by_label("Your task").fill("add rate limiting to login")
    name = sized_page.locator("h1").inner_text()
    expect(sized_page.locator("section[aria-labelledby=about-title]")).not_to_contain_text(name)
    # The session head's mode words and features in plain words, not field names or ids (friction12 10).
    expect(sized_page.locator("#recommended-mode")).to_contain_text("Guided, balanced risk")
    expect(sized_page.locator(".feature-words")).to_contain_text("The agent delegates self-contained work")
    expect(sized_page.locator("main")).not_to_contain_text("wr.features.")
    expect(sized_page.locator("main")).not_to_contain_text("risk policy")
    # The outline's lines hang from the step's name: a loop's words and its steps start under the loop's name
    # (within a space's width), not under its number; the numbers line up in their own column.
    loop = sized_page.locator("ol.outline > li").filter(has=sized_page.locator(".loop-words")).first
    name_x = (loop.locator(":scope > .step-body > strong").bounding_box() or {})["x"]
    for inner in (loop.locator(".step-body > .loop-words").first, loop.locator(".step-body > ol.outline").first):
        assert abs(name_x - (inner.bounding_box() or {})["x"]) < 8, (name_x, inner.bounding_box())
    # friction22b A10: every line of a step, a wrapped note's second line too ("runs only if postComments / is
    # true" on a phone), starts under its title, never left of it under the number.
    left_of_title = sized_page.evaluate(
        """() => [...document.querySelectorAll('main ol.outline > li > .step-body')].flatMap(body => {
          const title = body.querySelector(':scope > strong').getBoundingClientRect().left;
          return [...body.children].flatMap(part => [...part.getClientRects()].map(r => [part.textContent, r.left]))
            .filter(([, left]) => left < title - 1).map(([text, left]) => [text.trim().slice(0, 40), left, title]);
        })"""
    )
    assert not left_of_title, left_of_title
    numbers_x = sized_page.evaluate(
        "() => [...document.querySelector('main ol.outline').children]"
        ".map(li => Math.round(li.querySelector(':scope > .step-no').getBoundingClientRect().x))"
    )
    assert len(set(numbers_x)) == 1, numbers_x
    console_log.assert_clean()


def test_timings_connect_import_and_the_error_page(sized_page, console_log, site, forked):
    now = datetime.now(UTC)
    tool_calls.save([Timed("continue_workflow", "ok", 12.5, now), Timed("start_workflow", "error", 1834.25, now)])
    visit(sized_page, site + "/timings/", "timings")
    expect(sized_page.locator("table").first).to_contain_text("continue_workflow")
    expect(sized_page.locator("section[aria-labelledby=recent-title] .badge")).to_have_text(["Server error", "OK"])
    # A call from before reasons were kept: plain words, no pointer to logs in the row (friction22b A3).
    expect(sized_page.locator(".recent-calls .outcome-words")).to_have_text(["Reason not recorded."])
    visit(sized_page, site + "/connect/", "connect")
    visit(sized_page, site + "/sessions/import", "import")
    console_log.assert_clean()
    visit(sized_page, site + "/runs/run_0000000000000000/", "not-found")  # its 404 is logged: not checked
    expect(sized_page.locator("h1")).to_be_visible()
    # Where to look instead: the sessions search, filled in with the id, and the lists; no URL pattern.
    lost = sized_page.locator("#lost-help")
    expect(lost.get_by_role("searchbox")).to_have_value("run_0000000000000000")
    expect(lost.get_by_role("link", name="all the sessions")).to_be_visible()
    expect(lost.get_by_role("link", name="workflow catalog")).to_be_visible()
    expect(sized_page.locator("main")).not_to_contain_text("<id>")
    lost.get_by_role("button", name="Search").click()
    sized_page.wait_for_load_state("networkidle")
    assert "q=run_0000000000000000" in sized_page.url
