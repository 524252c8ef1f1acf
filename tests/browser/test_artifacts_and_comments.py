"""Artifacts render as what they are, at desktop and phone size: "Copy comment" copies the review comment
the agent wrote (its mrComments entry), and a coding hand-off reads as sections, its files in a table
without empty columns."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.layout import PHONE, assert_fits, contrast, keep_screenshot
from tests.browser.timeline import assert_axis_reads
from tests.support.mcp_calls import ack_with_notes, start_workflow
from tests.support.sample_session import Built, two_runs_one_forked_twice

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

AGENT_COMMENT = "This builds the query from user input; could we pass `name` as a parameter instead?"
HANDOFF = {
    "kind": "wr.coding_handoff",
    "version": 1,
    "branchName": "feature/orders-paging",
    "keyDecisions": ["Page with a cursor, not an offset, so that new orders do not shift pages."],
    "knownLimitations": [],
    "testsAdded": ["tests/test_orders_paging.py"],
    "filesChanged": ["src/orders.py", "src/api/orders_view.py"],
    "correctedAssumptions": [{"assumed": "orders are few", "actual": "a shop has 2 million"}],
}


@pytest.fixture
def built(live_server, service_catalog) -> Built:
    return two_runs_one_forked_twice()


@pytest.fixture
def handed_off(live_server, service_catalog) -> str:
    start = start_workflow("wr.routine-focused_plan", context={"sessionKey": "HANDOFF-1"})
    ack_with_notes(start, "Clarified the goal; the coding is done.", [HANDOFF])
    return str(start["session"]["runId"])


def test_copy_comment_copies_the_agents_own_comment(sized_page, console_log, site, built, viewport):
    page = sized_page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    page.goto(f"{site}/runs/{built.review_run}/")
    page.wait_for_load_state("networkidle")
    # The branch's findings, open from the start at every size: one is critical (friction18a 24, 26b 18).
    expect(page.locator("#findings-fold")).to_have_attribute("open", "")
    if viewport == PHONE:  # the most severe, the rest a tap away (friction26b 18, 60b 9)
        page.locator("#more-findings > summary").click()
    findings = page.locator("section[aria-labelledby=findings-title] table.findings")
    expect(findings.get_by_role("button", name="Copy comment")).to_have_count(2)  # two of three have one
    expect(findings.get_by_text("The agent wrote no review comment for this finding.")).to_have_count(1)
    findings.get_by_role("button", name="Copy comment").first.click()
    expect(page.get_by_text("Copied.").first).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()").strip() == AGENT_COMMENT
    # Severities have their own scale: no pill wears a state pill's colour (amber is "your move", blue the
    # agent's), and each severity looks unlike the others (friction10 6).
    state_colours = page.evaluate(
        """() => ['needs_you', 'blocked', 'stalled', 'paused', 'running', 'done', 'canceled', 'left_behind']
             .flatMap(state => ['yours', 'agents', 'nobody'].flatMap(move => ['yours', move].map(tone => {
               const b = document.createElement('span'); b.className = 'badge state-' + state;
               b.dataset.move = move; b.dataset.tone = tone;
               document.body.append(b); const s = getComputedStyle(b); const c = [s.color, s.backgroundColor];
               b.remove(); return c; })))
             .flat()
             .filter(c => !['rgba(0, 0, 0, 0)', 'rgb(255, 255, 255)', getComputedStyle(document.body).color]
               .includes(c))"""  # white and the page's text colour (the amber pill's words): neutrals
    )
    pills = findings.locator(".sev").evaluate_all(
        "ps => ps.map(p => { const s = getComputedStyle(p); return [s.color, s.backgroundColor, s.fontWeight,"
        " getComputedStyle(p, '::before').content].join(' ') })"
    )
    assert len(set(pills)) == 3, pills  # critical, major, minor told apart
    for pill in findings.locator(".sev").all():
        drawn = pill.evaluate("p => [getComputedStyle(p).color, getComputedStyle(p).backgroundColor]")
        assert not set(drawn) & set(state_colours), (drawn, state_colours)
    # A graded meter, not a state chip (friction12 12): square corners where every state badge is a pill, a row of
    # marks filled to the grade, and a weight that falls with it, Critical the strongest and the only one filled.
    graded = findings.locator(".sev").evaluate_all(
        """ps => ps.map(p => { const s = getComputedStyle(p), b = getComputedStyle(p, '::before');
             return {grade: p.textContent.trim().toLowerCase(), radius: parseFloat(s.borderTopLeftRadius),
                     weight: Number(s.fontWeight), marks: b.content, fill: s.backgroundColor}; })"""
    )
    by_grade = {g["grade"]: g for g in graded}
    assert set(by_grade) == {"critical", "major", "minor"}, graded
    assert all(g["radius"] < 6 for g in graded), graded
    assert [by_grade[name]["marks"].count("■") for name in ("critical", "major", "minor")] == [3, 2, 1], graded
    assert by_grade["critical"]["weight"] > by_grade["major"]["weight"] > by_grade["minor"]["weight"], graded
    # Friction24b 17: one badge shape for every grade, each filled in a colour of its own, its words readable on
    # it (at least 4.5:1), so Major and Minor no longer read as plain text beside Critical's badge.
    fills = [by_grade[n]["fill"] for n in ("critical", "major", "minor")]
    assert "rgba(0, 0, 0, 0)" not in fills and len(set(fills)) == 3, graded
    for pill in findings.locator(".sev").all():
        ink, fill = pill.evaluate("p => [getComputedStyle(p).color, getComputedStyle(p).backgroundColor]")
        assert contrast(ink, fill) >= 4.5, (pill.text_content(), ink, fill)
    # Friction26b 15: the colours people expect of a severity, red for Critical, orange for Major, grey for Minor.
    rgb = {n: [int(v) for v in re.findall(r"\d+", by_grade[n]["fill"])[:3]] for n in ("critical", "major", "minor")}
    red, orange, grey = rgb["critical"], rgb["major"], rgb["minor"]
    assert red[0] > 2 * max(red[1], red[2]), rgb  # red: its green and blue low alike
    assert orange[0] > orange[1] > orange[2] and orange[1] > 2 * orange[2], rgb  # orange: green between
    assert max(grey) - min(grey) < 20, rgb  # grey: no hue
    findings.scroll_into_view_if_needed()
    keep_screenshot(page, "findings")
    assert_fits(page)
    console_log.assert_clean()


def test_a_coding_hand_off_reads_as_sections(sized_page, console_log, site, handed_off, viewport):
    page = sized_page
    page.goto(f"{site}/runs/{handed_off}/")
    page.wait_for_load_state("networkidle")
    assert_axis_reads(page)
    handoff = page.locator('#handoff-1 article.artifact[data-kind="wr.coding_handoff"]')
    # Its own titled section, not one of the "Other artifacts"; the step that recorded it said by its title,
    # the kind and step id in a fold for developers.
    # Named under the run's header, on the first screen: the link lands on it.
    produced = page.locator("#run-produced")
    expect(produced).to_be_in_viewport()
    expect(produced.get_by_role("link")).to_have_text(["coding hand-off", "changed files"])
    produced.get_by_role("link", name="coding hand-off").click()
    expect(page.locator("#handoff-1")).to_be_in_viewport()
    # The hand-off and its changed files come before the branch's steps.
    handoff_top, files_top, steps_top = (
        page.locator(i).bounding_box()["y"] for i in ("#handoff-1", "#files-title", "#steps-title")
    )
    assert handoff_top < files_top < steps_top, (handoff_top, files_top, steps_top)
    title = page.locator("section.handoff h2.artifact-title")
    expect(title).to_have_text("Coding hand-off from step “Clarify Goal and Constraints”")
    # Its kind and step id wait in the run's one drawer for developers, closed, right above: one "For
    # developers" above the steps (each step's record keeps its own), not a second one in the hand-off's card
    # (friction10 8).
    expect(handoff.locator("details")).to_have_count(0)
    above_steps = page.locator("main section:not([aria-labelledby=steps-title]) summary")
    # the run's one fold, named by what it holds (friction25b 9)
    expect(above_steps.filter(has_text="For developers: the run's ids, the hand-off's kinds")).to_have_count(1)
    ids = page.locator("#run-details")
    expect(ids.get_by_text("wr.coding_handoff")).not_to_be_visible()
    ids.locator("summary").click()
    expect(ids).to_contain_text("Coding hand-off: kind wr.coding_handoff, recorded by the step clarify-goal")
    ids.locator("summary").click()  # closed again, as a reader finds it
    # A run that never forked names no branch on its folded sections: there is no other to tell apart.
    # Its files have no risk to count them by: the folded line names them instead (friction12 15).
    expect(page.locator("#files-title")).to_have_text("2 changed files orders_view.py, orders.py")
    expect(page.locator("#files-title .fold-parts")).to_be_visible()
    expect(page.locator("#artifacts-title")).to_have_count(0)
    fields = handoff.locator("dl.artifact-fields")
    expect(fields.locator("dt")).to_have_text(
        ["Git branch", "Corrected assumptions", "Files changed", "Key decisions", "Known limitations", "Tests added"]
    )
    expect(fields.get_by_text("Assumed orders are few → actually a shop has 2 million")).to_be_visible()
    assert "{" not in handoff.inner_text()  # no raw JSON
    files = page.locator("section[aria-labelledby=files-title] table.changed-files")
    expect(files.locator("th")).to_have_text(["Path"])  # no empty Summary, no Risk full of dashes
    expect(files.locator("tbody tr")).to_have_count(2)
    # Its files are listed once, in the changed-files table: the hand-off counts them and points there.
    # (Under its step, folded, the step's own artifacts are said again as the step recorded them.)
    outside_steps = page.locator("main section:not([aria-labelledby=steps-title])")
    expect(outside_steps.get_by_text("src/orders.py", exact=True)).to_have_count(1)
    # It points there by the section's own heading, a link that opens it (friction24b 18).
    expect(fields.get_by_text("2 files, listed under 2 changed files")).to_be_visible()
    expect(page.locator("#files-title")).to_contain_text("2 changed files")
    expect(fields.get_by_role("link", name="2 changed files")).to_have_attribute("href", "#files-fold")
    expect(page.locator("details#files-fold")).to_have_count(1)  # folds.js opens it on a link into it
    # The step that recorded it keeps its "Artifacts" row in the steps list at every size, its step folded or
    # not on a phone (friction25b 3: it was inside the phone's fold).
    step_artifacts = page.locator("ol.steps li.step", has_text="Clarify Goal").locator("details.recorded-artifacts")
    expect(step_artifacts.locator(":scope > summary")).to_be_visible()
    handoff.scroll_into_view_if_needed()
    keep_screenshot(page, "handoff")
    assert_fits(page)
    console_log.assert_clean()
