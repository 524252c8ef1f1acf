"""A step's page offers what a person can do from it in two sections, always in this order and with these
titles whatever the step's state: "Resume here" (carry the branch on from this step: resume the agent, resend
a refused step, reply to a confirmation) and "Branch from here" (a new branch that redoes this step). Only the
line under each title changes (friction22a B1, 22b A1: five names for two actions read as five features). At
desktop (1440x900) and phone (390x844) size, each page fitting its window; the screenshots are kept for a person
to review (runs/readmodels/step_actions.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from runs.models import Node
from tests.browser.layout import PASTE_NEXT, assert_fold_mark_fits, separator_orphans, visible_text, visit
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review, node_id_of
from tests.support.mcp_calls import start_workflow
from tests.support.sample_session import advance

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

SECTIONS = ["Resume here", "Branch from here"]
# The titles as a person reads them, less a heading's clock ("Resume here · waiting for 5 min"): a section's
# heading, or a quiet fold's title (issue 32: "Resume here" while the agent works, "Branch from here" beside a
# confirmation).
TITLES = "els => els.map(h => h.firstChild.textContent.trim())"
TITLE = "#resume-here-title, #branch-title"
# Issue 32: one order on every state's page: "Resume here" under the status, before the prompt, "Branch from
# here" after the answer.
ORDER = ("#resume-here", "#prompt-card", "#recorded-title", "#branch-here")


def assert_order(page) -> None:
    """The sections in the one order every state's page has (issue 32), as a reader sees them, top to bottom."""
    boxes = [page.locator(sel).first.bounding_box() for sel in ORDER]
    assert all(boxes), boxes
    tops = [box["y"] for box in boxes if box]
    assert tops == sorted(tops), dict(zip(ORDER, tops, strict=True))


def assert_quiet_fold(page, summary: str, lines: int = 1) -> None:
    """A fold in an explanation's quiet weight (issue 32): small, grey, not bold, no card around it, one line
    (`lines`: "Branch from here"'s, which says when to use it, may take two on a phone)."""
    box = page.locator(summary).bounding_box()
    style = "e => [parseFloat(getComputedStyle(e).fontSize), Number(getComputedStyle(e).fontWeight)]"
    size, weight = page.locator(summary).evaluate(style)
    body = page.locator("main").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert box and box["height"] < 50 + 20 * (lines - 1) and size < body and weight < 600, (summary, box, size, weight)
    expect(page.locator(summary).locator("xpath=ancestor::*[contains(@class, 'card')]")).to_have_count(0)


def assert_sections(page, resume_line: str, first: str = "Resume here", *, folded: bool = False) -> None:
    """The two sections in their order, each titled once, the same titles in every state (friction22a B1) but
    a confirmation's (`first`, friction23a A3), the first leading with `resume_line`; nowhere a disclosure named
    after a question (friction22a B3). `folded`: the agent has the move, and "Resume here" is one closed fold
    under the page's status, its card collapsed to that one line under the same title (friction25a 4, 25b 2)."""
    assert page.locator(TITLE).evaluate_all(TITLES) == [first, *SECTIONS[1:]]
    expect(page.locator("#resume-here.step-actions-folded")).to_have_count(1 if folded else 0)
    if folded:  # issue 32: the agent's move, its fallback in the quiet weight, not a card's heading
        assert_quiet_fold(page, "#resume-here > details > summary")
    assert_order(page)
    expect(page.get_by_text(re.compile(r"Want it back\?|Agent stopped\?"))).to_have_count(0)
    # "Branch from here" the same in every state (friction62a 6: a card on done, stalled and left-behind pages, a
    # fold elsewhere): one quiet closed fold after the answer, its summary saying when to use it.
    assert_quiet_fold(page, "#branch-here > summary", lines=3)  # a refusal's says why, on a phone in three
    expect(page.locator("#branch-here")).not_to_have_attribute("open", re.compile(".*"))
    expect(page.locator("#branch-here > summary #branch-what")).to_be_visible()
    resume = page.locator("#resume-here").bounding_box()
    branch = page.locator("#branch-here").bounding_box()
    assert resume is not None and branch is not None and resume["y"] < branch["y"]
    expect(page.locator("#resume-here")).to_contain_text(resume_line)
    # Branching with edited context is always the second section's, never the first's, named by its outcome.
    # "new" where the step has no inputs to change (friction28b 13).
    expect(page.locator("#branch-here #fork-details > summary")).to_have_text(
        re.compile(r"^Redo with (changed|new) inputs$")
    )
    expect(page.locator("#resume-here #fork-details")).to_have_count(0)
    # No rule of which branch the run page shows, anywhere on a step page (friction24a 8).
    expect(page.get_by_text(re.compile("moved last"))).to_have_count(0)


def resume_button(page):
    """ "Resume here"'s copy button for the message, in sight without opening anything (friction15)."""
    button = page.locator("#resume-message .copy-button")
    expect(button).to_be_visible()
    return button


def quiet_message(page) -> None:
    """The move is not the person's: the message's button the quiet outline, in sight (friction16: not the page's
    loudest element while the agent works; friction22a B3: not behind a fold named after a question)."""
    expect(resume_button(page)).to_have_text("Copy the resume message")
    expect(resume_button(page)).to_have_class("copy-button copy-quiet")


def folded_message(page, summary: str) -> None:
    """The move is the agent's (it works on the step, or is to resend a refused one): the message waits behind a
    closed fold whose summary is the run page's words (friction23a A6, 23b 6: an open copy button beside
    "Agent working on this step" invited a second agent); opened, its button is the quiet outline."""
    fold = page.locator("#resume-here details#resume-message")
    expect(fold).not_to_have_attribute("open", re.compile(".*"))
    expect(fold.locator("> summary")).to_contain_text(summary)
    button = fold.locator(".copy-button")
    expect(button).to_be_hidden()
    fold.locator("> summary").click()
    expect(button).to_be_visible()
    expect(button).to_have_text("Copy the resume message")
    expect(button).to_have_class("copy-button copy-quiet")
    fold.locator("> summary").click()


def prompt_folds_on_a_phone(page) -> None:
    """The step's prompt folds to its title on a phone (friction16b 18), and reads open on a desktop."""
    prompt = page.locator("#prompt-card .prompt")
    if page.viewport_size["width"] <= 640:
        expect(prompt).to_be_hidden()
        # Its arrow before its title, as every fold's (friction17b 15), none after it.
        arrows = "s => [getComputedStyle(s, '::before').content, getComputedStyle(s, '::after').content]"
        assert page.locator("#prompt-card > summary").evaluate(arrows) == ['"" / ""', "none"]
        # The same drawn triangle as the folds', as tall as its heading's capitals (friction22a A6), and the
        # heading at an open card heading's size.
        assert_fold_mark_fits(page, "#prompt-card > summary", "main section.card > h2")
        page.locator("#prompt-card > summary").click()
        expect(prompt).to_be_visible()
        page.locator("#prompt-card > summary").click()
    else:
        expect(prompt).to_be_visible()


def test_every_step_page_with_actions_has_resume_here_then_branch_from_here(
    sized_page, console_log, site, service_catalog, settings
):
    settings.WORKRAIL_STALL_MINUTES = 30
    # Every session made before the first page opens: the live server reads while the test would write.
    start = start_workflow(made.PLAN, context={"sessionKey": "STEPS-1", "target": "staging"})
    answer = advance(start, "Clarified the goal.")
    blocked = blocked_review("STEPS-2")
    rewound = made.left_behind("STEPS-3")
    left = Node.objects.filter(run__public_id=rewound.run_id, children__isnull=True).order_by("pk").first()
    assert left is not None  # branch 1's tip, set aside by the rewind
    stalled = made.stalled("STEPS-5")
    # A running step: the agent is on it (the page's working line says so); the quiet message folded, for when it
    # stops (friction23a A6, 23b 6).
    visit(sized_page, f"{site}/nodes/{node_id_of(answer)}/", "step-actions-running")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    assert_sections(sized_page, "Resume here · only if the agent stopped", folded=True)
    folded_message(sized_page, "Resume here · only if the agent stopped")
    # One quiet line right under the page's status line, before the prompt (issue 32: not a section heading).
    pending, fold, prompt = (
        sized_page.locator(sel).bounding_box() for sel in ("#node-pending", "#resume-here", "#prompt-card")
    )
    assert pending and fold and prompt and pending["y"] < fold["y"] < prompt["y"] and fold["height"] < 50
    expect(sized_page.locator("#state-token")).to_be_hidden()
    expect(sized_page.locator("#resume-message .raw-token > summary")).to_have_text("For developers")
    prompt_folds_on_a_phone(sized_page)
    # A done step the run went on from: no "Resume here", one line in the head to where the run is now.
    visit(sized_page, f"{site}/nodes/{node_id_of(start)}/", "step-actions-done")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    expect(sized_page.locator(TITLE)).to_have_text(["Branch from here"])
    boxes = [sized_page.locator(sel).bounding_box() for sel in ORDER[1:]]  # no "Resume here": the rest in order
    assert all(boxes) and [b["y"] for b in boxes if b] == sorted(b["y"] for b in boxes if b), boxes
    # The agent works further on: what the new branch does to it (friction17a 3, 24b 1), said inside each opened
    # way beside its last control, not in the closed section (friction26b 7).
    branch = sized_page.locator("#branch-here")
    expect(branch.locator(".branch-warning")).to_have_count(2)
    expect(branch.locator(".branch-warning").first).to_be_hidden()
    expect(sized_page.locator("#branch-warning")).to_have_text(
        "Branch 2 becomes the run's line of work. Branch 1, where an agent works now, is kept in the history and "
        "marked Replaced: tell its agent, in its chat, to stop."
    )
    # One lead line, the step's inputs beside it, the mechanics folded (friction24a 7).
    expect(branch.locator("#branch-what")).to_have_text(
        "Redo this step as a new branch (branch 2), with the same or new inputs."
    )
    # The inputs as a small key/value list, not "key=value" text (friction28a 10).
    expect(branch.locator("#branch-inputs dt")).to_have_text(["target"])
    expect(branch.locator("#branch-inputs dd")).to_have_text(["staging"])
    expect(branch.locator("#branch-how > summary")).to_have_text("How branching works")
    expect(branch.locator("#branch-how p").first).to_be_hidden()
    # The section is short: its visible words, closed, under a third of what they were (friction24a 7).
    words = len(branch.inner_text().split())
    assert words <= 60, (words, branch.inner_text())
    now_at = sized_page.locator(".page-head #now-at a")
    expect(now_at).to_contain_text(re.compile(r"the run is now at \w[^·]* · step 2 of "))
    expect(sized_page.locator("#branch-here #fork-message > summary")).to_have_text("Redo with the same inputs")
    sized_page.locator("#branch-here > summary").click()  # the one quiet fold, opened
    # Each way is a disclosure row in the site's fold style (friction26a 13, 26b 8): no caret that reads as a
    # menu, no button's box; aria-expanded follows, and opened it shows the warning beside its last control.
    for way in ("#fork-message", "#fork-details"):
        summary = branch.locator(f"{way} > summary")
        expect(summary).to_have_attribute("aria-expanded", "false")
        assert summary.evaluate("s => getComputedStyle(s, '::after').content") in ("none", "normal", '""')
        assert summary.evaluate("s => getComputedStyle(s).display") == "list-item"  # the native ▸ marker
        summary.click()
        expect(summary).to_have_attribute("aria-expanded", "true")
        expect(branch.locator(f"{way} .branch-warning")).to_be_visible()
        summary.click()
        expect(summary).to_have_attribute("aria-expanded", "false")
    # A thumb's height on a phone (friction18a 14, friction18b 13), the page's own size of text.
    phone = (sized_page.viewport_size or {})["width"] < 600
    for way in ("#fork-message > summary", "#fork-details > summary"):
        box = sized_page.locator(f"#branch-here {way}").bounding_box()
        assert box is not None and box["height"] >= (40 if phone else 24), (way, box)
        size = sized_page.locator(f"#branch-here {way}").evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
        assert size >= 15, (way, size)
    # A blocked step: one entry for the message (friction16a 6), "Resume here"'s, right under the refusal, under
    # the title every state has (friction22a B1); the agent resends by itself, so the quiet outline behind the
    # run page's closed fold, its summary saying when it turns the person's move (friction23a A6).
    visit(sized_page, f"{site}/nodes/{blocked.node_id}/", "step-actions-blocked")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    assert_sections(sized_page, "Resume here · only if the agent stopped", folded=True)
    expect(sized_page.get_by_role("button", name="Copy the resume message", include_hidden=True)).to_have_count(1)
    folded_message(sized_page, "Resume here · only if the agent stopped")
    # When the move turns the person's, in sight in the refusal as on the run page, in its words, and only there
    # (friction60b 12: the step page had it only inside the closed fold).
    # the time's spaces no-break
    turns = re.compile(r"^It becomes your move\sin\s\d+\smin if no corrected answer comes\.\s*$")
    expect(sized_page.locator("#node-refusal .turns-line")).to_have_text(turns)
    expect(sized_page.get_by_text(re.compile(r"It becomes your move\sin"))).to_have_count(1)
    refusal, resume = (
        sized_page.locator("#node-refusal").bounding_box(),
        sized_page.locator("#resume-here").bounding_box(),
    )
    prompt = sized_page.locator("#prompt-card").bounding_box()
    assert refusal and resume and prompt and refusal["y"] < resume["y"] < prompt["y"]
    # Its refusal says there is nothing to do now; the quiet fold's own title says when it matters ("only if the
    # agent stopped"), with no second condition over it (friction59 S: "If the agent does not resend it:" said it
    # twice, once the fold was quiet).
    expect(sized_page.locator("#resume-here summary").first).to_contain_text("only if the agent stopped")
    expect(sized_page.get_by_text("If the agent does not resend it")).to_have_count(0)
    expect(sized_page.locator("#branch-what")).to_have_text(
        "Another way past the refusal: redo this step as a new branch (branch 2), with new inputs."
    )
    # What the new branch does to the branch whose agent is to resend, in the warning style (friction17b 12,
    # 24b 1), inside the opened way (friction26b 7).
    expect(sized_page.locator("#branch-warning.notice.warn")).to_have_text(
        "Branch 2 becomes the run's line of work. Branch 1, where an agent works now, is kept in the history and "
        "marked Replaced: tell its agent, in its chat, to stop."
    )
    expect(sized_page.locator("#branch-warning")).to_be_hidden()
    prompt_folds_on_a_phone(sized_page)
    # The latest step of a branch left behind: taken up again from here, by the quiet outline (nobody's move).
    visit(sized_page, f"{site}/nodes/{left.public_id}/", "step-actions-left-behind")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    # Each section's line says its outcome, so the two are told apart (friction24b 14).
    assert_sections(sized_page, "No agent works on this branch. Resuming continues branch 1 from this step, as it was.")
    # Going on as it was is resuming here: branching is with other inputs; the step has none, so "new" ones
    # (friction28b 13).
    expect(sized_page.locator("#branch-what")).to_have_text(
        "Redo this step as a new branch (branch 3), with new inputs."
    )
    # The agent works on another branch, which a branch started here replaces: said in the same sentence as on
    # every step (friction26a 3, 26b 1: one cause, one effect), inside the opened way.
    expect(sized_page.locator("#branch-warning")).to_have_text(
        "Branch 3 becomes the run's line of work. Branch 2, where an agent works now, is kept in the history and "
        "marked Replaced: tell its agent, in its chat, to stop."
    )
    # Its message is the quiet outline, in sight (friction22a B3; friction19b 15: a solid button invited reviving
    # the branch by accident), its lines, each on its own, saying which chat takes it: a new one, not branch 2's
    # (friction23b 7).
    what = sized_page.locator("#resume-what")
    assert what.inner_text().splitlines() == [
        "No agent works on this branch. Resuming continues branch 1 from this step, as it was.",
        "If you resume this branch, branch 2 keeps going too: two agents at once. Paste the message into a new chat.",
    ]
    quiet_message(sized_page)
    # What a redo below would do instead: under a quiet "What happens" fold after the button, closed (friction28b
    # 16: three consequence sentences before the button); small and grey, not the bold of an action's fold.
    happens = sized_page.locator("#resume-what-happens")
    expect(happens.locator("> summary")).to_have_text("What happens")
    expect(happens.locator("p")).to_be_hidden()
    happens.locator("> summary").click()
    expect(happens.locator("p")).to_have_text("A redo below would start branch 3 instead, and mark branch 2 Replaced.")
    weight = "e => getComputedStyle(e).fontWeight"
    assert int(happens.locator("> summary").evaluate(weight)) < 600
    assert int(sized_page.locator("#fork-details > summary").evaluate(weight)) >= 600
    # A stalled step, the person's move: "Resume here" in the same place as on every other state's page, in sight.
    visit(sized_page, f"{site}/nodes/{node_id_of(stalled.answer)}/", "step-actions-stalled")
    # Its line asks for the look the run page's stalled panel asks for, before the message (friction59a 11, 59b 10).
    assert_sections(
        sized_page,
        "Check the agent's chat first: if it is idle or gone, copy the message. The message sets the agent going"
        " again at this step, on this branch.",
    )
    expect(resume_button(sized_page)).to_have_text("Copy the resume message")
    # How long, as the run page says it, once (friction61b 13: the step page said only "Stalled").
    expect(sized_page.locator("#stalled-for")).to_have_text(re.compile(r"^· stalled for\s\d+\smin$"))
    assert visible_text(sized_page).count("stalled for") == 1
    console_log.assert_clean()


def test_a_step_waiting_for_the_person_gives_the_two_replies_to_copy(sized_page, console_log, site, service_catalog):
    waiting = made.waiting_for_user(service_catalog["extra"])
    sized_page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    # The run page's panel: the reply confirming leads, the one asking for changes is quiet (friction15).
    visit(sized_page, f"{site}/runs/{waiting.run_id}/", "needs-you-replies-run")
    panel = sized_page.locator(".state-panel.state-waiting_for_user")
    confirmed = panel.get_by_role("button", name="Copy “Confirmed” reply")
    changes = panel.get_by_role("button", name="Copy “Not yet: change…” reply")
    expect(confirmed).to_be_visible()
    expect(changes).to_have_class("copy-button copy-quiet")
    expect(panel).not_to_contain_text("no button")
    # Read, then decide (friction17): the notes to review above the two replies, as on the step's page.
    run_notes, run_button = panel.locator(".to-approve").bounding_box(), confirmed.bounding_box()
    assert run_notes and run_button and run_notes["y"] + run_notes["height"] <= run_button["y"]
    run_colours = panel.evaluate("el => [getComputedStyle(el).backgroundColor, getComputedStyle(el).borderLeftColor]")
    confirmed.click()
    expect(panel.get_by_text(PASTE_NEXT, exact=True)).to_be_visible()  # what comes next, said once (friction24b 10)
    expect(sized_page.locator("[data-copy-status]", has_text="Copied")).to_have_count(1)
    assert sized_page.evaluate("navigator.clipboard.readText()") == "Confirmed: go on with “Approve the plan”."
    # The step's own page leads with the decision (friction16b 1): "Your confirmation" before the prompt, what to
    # decide, the agent's latest notes to approve, then the two replies and "Why", the run page's (friction22b A9).
    visit(sized_page, f"{site}/nodes/{node_id_of(waiting.answer)}/", "needs-you-replies-step")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    reply = sized_page.locator("#resume-here")
    # Since when, said once, in its heading: no "Waiting for you" banner above it (friction21a 5, 21b 3).
    expect(reply.locator("h2")).to_have_text(re.compile(r"^Your confirmation · waiting for "))
    assert_sections(sized_page, "The agent is waiting for you to approve the plan.", first="Your confirmation")
    expect(sized_page.locator("#node-pending")).to_have_count(0)
    expect(reply.locator("#resume-what")).to_contain_text("The agent is waiting for you to approve the plan.")
    notes = reply.locator("#step-to-approve")
    expect(notes).to_be_visible()
    confirmed = reply.get_by_role("button", name="Copy “Confirmed” reply")
    expect(confirmed).to_be_visible()
    expect(reply.get_by_role("button", name="Copy “Not yet: change…” reply")).to_be_visible()
    box = {name: loc.bounding_box() for name, loc in {"reply": reply, "notes": notes, "button": confirmed}.items()}
    prompt = sized_page.locator("#prompt-card").bounding_box()
    assert all(box.values()) and prompt is not None
    assert box["reply"]["y"] < prompt["y"] and box["notes"]["y"] < box["button"]["y"]
    # In the run page's panel's colours: the person's move, alike on both pages.
    colours = "el => [getComputedStyle(el).backgroundColor, getComputedStyle(el).borderLeftColor]"
    assert reply.evaluate(colours) == run_colours
    # The same help as the run page's panel, in the same words (friction22b A9): no message the run page lacks.
    expect(reply.locator(".copy-button")).to_have_count(2)
    expect(reply.locator("#resume-why > summary")).to_have_text("Why")
    expect(reply.locator("#resume-why")).to_contain_text(
        "The workflow asks you to confirm this step before the agent goes on."
    )
    # Copied, the reply says what comes next, once, as on the run page and the hand-over (friction24b 10).
    confirmed.click()
    expect(reply.locator("[data-copy-status]")).to_have_text(PASTE_NEXT)
    expect(sized_page.locator("[data-copy-status]", has_text="Copied")).to_have_count(1)
    assert sized_page.evaluate("navigator.clipboard.readText()") == "Confirmed: go on with “Approve the plan”."
    # The branch warning follows the page's state (friction18a 1): the agent waits for the reply, it does not work.
    expect(sized_page.locator("#branch-warning")).to_have_text(
        "Branch 2 becomes the run's line of work. Branch 1, where an agent works now, is kept in the history and "
        "marked Replaced: tell its agent, in its chat, to stop."
    )
    # The notes are said once, under "Your confirmation" (friction17b 11); "Notes so far", which held only them,
    # is left out rather than say where they are (friction27a 14, 27b: it read as a placeholder); the line of
    # inputs stays, "none" for a step without any (friction26b 5).
    expect(sized_page.get_by_text("Planned it: two modules, one migration.")).to_have_count(1)
    expect(sized_page.locator("#recap-title")).to_have_count(0)
    expect(sized_page.locator("#branch-inputs")).to_have_text("Inputs now: none")
    # Nothing to change there: the form adds inputs (friction28b 13).
    # Issue 32: beside the confirmation, "Branch from here" is one quiet closed fold at the page's end, not a
    # section: reachable, its content unchanged once opened. Its summary says why branch rather than reply
    # (friction62a 6).
    assert_quiet_fold(sized_page, "#branch-here > summary", lines=2)
    expect(sized_page.locator("#branch-here")).not_to_have_attribute("open", re.compile(".*"))
    expect(sized_page.locator("#branch-here > summary #branch-what")).to_have_text(
        "Not a reply: redo this step as a new branch (branch 2), with new inputs."
    )
    sized_page.locator("#branch-here > summary").click()
    expect(sized_page.locator("#fork-details > summary")).to_have_text("Redo with new inputs")
    sized_page.locator("#branch-here > summary").click()
    console_log.assert_clean()


def test_a_step_with_no_possible_action_shows_neither_section(sized_page, console_log, site, service_catalog):
    canceled = made.canceled("STEPS-4")
    visit(sized_page, f"{site}/nodes/{node_id_of(canceled.answer)}/", "step-actions-canceled")
    expect(sized_page.locator(".page-head #step-state")).to_have_text("Canceled")
    expect(sized_page.locator(".step-actions")).to_have_count(0)
    # One sentence says why (friction15); the answer says when the run was canceled. In a box of its own under the
    # step's facts, at both sizes, not a line in the head that ran into the facts as one list (friction27a 9).
    note = sized_page.locator("#now-at")
    expect(note).to_have_text("Nothing can resume or branch from a canceled run.")
    expect(sized_page.locator(".page-head #now-at")).to_have_count(0)
    facts, box = sized_page.locator("#node-facts").bounding_box(), note.bounding_box()
    assert facts and box and box["y"] >= facts["y"] + facts["height"], (facts, box)
    # The gap above it is a card's, as under the facts on every other page: it never touches them (friction28a 6).
    card_gap = sized_page.locator("main section.card").first.evaluate("e => parseFloat(getComputedStyle(e).marginTop)")
    assert box["y"] - (facts["y"] + facts["height"]) >= card_gap - 1, (facts, box, card_gap)
    assert note.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
    assert separator_orphans(sized_page) == []
    expect(sized_page.locator("#recorded-title + ol .empty")).to_contain_text("Not answered: the run was canceled at ")
    console_log.assert_clean()
