"""A step's page offers what a person can do from it in two sections, always in this order and with these
titles: "Resume here" (carry the branch on from this step; "Your reply" on a step waiting for the person,
where it leads the page) and "Redo this step on a new branch" (a new branch from this step). A reviewer met a
card titled "Resume the agent" that held "Branch with edited context…" (friction14). At desktop (1440x900) and phone
(390x844) size, each page fitting its window; the screenshots are kept for a person to review
(runs/readmodels/step_actions.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from runs.models import Node
from tests.browser.layout import PASTE_NEXT, assert_fold_mark_fits, keep_screenshot, separator_orphans, visit
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review, node_id_of
from tests.support.mcp_calls import start_workflow
from tests.support.sample_session import advance

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows

SECTIONS = ["Resume here", "Redo this step on a new branch"]


def assert_sections(page, resume_line: str, one_line: bool = False) -> None:
    """The two sections in their order, each titled once, "Resume here" leading with `resume_line`; `one_line`:
    "Resume here" is only that folded line, no card nor heading around it (friction17b 11)."""
    expect(page.locator(".step-actions h2")).to_have_text(SECTIONS[1:] if one_line else SECTIONS)
    if one_line:
        expect(page.locator("#resume-here")).not_to_have_class(re.compile(r"\bcard\b"))
        expect(page.locator("#resume-here > *")).to_have_count(1)
        expect(page.locator("#resume-message > *")).to_have_count(1)  # the fold, "For developers" inside it
    resume = page.locator("#resume-here").bounding_box()
    branch = page.locator("#branch-here").bounding_box()
    assert resume is not None and branch is not None and resume["y"] < branch["y"]
    expect(page.locator("#resume-here")).to_contain_text(resume_line)
    # Branching with edited context is always the second section's, never the first's.
    expect(page.locator("#branch-here #fork-details > summary")).to_have_text("Change its context, then redo it…")
    expect(page.locator("#resume-here #fork-details")).to_have_count(0)


def resume_button(page):
    """ "Resume here"'s copy button for the message, in sight without opening anything (friction15)."""
    button = page.locator("#resume-message .copy-button")
    expect(button).to_be_visible()
    return button


def folded_message(page) -> None:
    """The agent has the move: the message behind a closed "Agent stopped? …", its button out of sight until
    opened (friction16: not the page's loudest element while the agent works)."""
    fold = page.locator("#resume-message details.agent-stopped")
    expect(fold).not_to_have_attribute("open", "")
    expect(fold.locator("> summary")).to_have_text("Agent stopped? Get the message that resumes it")
    expect(page.locator("#resume-message .copy-button")).to_be_hidden()
    fold.locator("> summary").click()
    expect(page.locator("#resume-message .copy-button")).to_have_text("Copy the message for the agent")
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
    start = start_workflow(made.PLAN, context={"sessionKey": "STEPS-1"})
    answer = advance(start, "Clarified the goal.")
    blocked = blocked_review("STEPS-2")
    rewound = made.left_behind("STEPS-3")
    left = Node.objects.filter(run__public_id=rewound.run_id, children__isnull=True).order_by("pk").first()
    assert left is not None  # branch 1's tip, set aside by the rewind
    # A running step: the agent is on it (the page's working line says so); the message folded, for when it stops.
    visit(sized_page, f"{site}/nodes/{node_id_of(answer)}/", "step-actions-running")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    assert_sections(sized_page, "Agent stopped? Get the message that resumes it", one_line=True)
    # That line is inside the step's "Agent working" banner, not floating between cards (friction18b 15).
    expect(sized_page.locator("#node-pending #resume-here")).to_have_count(1)
    folded_message(sized_page)
    expect(sized_page.locator("#resume-what")).to_have_count(0)
    expect(sized_page.locator("#state-token")).to_be_hidden()
    sized_page.locator("#resume-message details.agent-stopped > summary").click()
    expect(sized_page.locator("#resume-message details.agent-stopped .raw-token > summary")).to_have_text(
        "For developers"
    )
    prompt_folds_on_a_phone(sized_page)
    # A done step the run went on from: no "Resume here", one line in the head to where the run is now.
    visit(sized_page, f"{site}/nodes/{node_id_of(start)}/", "step-actions-done")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    expect(sized_page.locator(".step-actions h2")).to_have_text(["Redo this step on a new branch"])
    # The agent works on further on: the warning is here too, naming where (friction17a 3).
    expect(sized_page.locator("#branch-warning")).to_contain_text("An agent is working on “")
    now_at = sized_page.locator(".page-head #now-at a")
    expect(now_at).to_contain_text(re.compile(r"the run is now at \w[^·]* · step 2 of "))
    expect(sized_page.locator("#branch-here #fork-message > summary")).to_have_text(
        "Copy a message to redo it as it was…"
    )
    expect(sized_page.locator("#fork-message-what")).to_be_visible()
    expect(sized_page.locator("#fork-how")).to_be_visible()
    # Both ways are buttons of the page's own size, not chips that read as tags; a thumb's height on a phone
    # (friction18a 14, friction18b 13).
    phone = (sized_page.viewport_size or {})["width"] < 600
    for way in ("#fork-message > summary", "#fork-details > summary"):
        box = sized_page.locator(f"#branch-here {way}").bounding_box()
        assert box is not None and box["height"] >= (40 if phone else 30), (way, box)
        size = sized_page.locator(f"#branch-here {way}").evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
        assert size >= 15, (way, size)
    # A blocked step: one entry for the message, the refusal's panel's (friction16a 6): no "Resume here" repeating
    # it; the agent resends by itself, so the message waits in the panel's closed fold.
    visit(sized_page, f"{site}/nodes/{blocked.node_id}/", "step-actions-blocked")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    expect(sized_page.locator(".step-actions h2")).to_have_text(["Redo this step on a new branch"])
    expect(sized_page.get_by_role("button", name="Copy the message for the agent", include_hidden=True)).to_have_count(
        1
    )
    expect(sized_page.locator("#node-refusal details.if-stopped-fold")).not_to_have_attribute("open", "")
    expect(sized_page.locator("#branch-what")).to_have_text(
        "Another way past the refusal. Earlier steps and the other branches are kept. The run page shows "
        "whichever branch moved last."
    )
    # What branching does not do, on its own line in the warning style (friction17b 12); the agent is to resend
    # the step, not "working on" it beside "nothing for you to do now" (friction22a 5, 22b 1).
    expect(sized_page.locator("#branch-warning.notice.warn")).to_have_text(
        "The agent is to resend this step. Branching does not stop it: tell it in its chat to stop first."
    )
    prompt_folds_on_a_phone(sized_page)
    # The latest step of a branch left behind: taken up again from here, by the quiet outline (nobody's move).
    visit(sized_page, f"{site}/nodes/{left.public_id}/", "step-actions-left-behind")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    assert_sections(sized_page, "No agent works on this branch. Nothing to do, unless you want it back.")
    # The agent works on the newest branch: its step named here, where branching would leave it unaware.
    expect(sized_page.locator("#branch-warning")).to_contain_text("An agent is working on “")
    expect(sized_page.locator("#branch-warning")).to_contain_text(
        "(branch 2). Branching does not stop it: it goes on beside the new branch unless you tell it in its chat"
        " to stop."
    )
    # Its message waits behind "Want it back? …" (friction19b 15: in sight it invited reviving the branch by
    # accident), which says plainly that branch 2 goes on too.
    back = sized_page.locator("#resume-here details.want-back")
    expect(sized_page.locator("#resume-message .copy-button")).to_be_hidden()
    back.locator(":scope > summary").click()
    expect(back.locator(":scope > summary")).to_have_text("Want it back? Resume the agent…")
    expect(back).to_contain_text("Branch 2 keeps its agent: the two branches then go on at once")
    expect(resume_button(sized_page)).to_have_text("Copy the message for the agent")
    expect(resume_button(sized_page)).to_have_class("copy-button copy-quiet")
    keep_screenshot(sized_page, "step-actions-left-behind-open")
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
    expect(panel.get_by_text(PASTE_NEXT)).to_be_visible()
    assert sized_page.evaluate("navigator.clipboard.readText()") == "Confirmed: go on with “Approve the plan”."
    # The step's own page leads with the decision (friction16b 1): "Your reply" before the prompt, what to decide,
    # the agent's latest notes to approve, then the two replies; the message only behind "Agent stopped? …".
    visit(sized_page, f"{site}/nodes/{node_id_of(waiting.answer)}/", "needs-you-replies-step")
    assert separator_orphans(sized_page) == []  # no fact line starts with "·" (friction17a 5)
    reply = sized_page.locator("#resume-here")
    # Since when, said once, in its heading: no "Waiting for you" banner above it (friction21a 5, 21b 3).
    expect(reply.locator("h2")).to_have_text(re.compile(r"^Your reply · waiting for "))
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
    folded_message(sized_page)
    # The branch warning follows the page's state (friction18a 1): the agent waits for the reply, it does not work.
    expect(sized_page.locator("#branch-warning")).to_have_text(
        "The agent is waiting for your reply on this step."
        " Branching does not tell it: if you branch, tell it in its chat not to go on."
    )
    # The notes are said once, under "Your reply": "Notes so far", which held only them, is gone rather than left
    # pointing up to them (friction17b 11).
    expect(sized_page.get_by_text("Planned it: two modules, one migration.")).to_have_count(1)
    expect(sized_page.locator("#recap-title")).to_have_count(0)
    console_log.assert_clean()


def test_a_step_with_no_possible_action_shows_neither_section(sized_page, console_log, site, service_catalog):
    canceled = made.canceled("STEPS-4")
    visit(sized_page, f"{site}/nodes/{node_id_of(canceled.answer)}/", "step-actions-canceled")
    expect(sized_page.locator(".page-head #step-state")).to_have_text("Canceled")
    expect(sized_page.locator(".step-actions")).to_have_count(0)
    # One line in the head says why (friction15); the answer says when the run was canceled.
    # Beside the pill, with no "·" that would start a line on a phone (friction16a 15).
    expect(sized_page.locator(".page-head #now-at")).to_have_text("nothing can resume or branch from a canceled run")
    assert separator_orphans(sized_page) == []
    expect(sized_page.locator("#recorded-title + ol .empty")).to_contain_text("Not answered: the run was canceled at ")
    console_log.assert_clean()
