"""A step's page (node.html) says the step's own state in its header (runs/readmodels/step_state.py), tells how
its branches stand since as context, links each next step once, and offers one way to branch or resume."""

from __future__ import annotations

import html
import re

import pytest

from runs.models import Node
from tests.support import attention_sessions as made
from tests.support.branched_review import REVIEW, blocked_review, forked_review, node_id_of
from tests.support.mcp_calls import start_workflow
from tests.support.pages import page
from tests.support.sample_session import advance

BUTTON = "Copy the resume message"

pytestmark = pytest.mark.django_db


def between(html: str, start: str, end: str) -> str:
    return html.split(start, 1)[1].split(end, 1)[0]


def head(text: str) -> str:
    return text.split('class="page-head"')[1].split("</div>")[0]


def pill(text: str) -> str:
    found = re.search(r'class="badge state-(\w+)" data-move="\w+" id="step-state">([^<]+)</span>', head(text))
    assert found is not None, head(text)
    return f"{found.group(1)}:{found.group(2)}"


def test_each_step_s_header_says_its_own_state_and_its_branches_as_context(client, service_catalog):
    review = forked_review()
    # The shared first step was answered: Answered, though both branches that went on from it are not (round 64: a
    # step's "Done" read as the run's; runs and branches keep Done).
    first = page(client, f"/nodes/{node_id_of(review.answers[0])}/")
    assert pill(first) == "done:Answered"
    went_on = first.split('id="node-went-on"')[1].split("</ul>")[0]
    assert "Branches 1 and 2 now:" in went_on
    assert "state-running" in went_on and "state-done" in went_on
    # A step on the finished branch only: Answered, and its branch's Done said as where the branch is now.
    later = page(client, f"/nodes/{node_id_of(review.answers[3])}/")
    assert pill(later) == "done:Answered"
    assert 'popovertarget="means-done-nobody-step"' in head(later) and "The agent answered this step" in later
    # Branch 1 went on from here, branch 2 did not: one list of where each stands (friction63a 5: "Branch 1 now:"
    # then "Other branches of this run" were two lists of branches).
    assert "Branches 1 and 2 now:" in later and "Other branches of this run" not in later
    assert '<span id="run-now" data-live-region="run-now"></span>' in later  # the card says it, with branch 2
    # The newest branch's pending step carries its branch's state; its branch is not listed again beside it.
    tip = page(client, f"/nodes/{review.open_tip}/")
    assert pill(tip) == "running:Agent&#x27;s move · Working"
    assert 'class="node-branches"' not in tip and "This is the branch's latest step." in tip
    assert "Other branches of this run" in tip
    # The end of the finished branch: no answered step, the branch's Done.
    assert pill(page(client, f"/nodes/{review.done_tip}/")) == "done:Done"


def test_the_next_step_is_linked_once_and_its_card_does_not_repeat_its_tag_in_the_heading(client, service_catalog):
    review = forked_review()
    node = Node.objects.get(public_id=int(node_id_of(review.answers[2])))
    [child] = Node.objects.filter(parent=node)
    text = page(client, f"/nodes/{node.public_id}/")
    assert text.count(f'href="/nodes/{child.public_id}/"') == 1
    assert "led to" not in text
    # A run of several branches: the next step in the one "Where it went" card (friction62a 4), not a second card.
    assert '<h2 id="node-branch-title">Where it went</h2>' in text and 'id="branches-title"' not in text


def sections(text: str) -> dict[str, str]:
    """The step page's two sections of actions, by id: "resume-here" and "branch-here"."""
    return {name: text.split(f'id="{name}"')[1].split("</section>")[0] for name in ("resume-here", "branch-here")}


def test_a_step_the_run_went_on_from_says_why_resume_here_is_empty_and_offers_both_ways_to_branch(
    client, service_catalog
):
    review = forked_review()
    text = page(client, f"/nodes/{node_id_of(review.answers[2])}/")
    # Nothing resumes from a step the run went on from: no "Resume here" (friction15), one muted line in the head
    # says where the run is now, linking its latest step.
    assert ">Resume here</h2>" not in text and 'id="resume-here"' not in text
    assert text.count(">Branch from here</span>") == 1
    now_at = text.split('<span class="muted small now-at" id="now-at">')[1].split("</span>")[0]
    assert now_at == f'<a href="/nodes/{review.done_tip}/">branch 1 went on to its end →</a>'
    assert head(text).index('id="step-state"') < head(text).index('id="now-at"')
    branch = text.split('id="branch-here"')[1].split("</section>")[0]
    # Each action in its one phrase (actions.py): the message branches from this step with the context as it is
    # (not "resume", which only ever carries a branch on, friction13 2), the fold with edited context; each with
    # one line of what it does differently (friction15).
    assert "Start a new branch from here" not in text and "Resume the agent" not in branch
    # friction24a 7, 24b 13: two ways named by their outcome; friction26a 13, 26b 8: disclosure rows in the fold
    # style, not buttons with carets that read as menus.
    assert '<details class="resume-message redo-way fold-action" id="fork-message">' in branch
    assert '<summary aria-expanded="false">Redo with the same inputs</summary>' in branch
    assert (
        '<details class="redo-way fold-action" id="fork-details">' in branch and 'summary class="button"' not in branch
    )
    # friction26b 7: what the new branch does to the one at work is said inside each opened way, beside its last
    # control, not as a standing box in the closed section.
    ways = between(branch, '<details class="resume-message redo-way fold-action" id="fork-message">', 'id="branch-how"')
    closed = branch.replace(ways, "")
    assert "marked Replaced" not in closed and "notice warn" not in closed
    # Each way's outcome as it is: the message's branch starts when an agent answers again (a rewind: the branch
    # at work is left behind); the form's is started by hand and replaces it (outcomes._set_aside).
    same = between(branch, 'id="fork-message-warning">', "</p>")
    assert same.startswith("When an agent answers this step again, branch 3 becomes the run&#x27;s line of work")
    assert "is left behind: paste the message into its chat" in same and "Replaced" not in same
    form = between(branch, 'id="branch-warning">', "</p>")
    assert form.startswith("Branch 3 becomes the run&#x27;s line of work. Branch 2, where an agent works now,")
    assert branch.index('id="branch-warning"') < branch.index(">Preview the change</button>")
    # One lead line, its outcome; the step's inputs in one line, so "inputs" means something before the form.
    assert 'id="branch-what">Redo this step as a new branch (branch 3), with the same or new inputs.</span>' in branch
    assert 'id="branch-inputs"><span id="branch-inputs-title">Inputs now:</span><dl class="inputs-list"' in branch
    # The mechanics under one closed fold, after the buttons: when each way records the branch (friction19a 9),
    # said once; no line sits between a button and what it opens, and no rule of which branch the run page shows.
    how = branch.split('id="branch-how">')[1].split("</details>")[0]
    assert "How branching works</summary>" in how and "nothing is recorded until it answers this step again" in how
    assert "nothing is recorded until you confirm a preview of the change" in how
    assert 'id="fork-how"' not in branch and 'id="fork-message-what"' not in branch and 'id="fork-what"' not in text
    assert "moved last" not in text
    assert text.count(">Redo with new inputs</summary>") == 1
    # The pending step of a branch: "Resume here" resumes the agent, by the run page's button in sight; the branch
    # from this step is by hand only.
    resume, branch = sections(page(client, f"/nodes/{review.open_tip}/")).values()
    assert f'data-copy-target="node-message">{BUTTON}</button>' in resume
    # The agent is on it: the quiet outline, not the page's loudest button (friction16), behind the closed fold
    # the run page's message waits behind too (friction23a A6, 23b 6).
    assert 'class="copy-button copy-quiet" data-copy-target="node-message">' in resume
    assert resume.index('<details class="resume-message if-stopped-fold fold-quiet"') < resume.index("copy-button")
    assert "Redo with the same inputs" not in branch and 'id="fork-details"' in branch
    # Why the one way only (friction20a 3: the second button came and went without a word): the lead says
    # "with new inputs", the fold why.
    assert 'id="branch-what">Redo this step as a new branch (branch 3), with new inputs.</span>' in branch
    assert "this branch is kept" not in branch and "will read Replaced" not in branch  # friction25a 1, 25b 1
    assert "This branch is still at this step: going on with the same inputs is resuming it" in branch


def test_the_step_s_state_its_refusal_and_its_branches_follow_live_updates(client, service_catalog):
    review = forked_review()
    text = page(client, f"/nodes/{review.open_tip}/")
    # live.js replaces each [data-live-region]'s content when the session moves: the pill is in one, and so
    # is the box of branches (and a refusal, shown above it).
    pill_region = text.split('data-live-region="step-state">')[1].split("</span></span>")[0]
    assert 'id="step-state"' in pill_region
    branches = text.split('data-live-region="node-branches">')[1].split('data-live-region="node"')[0]
    assert 'id="node-branch"' in branches


def test_a_one_branch_run_says_where_it_stands_beside_its_name_not_in_a_card(client, service_catalog):
    start = start_workflow(REVIEW, context={"sessionKey": "MR-5", "changeRef": "MR !5"})
    advance(start, "Triaged.")
    text = page(client, f"/nodes/{node_id_of(start)}/")
    assert pill(text) == "done:Answered"
    now = text.split('data-live-region="run-now">')[1].split("</li>")[0]
    # The run's state by the pill every other page shows it with (friction65b 27: "the agent is working" here,
    # "Agent's move · Working" elsewhere), after the run's name in the facts, not in the head (friction25a 13).
    assert 'class="pill-tap"' in now and ">Agent&#x27;s move · Working</span>" in now, now
    assert head(text).count('class="badge') == 1  # the step's own pill alone
    assert 'id="node-branch"' not in text  # no card for one branch: the head said it
    # Nothing resumes here: no "Resume here", the head's one line says where the run is now (friction15).
    [latest] = Node.objects.filter(parent__public_id=int(node_id_of(start)))
    # Named as every row names a step, its name then its place: the place alone did not say which step.
    now_at = text.split('id="now-at">')[1].split("</span>")[0]
    assert now_at.startswith(f'<a href="/nodes/{latest.public_id}/">the run is now at ')
    assert re.search(r"the run is now at \w[^<·]* · step 2 of \d", now_at), now_at
    assert 'id="resume-here"' not in text
    # The run goes on and the page follows it ("the run is now at …"): it says it updates live, as every page
    # that does (friction28a 7); no agent's working line, which is its next step's.
    assert 'id="live-dot"' in head(text) and "data-live-version-url=" in text
    assert 'id="node-pending"' not in text
    # What a next step's tag means is its tooltip, not a legend of tags inside the card's sentence.
    card = text.split('id="branches-title"')[1].split("</section>")[0]
    # In plain words, not a monospace chip that reads as code (friction17b 16).
    assert '<span class="via muted small" title="the agent did this step and moved on">by the agent</span>' in card
    assert card.count('class="via ') == 1 and 'class="tag"' not in card


def test_a_steps_head_has_the_live_dot_while_its_run_goes_on_and_no_default_mode_line(client, service_catalog):
    start = start_workflow(REVIEW, context={"sessionKey": "MR-6", "changeRef": "MR !6"})
    text = page(client, f"/nodes/{node_id_of(start)}/")
    assert 'id="live-dot"' in head(text) and "This page updates by itself.</p>" not in text
    # The agent is on this step: the run page's working line, the same words and clock (friction13 item 14).
    # In the agent's colour, as its pill (chip_tone).
    line = text.split('<div class="pending" id="node-pending" data-tone="agents"><p class="pending-line">')[1]
    line = line.split("</p>")[0]
    lead = (
        '<strong>Agent working on this step</strong> <span class="nowrap pending-for"><span class="sep">· </span><time '
    )
    assert line.startswith(lead) and 'data-when="for"' in line
    # Short headings, their explanation a line under them (friction13 item 13).
    assert '<h2 id="recorded-title">Answer</h2>' in text and (
        '<li class="empty">Agent&#x27;s answer: not sent yet.</li>' in text
    )
    assert '<h2 id="recap-title">Notes so far</h2>' in text
    assert 'id="node-mode"' not in text  # the server's default mode is not said on every step
    assert "data-live-version-url=" in text  # the page still follows changes


def test_resume_here_says_the_message_is_for_when_the_agent_stops_while_it_works_on_the_step(
    client, service_catalog, settings
):
    settings.WORKRAIL_STALL_MINUTES = 30
    start = start_workflow(made.PLAN, context={"sessionKey": "FOLD-1"})
    answer = advance(start, "Clarified the goal.")
    url = f"/nodes/{node_id_of(answer)}/"
    # The agent works on this step now: the quiet outline (no second driver, friction16) behind a closed fold
    # whose summary is the run page's words for when it is for (friction23a A6, 23b 6), not "Agent stopped? …"
    # (friction22a B1, B3).
    text = page(client, url)
    resume, branch = sections(text).values()
    assert f'class="copy-button copy-quiet" data-copy-target="node-message">{BUTTON}</button>' in resume
    assert (
        '<details class="resume-message if-stopped-fold fold-quiet" id="resume-message">\n'
        '    <summary id="resume-what"><span id="resume-here-title">Resume here</span> · only if the agent stopped'
        "</summary>" in resume
    )
    assert resume.index('id="resume-what"') < resume.index(BUTTON) and "Agent stopped?" not in text
    # Issue 32: while the agent has the move, the title every state has on an explanation's quiet fold, not a
    # card's heading (it read as the page's main action), under the page's status, before the prompt.
    assert '<section class="step-actions step-actions-folded"' in text and "step-actions-line" not in text
    assert '<h2 id="resume-here-title">' not in text
    assert text.index('id="resume-here"') < text.index('id="prompt-card"')
    assert '<details class="redo-way fold-action" id="fork-details">' in branch  # the form, folded until used
    # Nothing recorded for the stall window: the person's move, said as such.
    made.quiet(start["session"]["runId"])
    resume = sections(page(client, url))["resume-here"]
    # What the message does; which chat takes it is the one line under its button (friction28b 1: said once).
    assert "The message sets the agent going again at this step, on this branch." in resume
    assert resume.count("a new one") == 1 and "new one works too." in resume
    assert f'class="copy-button" data-copy-target="node-message">{BUTTON}</button>' in resume
    assert "copy-quiet" not in resume  # the person's move: the solid button
    assert "if-stopped-fold" not in resume  # and in sight, not folded (friction23a A6)
    # A branch left behind: taken up again from here.
    rewound = made.left_behind()
    left = Node.objects.filter(run__public_id=rewound.run_id, children__isnull=True).order_by("pk").first()
    assert left is not None  # branch 1's tip, set aside by the rewind
    resume = sections(page(client, f"/nodes/{left.public_id}/"))["resume-here"]
    # The quiet button in sight, not behind "Want it back? …" (friction22a B3), its line saying what resuming does
    # (friction19b 15): branch 2 keeps its agent, both go on.
    # Its outcome first, set apart from branching's (friction24b 14); no rule of which branch the run page shows.
    assert (
        'id="resume-what">No agent works on this branch. Resuming continues branch 1 from this step, as it was.'
        "<br>If you resume this branch, branch 2 keeps going too: two agents at once. "
        "Paste the message into a new chat.</p>" in resume
    )
    # friction26a 3, 26b 1: why a redo differs; friction28b 16: under a quiet "What happens" fold at the card's
    # end, after the button, not a third sentence before it.
    happens = between(resume, 'id="resume-what-happens"', "</details>")
    assert "fold-quiet" in resume.split('id="resume-what-happens"')[0].rsplit("<details", 1)[1]
    assert "<summary>What happens</summary>" in happens
    assert "A redo below would start branch 3 instead, and mark branch 2 Replaced." in happens
    assert resume.index("copy-button") < resume.index('id="resume-what-happens"')
    assert "want-back" not in resume
    assert 'class="copy-button copy-quiet" data-copy-target="node-message">Copy the resume message<' in resume
    # friction27a 2: for a new chat, as its line says: the chat that started the run is not named under it.
    assert "which-chat" not in resume and "data-paste-into" not in resume
    assert resume.index('id="resume-what"') < resume.index("copy-button") and "if-stopped-fold" not in resume
    # Its Answer promises nothing: no agent works there (friction60a 11: "not sent yet" read as one coming).
    answer = page(client, f"/nodes/{left.public_id}/").split('<li class="empty">')[1].split("</li>")[0]
    assert answer == "Not answered: this branch was left behind."


def test_a_canceled_run_s_step_says_when_and_that_nothing_resumes_or_branches(client, service_catalog):
    canceled = made.canceled("CANCELED-STEP")
    text = page(client, f"/nodes/{node_id_of(canceled.answer)}/")
    # Not "Not answered yet." (it never will be), no sections, one sentence why (friction15), in its own box after
    # the step's facts, not in the head beside the pill (friction27a 9).
    assert '<li class="empty">Not answered: the run was canceled at <time ' in text
    assert 'id="resume-here"' not in text and 'id="branch-here"' not in text
    assert '<p class="ended-note" id="now-at">Nothing can resume or branch from a canceled run.</p>' in text
    assert text.index('id="node-facts"') < text.index('id="now-at"')
    assert 'id="now-at"' not in text.split('class="page-head"')[1].split("</div>")[0]
    notes = text.split('id="recap-title"')[1].split("</section>")[0]
    assert "resumes here" not in notes and "Notes recorded on the way to this step, oldest first." in notes


def test_a_steps_artifacts_read_as_the_run_page_says_them_their_json_in_one_closed_drawer(client, service_catalog):
    review = forked_review()
    at = next(a for a in review.answers if (a.get("pending") or {}).get("stepId") == "record-findings")
    text = page(client, f"/nodes/{node_id_of(at)}/")
    recorded = text.split('id="recorded-title"')[1].split("</section>")[0]
    # The findings as the run page's table: severity, the finding, and its comment column; no raw JSON in sight.
    table = recorded.split('<table class="findings">')[1].split("</table>")[0]
    assert "SQL built from user input" in table and 'class="badge sev sev-critical"' in table
    said, drawer = recorded.split('<details class="for-developers">', 1)
    assert '"kind": "mr_review.findings"' not in said and "&quot;kind&quot;" not in said
    # The JSON the agent sent waits in the one drawer for developers, closed.
    assert drawer.startswith('<summary class="small">For developers</summary>')
    assert "&quot;kind&quot;: &quot;mr_review.findings&quot;" in drawer
    assert recorded.count("For developers") == 1
    # The run page's steps render a step's artifacts the same way, folded under the step.
    run = page(client, f"/runs/{review.run_id}/?tip={review.done_tip}&steps=all")  # branch 1, with the findings
    steps = run.split('id="steps-title"')[1]
    assert '<table class="findings">' in steps and 'id="finding-comment-1"' not in steps


def test_the_steps_heading_names_a_branch_only_when_the_run_has_more_than_one(client, service_catalog):
    # A run that never forked has no "branch 1" to tell apart (friction9 item 9): its steps are just its steps.
    one = made.canceled("ONE-BRANCH")
    text = page(client, f"/runs/{one.run_id}/")
    assert '<h2 id="steps-title">Steps</h2>' in text and "(branch 1)" not in text
    # A run of two branches says which one its steps are on.
    two = made.left_behind("TWO-BRANCHES")
    assert '<h2 id="steps-title">Steps on this branch (branch 2)</h2>' in page(client, f"/runs/{two.run_id}/")


def test_a_steps_workflow_id_is_a_tooltip_not_a_tag_in_its_head_or_its_notes(client, service_catalog):
    start = start_workflow(made.PLAN, context={"sessionKey": "IDS-1"})
    answer = advance(start, "Clarified the goal.")
    text = page(client, f"/nodes/{node_id_of(answer)}/")
    # The step ids ("draft-plan", "clarify-goal") are a developer's: in the tooltips, never a tag in sight.
    assert '<h1 title="step draft-plan in the workflow">Draft Plan with Risks</h1>' in head(text)
    assert '<span class="tag"' not in head(text)
    notes = text.split('id="recap-title"')[1].split("</section>")[0]
    assert '<h3 title="step clarify-goal in the workflow">Clarify Goal and Constraints</h3>' in notes
    assert ">clarify-goal<" not in notes


def test_every_state_s_step_page_has_the_same_two_titles_and_no_fold_named_after_a_question(
    client, service_catalog, settings
):
    # friction22a B1, 22b A1: "Resume here" and "Branch from here", in that order, whatever the state: only the
    # line under each title changes; a step waiting for the person's confirmation says "Your confirmation"
    # (friction23a A3, 23b 1: nothing has stopped there). No "Want it back? …" nor "Agent stopped? …" (friction22a
    # B3), on the step pages nor on the run pages that offer the same (friction22b 13).
    settings.WORKRAIL_STALL_MINUTES = 30
    working = advance(start_workflow(made.PLAN, context={"sessionKey": "TITLES-1"}), "Clarified the goal.")
    stalled = made.stalled("TITLES-2")
    waiting = made.waiting_for_user(service_catalog["extra"], "TITLES-3")
    refused = blocked_review("TITLES-4")
    rewound = made.left_behind("TITLES-5")
    left = Node.objects.filter(run__public_id=rewound.run_id, children__isnull=True).order_by("pk").first()
    assert left is not None
    urls = {
        "running": f"/nodes/{node_id_of(working)}/",
        "stalled": f"/nodes/{node_id_of(stalled.answer)}/",
        "confirm": f"/nodes/{node_id_of(waiting.answer)}/",
        "refused": f"/nodes/{refused.node_id}/",
        "left behind": f"/nodes/{left.public_id}/",
    }
    for state, url in urls.items():
        text = page(client, url)
        titles = re.findall(r'id="(?:resume-here|branch)-title">([^<]+)', text)
        first = "Your confirmation" if state == "confirm" else "Resume here"
        # While the agent has the move (working, or to resend a refused step), "Resume here" is one quiet closed
        # fold under the same title (issue 32: a card with a heading read as the page's main action).
        assert [t.strip() for t in titles] == [first, "Branch from here"], (state, titles)
        assert ("step-actions-folded" in text) == (state in ("running", "refused")), state
        assert ("if-stopped-fold fold-quiet" in text) == (state in ("running", "refused")), state
        # Issue 32: one order in every state: "Resume here" before the prompt, "Branch from here" after the answer
        # (on a branch left behind both came after the answer).
        places = [text.index(f'id="{id_}"') for id_ in ("resume-here", "prompt-card", "recorded-title", "branch-here")]
        assert places == sorted(places), (state, places)
        # In every state (friction62a 6: a card on done, stalled and left-behind pages), "Branch from here" is one
        # quiet closed fold, not a section (issue 32, friction59a 9), its summary saying when to use it.
        folded_branch = '<details class="step-actions branch-folded fold-quiet" id="branch-here">'
        assert folded_branch in text and '<h2 id="branch-title">' not in text, state
        assert '<span class="sep"> · </span><span id="branch-what">' in text, state
        assert "Want it back?" not in text and "Agent stopped?" not in text, state
        # The folded "Resume here" says its own condition; no line over it says it again (friction59 S).
        assert "If the agent does not resend it" not in text, state
        if state == "refused":
            assert text.index('id="node-refusal"') < text.index('id="resume-here"')
    for run_page in (f"/runs/{rewound.run_id}/", f"/runs/{rewound.run_id}/?tip={left.public_id}"):
        text = page(client, run_page)
        assert "Want it back?" not in text and "Agent stopped?" not in text, run_page


def test_an_empty_answer_names_it_the_agents_and_why_it_is_not_sent(client, service_catalog, settings):
    # friction26b 12: "Answer: Not answered yet." on a step waiting for the person read as a box for them; the
    # line names the answer the agent's, and says why only where the person holds it up (step_state).
    settings.WORKRAIL_STALL_MINUTES = 30
    waiting = made.waiting_for_user(service_catalog["extra"], "EMPTY-1")
    stalled = made.stalled("EMPTY-2")

    def empty(url: str) -> str:
        return html.unescape(page(client, url).split('<li class="empty">')[1].split("</li>")[0])

    assert empty(f"/nodes/{node_id_of(waiting.answer)}/") == (
        "Agent's answer: not sent yet; it waits for your confirmation."
    )
    assert empty(f"/nodes/{node_id_of(stalled.answer)}/") == "Agent's answer: not sent yet."


def test_folds_come_in_two_weights_the_actions_bold_the_explanations_quiet_and_last(client, service_catalog):
    """friction28a 11, 28b 16: many folds of equal weight; an action's fold (a redo) is bold, an explanation's or a
    developer's ("For developers", "How branching works", "Why", "What happens") small and grey, each from one
    class per kind, and the quiet ones come after the actions of their section."""
    review = forked_review()
    branch = (
        page(client, f"/nodes/{node_id_of(review.answers[2])}/").split('id="branch-here"')[1].split("</section>")[0]
    )
    folds = re.findall(r'<details class="([^"]+)" id="([\w-]+)"', branch)
    weights = {name: ("fold-action" in c) - ("fold-quiet" in c) for c, name in folds}
    assert weights["fork-message"] == weights["fork-details"] == 1 and weights["branch-how"] == -1
    assert 'class="raw-token fold-quiet"><summary>For developers</summary>' in branch
    # The explanation of how branching works comes after both ways.
    assert branch.index('id="fork-details"') < branch.index('id="branch-how"')
    waiting = made.waiting_for_user(service_catalog["extra"])
    reply = sections(page(client, f"/nodes/{node_id_of(waiting.answer)}/"))["resume-here"]
    assert '<details class="panel-more fold-quiet" id="resume-why"><summary>Why</summary>' in reply
    assert reply.index("copy-button") < reply.index('id="resume-why"')


def test_a_checkpoint_saved_during_a_step_is_its_own_card_not_its_answer_nor_its_next_step(client, service_catalog):
    from tests.support.sample_session import two_runs_one_forked_twice

    built = two_runs_one_forked_twice()
    # Step 7: the agent saved a checkpoint during it, then answered it from the checkpoint's node.
    text = page(client, f"/nodes/{node_id_of(built.answers[6])}/")
    card = between(text, 'id="checkpoints"', "</section>")
    assert ">Checkpoint saved during this step</h2>" in card and "Checkpoint: halfway." in card
    assert ">This step from the checkpoint on →</a>" in card
    # friction62b 3: not under Answer, whose line says where the answer is, and no "Next step" naming the step.
    answer = between(text, 'id="recorded-title"', "</section>")
    assert "halfway" not in answer and "Checkpoint" not in answer
    assert "Answered after the checkpoint below: its page holds the answer." in answer
    assert 'id="branches-title"' not in text and ">checkpoint</span>" not in text
