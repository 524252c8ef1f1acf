"""Issue 20 in a real browser: a forked merge-request review viewed on each of its branches (each shows
its own synthesis and findings, and the other branch as a labelled callout), and a blocked run (why,
the issues, what the agent must resend, since when) on the session, run and node pages."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser import screenshot
from tests.support.branched_review import BlockedReview, ForkedReview, blocked_review, forked_review, node_id_of

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


@pytest.fixture
def review(live_server, service_catalog) -> ForkedReview:
    return forked_review()


@pytest.fixture
def stuck(live_server, service_catalog) -> BlockedReview:
    return blocked_review()


# The one short line the run is said in (the session head, the run head and the sessions list agree).
SUMMARY = "Review storage · step 4 of 8 (area 2 of 2)"  # the step's name first, then the one locator
# The run card's status line opens with the place, the step's name after it (status_line.of_run).
# the name, the counters and the state, on one line (friction28b 5)
STATUS = "Review storage · step 4 of 8 (area 2 of 2) · branch 2 · agent working for "
STORY = "Branch 1 finished; branch 2 redoes part of it and is where the agent works now."
FULL = "step 4 of 8 (area 2 of 2) in “Review Each Focus Area”"  # the place whole: the line's tooltip (friction12 4)


def test_a_forked_review_on_each_branch(page, console_log, live_server, review):
    site = str(live_server.url)
    page.goto(f"{site}/sessions/")
    row = page.locator("tbody tr", has_text="MR-42")
    expect(row).to_contain_text(SUMMARY)  # where the newest branch, the agent's, stands
    expect(row.locator(".where-line a.where-link")).to_have_attribute("title", FULL)
    expect(row.locator(".badge")).to_have_text("Agent's move · Working")
    screenshot(page, "issue20-sessions-forked")

    # The newest branch (2, unfinished): none of branch 1's synthesis or findings, and branch 1 named.
    page.goto(f"{site}/runs/{review.run_id}/")
    expect(page.locator("#run-where")).to_contain_text(STATUS)  # said once, in the card's status line
    expect(page.locator("#run-where time")).to_have_count(1)  # the moment in the reader's own time
    expect(page.locator("#pending-step, #run-status-summary, #shown-branch")).to_have_count(0)
    expect(page.locator("#branch-story")).to_have_text(STORY)
    expect(page.locator("#synthesis-title")).to_have_count(0)
    expect(page.locator("#findings-title")).to_have_count(0)
    callout = page.locator(".branch-callouts li")
    expect(callout).to_have_count(1)
    expect(callout).to_contain_text("Branch 1 · Request changes, 1 critical finding")
    expect(callout.locator(".badge")).to_have_text("Done")
    # Branch 1 finished: canceling stops the one open branch, but it ends the whole run, and the button says so
    # (friction22a B5).
    expect(page.locator(".confirm summary")).to_have_text("Cancel run (all branches)…")  # friction28b 14
    expect(page.locator(".confirm-body")).to_contain_text("every branch of the run stops")
    # The shared step's card is one on the graph, but branch 2 answered it again after the rewind.
    # A footnote after this branch's answer, linking branch 1.
    note = page.locator(".answers-note")
    expect(note).to_have_text("↺ redone here; branch 1 had answered: 'Did list-changed-files.' →")
    expect(note.locator("a")).to_have_attribute("href", re.compile(rf"\?tip={review.done_tip}$"))
    after_answer = "n => !!(n.parentElement.querySelector('.notes').compareDocumentPosition(n) & 4)"
    assert note.evaluate(after_answer)  # after the step's own answer, not between the prompt and it
    screenshot(page, "issue20-run-branch-2")

    # Following the callout shows branch 1: its own synthesis, verdict and findings table; branch 2 named.
    callout.get_by_role("link").click()
    expect(page).to_have_url(re.compile(rf"\?tip={review.done_tip}$"))
    # One banner: the branch shown, in its state's word, then the way to branch 2, where the agent works
    # (friction24a 9); no second line, no row for branch 2, no story of how it came after branch 1.
    expect(page.locator("#shown-branch")).to_contain_text("Viewing branch 1 (done). Branch 2: Agent's move · ")
    expect(page.locator("#run-status, #branch-story, #other-branches")).to_have_count(0)
    expect(page.locator("#synthesis-title")).to_have_text("Summary of branch 1")
    expect(page.locator("#synthesis-verdict")).to_contain_text("Verdict: Request changes")
    # The verdict leads the line of what the branch produced, on the first screen.
    expect(page.locator("#run-produced a").first).to_have_text("verdict “Request changes”")
    expect(page.locator("#run-produced")).to_be_in_viewport()
    expect(page.locator("section[aria-labelledby=findings-title] table.findings")).to_contain_text(
        "SQL built from user input"
    )
    expect(page.locator("section[aria-labelledby=findings-title] table.findings .sev-critical")).to_have_count(1)
    # not a second row for it
    expect(page.locator("#shown-branch")).to_contain_text(f"Branch 2: Agent's move · Working {SUMMARY}")
    expect(page.locator(".answers-note")).to_contain_text("↺ redone on branch 2")
    expect(page.locator(".answers-note a")).to_have_attribute("href", re.compile(rf"\?tip={review.open_tip}$"))
    screenshot(page, "issue20-run-branch-1")

    # The session page of one run says it once, in the run card's status line (not in the head or a pending
    # line too; the runs list only names the run).
    page.goto(f"{site}/sessions/{review.session_id}/")
    expect(page.locator("#run-where")).to_contain_text(STATUS)
    expect(page.locator("#pending-step, #run-status-summary")).to_have_count(0)
    expect(page.locator("#session-run-lines")).to_have_count(0)
    expect(page.locator(".run-summary")).to_have_count(0)
    screenshot(page, "issue20-session-forked")

    # The node the fork grew from is on branch 1: branch 2 answered its step again, its own copy of it (r59).
    page.goto(f"{site}/nodes/{node_id_of(review.answers[1])}/")
    # Where branch 1 went from here, its next step and where it stands now, in one card (friction62a 4).
    expect(page.locator("#node-branch-title")).to_have_text("Where it went")
    # Branch 1's next step, then branch 2's redo of this step, with its answer, in the same list (friction61a 1,
    # 65a 13).
    expect(page.locator("#where-next > li")).to_have_count(2)
    expect(page.locator("#where-next > li#redos .via")).to_have_text("redid this step")
    expect(page.locator("#redos-title")).to_have_count(0)
    expect(page.locator("#branches-title")).to_have_count(0)
    # Only branch 1 went on from this step's card (friction60a 2: branch 2, from its own redo, was listed as
    # having gone on from here); where each stands now is one list (friction63a 5: two lists of branches), not
    # branch 2's, which only redid this step: its redo card says where it is now (friction64).
    expect(page.locator("#node-went-on")).to_have_text("Branch 1 now:")
    expect(page.locator("#node-branch ul.node-branches > li")).to_have_count(1)
    expect(page.locator("#redos #redo-now-2")).to_contain_text(re.compile(r"^Now: "))
    expect(page.locator("#node-branch .branch-callouts")).to_have_count(0)
    screenshot(page, "issue20-node-fork-point")
    page.wait_for_load_state("networkidle")
    console_log.assert_clean()


def test_a_blocked_run_says_why_what_to_resend_and_since_when(page, console_log, live_server, stuck):
    site = str(live_server.url)
    page.goto(f"{site}/sessions/{stuck.session_id}/")
    panel = page.locator(".blocked-panel")
    expect(panel).to_be_visible()
    expect(page.locator("#pending-step")).to_have_count(0)  # not an ordinary "Pending step" banner
    # The state, whose move and the step in the card's status line; the panel under it says what happens next,
    # what is wrong, and folds the call to give a stuck agent.
    expect(page.locator(".run-status .badge.state-blocked")).to_have_text("Agent's move · Retrying")
    expect(page.locator("#run-where")).to_have_text(
        re.compile(r"^Record the Changed Files · step 2 of \d+ · refused .+, the agent must resend it$")
    )
    expect(panel.locator("h3, .step-line, .verdict")).to_have_count(0)
    developers = page.locator("#run-details")  # the run's one fold for developers holds the call
    call = json.loads(developers.locator("pre.resend-call").text_content() or "")  # folded: read, not seen
    assert call["arguments"]["ackToken"] == stuck.refused["ackToken"]
    assert call["arguments"]["stateToken"] == stuck.refused["stateToken"]
    expect(page.locator("#run-where")).to_contain_text("refused ")
    issue = panel.locator("ul.blocked-issues li")
    expect(issue).to_have_count(1)
    expect(issue).to_have_text("The agent did not attach the list of changed files.")
    expect(issue).not_to_contain_text("pending.outputContract")
    # The code and the place in the answer are the developer's, in its fold (friction24a 11).
    expect(panel).not_to_contain_text("ARTIFACT_MISSING")
    expect(developers.locator("ul.issue-codes li")).to_have_text("ARTIFACT_MISSING at /output/artifacts")
    expect(developers.locator(".expected-artifact")).to_contain_text("changedFiles (a list; each: path, summary, risk)")
    expect(developers.locator("pre.expected-example")).to_contain_text('"risk": "M"')
    expect(developers.locator("ul.resend")).to_contain_text("output.artifacts (mr_review.changed_files)")
    expect(developers.locator("ul.resend")).to_contain_text("context.reviewAreas — also asked for by this step")
    # The refused answer too, under its subheading, before "For developers": one fold (friction22a B6).
    refused = developers.locator(".refused-answer")
    expect(panel.locator(".refused-answer")).to_have_count(0)
    expect(refused.locator(".markdown")).not_to_be_visible()
    developers.locator("> summary").click()
    expect(refused).to_contain_text("Listed the files in my head.")
    expect(developers.locator("h4.fold-sub")).to_have_text(["The refused answer", "For developers"])
    expect(page.locator("#session-run-lines")).to_have_count(0)  # one run: said in its card, not the head too
    # Badged once, in the status line: not in the session's head, nor on the runs column's one card.
    expect(page.locator(".badge.state-blocked")).to_have_count(1)
    expect(page.locator(".runs-nav .badge.state-blocked")).to_have_count(0)
    screenshot(page, "issue20-session-blocked")

    panel.get_by_role("link", name=re.compile("Open the refused step's page")).click()
    expect(page).to_have_url(re.compile(rf"/nodes/{stuck.node_id}/$"))
    # The node page shows the same panel inline (what is wrong, for the agent), with no link back to itself.
    refusal = page.locator("#node-refusal .blocked-panel")
    # What it takes said once, by "Why it was refused" under the verdict (friction61a 5, 61b 14).
    expect(refusal.locator(".verdict")).to_have_text(
        "Refused: the agent normally resends this step by itself; nothing for you to do now."
    )
    # The refusal said once (friction62b 7): the heading, then the countdown; not a lead line, nor "the branch
    # stays at this step until…" under it.
    expect(refusal.locator(".next-move")).to_have_count(0)
    expect(refusal).not_to_contain_text("The branch stays at this step")
    assert refusal.inner_text().count("nothing for you to do") == 1
    expect(refusal.locator(".blocked-issues")).to_contain_text("the list of changed files")
    assert refusal.inner_text().count("list of changed files") == 1
    expect(refusal.locator(".blocked-more .issue-codes")).to_contain_text("ARTIFACT_MISSING")  # folded
    expect(refusal.get_by_role("link", name=re.compile("Open the refused step's page"))).to_have_count(0)
    expect(page.locator("#recorded-title + ol")).to_have_text("Agent's answer: none accepted yet.")
    screenshot(page, "issue20-node-blocked")
    page.wait_for_load_state("networkidle")
    console_log.assert_clean()
