"""The node page's fork form: a new branch with edited context and a reason, the page that hands over the
call for the agent, the reason on the run page, and the protections of every dashboard write (CSRF, the
loopback Host lock, the rate limit), with mistakes shown inline on the node page."""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from runs.models import Event, EventKind, Node
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.support.mcp_calls import ack, continue_workflow, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release


def between(page: str, start: str, end: str) -> str:
    at = page.index(start)
    return page[at : page.index(end, at)]


def status_line(page: str) -> str:
    """The run card's status line as read, its moment left out: "Your move · No agent yet Prepare · step 1
    of 5 · branch 2 · started by hand"."""
    line = between(page, 'id="run-status"', "</p>").split(">", 1)[1]
    return " ".join(re.sub(r"<time[^>]*>.*?</time>|<[^>]+>", " ", html.unescape(line)).split())


def call_token(page: str) -> str:
    call = json.loads(html.unescape(re.search(r'<pre id="agent-call"[^>]*>(.*?)</pre>', page, re.S).group(1)))
    return call["arguments"]["stateToken"]


pytestmark = pytest.mark.django_db


@pytest.fixture
def root(service_catalog) -> str:
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    ack(start)
    return str(tokens.parse(settings.WORKRAIL_HOME, start["stateToken"], TokenKind.STATE).id)


def edited(**changes) -> str:
    """The editor's text after a change: the context without its locked key (ticketId), edited."""
    context = {**{k: v for k, v in START_CONTEXT.items() if k != "ticketId"}, **changes}
    return json.dumps({k: v for k, v in context.items() if v is not None})


def confirmed(client: Client, root: str, context: str, reason: str):
    """The form's two submits: the preview (nothing recorded), then the confirmation it offers."""
    preview = client.post(f"/nodes/{root}/fork", {"context": context, "reason": reason})
    assert preview.status_code == 200 and 'id="fork-preview"' in preview.content.decode()
    return client.post(f"/nodes/{root}/fork", {"context": context, "reason": reason, "confirm": "1"})


def forks() -> int:
    return Event.objects.filter(kind=EventKind.OPERATOR_FORKED).count()


def test_the_node_page_offers_the_form_prefilled_with_the_context(client, root):
    page = client.get(f"/nodes/{root}/").content.decode()
    assert 'id="fork-details"' in page and f'action="/nodes/{root}/fork"' in page
    editor = html.unescape(re.search(r'<textarea id="fork-context"[^>]*>(.*?)</textarea>', page, re.S).group(1))
    assert json.loads(editor) == {"service": "billing", "target": "staging"}  # ticketId is shown beside, locked
    # Kept keys and loop variables are internal: folded shut under their own summary (friction13 item 13), not a
    # second "For developers" drawer (one per page).
    kept = between(page, '<details class="fork-kept fold-quiet" id="fork-kept">', "</details>")
    assert "<summary" in kept and '<dl class="fork-locked"' in kept
    # An explanation's quiet fold, after the form's button, not before the editor (friction28a 11); beside "How
    # branching works", not a fold inside the form's own fold (friction65a 8, 65b 4: three folds deep).
    assert page.index('id="fork-preview-button"') < page.index('id="fork-kept"') < page.index('id="branch-how"')
    redo_way = between(page, 'id="fork-details"', "</details>")
    assert "<details" not in redo_way and 'id="fork-reason"' in redo_way  # the whole form, no fold inside it
    locked = between(page, '<dl class="fork-locked"', "</dl>")
    assert '<dt class="mono">ticketId</dt><dd class="mono">&quot;REL-7&quot;</dd>' in locked
    assert "Redo with new inputs</summary>" in page and "fork…" not in page
    # The step's inputs beside the section's lead, locked keys aside (friction24a 7), as a small key/value list,
    # not "key=value" text (friction28a 10).
    inputs = between(page, 'id="branch-inputs"', "</dl>")
    assert (
        '<div><dt class="mono">service</dt><dd>billing</dd></div><div><dt class="mono">target</dt><dd>staging</dd>'
        in inputs
    )
    assert "=" not in re.sub(r"<[^>]+>", "", inputs.split(">", 1)[1]) and "ticketId" not in inputs
    assert 'name="csrfmiddlewaretoken"' in page
    assert '<details class="redo-way fold-action" id="fork-details">' in page  # closed until used


def test_forking_hands_over_the_call_and_the_run_page_shows_the_reason(client, root):
    response = confirmed(client, root, edited(target="production"), "Production, not staging.")
    assert response.status_code == 302
    child = Node.objects.get(parent__public_id=int(root), pending_step_id="prepare")
    assert response["Location"] == f"/nodes/{child.public_id}/#resume-here"
    page = html.unescape(client.get(response["Location"]).content.decode())
    assert "New branch started: the agent redoes Prepare with the inputs as edited." in page
    # The stateToken in the message to copy and in the raw call behind its disclosure, not again under "Resume".
    assert page.count(call_token(page)) == 2 and "Copy the resume message" in page
    # The hand-over is what "Resume here" holds on the new branch's step; branching again is the next section.
    assert (
        page.index(">Resume here</h2>") < page.index('class="fork-handover"') < page.index(">Branch from here</span>")
    )
    # The to-dos in order, numbered: stop the replaced branch's agent, then the message (friction25a 5).
    assert (
        '<ol class="handover-steps" id="handover-steps"><li>In branch 1\'s chat, tell its agent to stop.</li>'
        "<li>Paste this message into a chat (that one or a new one): it redoes the step on branch 2.</li></ol>"
    ) in page
    # The replaced branch's row says its state as the run page does (friction59a 3: grey here only read as another
    # state than the run page's orange "Your move · Replaced").
    others = page.split('id="other-branches"')[1].split("</details>")[0]
    assert ">Your move · Replaced</span>" in others
    assert '<q class="fork-reason">Production, not staging.</q> What changed' in page  # no second full stop
    assert 'target set to "production"' in page
    # Where and by whom it was started, the step's line of facts says, once: not again in the hand-over.
    handover = page.split('class="fork-handover"')[1].split("</div>")[0]
    assert "started by hand" not in handover and "in the dashboard" not in handover
    # One paste instruction: the to-do's; no line naming the chat that started the run, and the Copied line names
    # no chat (friction28a 1, 28b 1: three instructions in a row).
    whole = page.split('class="fork-handover"')[1].split('class="raw-call"')[0]
    assert "which-chat" not in whole and "started this run" not in whole
    assert "data-paste-into" not in whole
    facts = page.split('id="node-facts"')[1].split("</ul>")[0]
    assert "started by hand from" in facts and "in the dashboard" in facts
    call = json.loads(html.unescape(re.search(r'<pre id="agent-call"[^>]*>(.*?)</pre>', page, re.S).group(1)))
    assert call["tool"] == "continue_workflow" and set(call["arguments"]) == {"stateToken"}
    assert tokens.parse(settings.WORKRAIL_HOME, call["arguments"]["stateToken"], TokenKind.STATE).id == child.public_id
    assert continue_workflow(**call["arguments"])["runContext"]["target"] == "production"
    recorded = Event.objects.get(kind=EventKind.OPERATOR_FORKED).data
    assert recorded["via"] == "dashboard" and recorded["contextSet"] == {"target": "production"}

    run_page = client.get(f"/runs/{child.run.public_id}/?tip={child.public_id}").content.decode()
    assert "This branch was started by hand at" in run_page and "Production, not staging." in run_page
    assert re.search(r'at <a href="/nodes/\d+/"><span title="node \d+">Prepare</span> · step 1</a>', run_page)
    newest_other = client.get(f"/runs/{child.run.public_id}/?tip={child.parent.latest_child.public_id}")
    other = client.get(
        f"/runs/{child.run.public_id}/?tip={Node.objects.get(pending_step_id='deploy-staging').public_id}"
    )
    assert newest_other.status_code == 200
    assert "Production, not staging." not in other.content.decode()  # not on the original branch
    parent_page = client.get(f"/nodes/{root}/").content.decode()
    # One card says where the run went from here (friction62a 4); the redo is not a step after this one
    # (friction60a 2).
    assert '<h2 id="node-branch-title">Where it went</h2>' in parent_page
    # The branch started by hand here is a row of the card's one list, in the same shape, after the next step
    # (friction65a 13: its own "Redo on branch 2" card read as another kind of thing), saying how it was started.
    where = between(parent_page, 'id="where-next"', "</ol>")
    redo = between(where, 'id="redos"', "</li>")
    assert f'href="/nodes/{child.public_id}/"' in redo and ">started by hand</span>" in redo
    assert where.index('<li class="step">') < where.index('id="redos"')  # the step after this one comes first
    assert 'id="redos-title"' not in parent_page
    assert 'with edited inputs">started by hand</span>' in parent_page  # its meaning, its tooltip


@pytest.mark.parametrize(
    ("form", "code"),
    [
        ({"context": "{not json", "reason": "x"}, "CONTEXT_CHANGE_INVALID"),
        ({"context": "[1, 2]", "reason": "x"}, "CONTEXT_CHANGE_INVALID"),
        ({"context": edited(ticketId="OTHER-1"), "reason": "x"}, "CONTEXT_CHANGE_INVALID"),
        ({"context": edited(target="production"), "reason": "   "}, "INVALID_INPUT"),
    ],
)
def test_mistakes_show_inline_on_the_node_page_with_what_was_typed(client, root, form, code):
    response = client.post(f"/nodes/{root}/fork", {**form, "confirm": "1"})
    assert response.status_code == 200  # the node page again, as a form answers a mistake
    page = response.content.decode()
    assert 'id="fork-error"' in page and code in page
    error = between(page, 'id="fork-error"', "</div>")
    assert error.index("<strong>") < error.index(code)  # the message first, the code in small print
    # At the label of the field it is about, not above the whole form (friction65a 6): the inputs' editors right
    # under it, or "Why" right above it.
    if form["reason"].strip():
        assert page.index('id="fork-mode"') < page.index('id="fork-error"') < page.index('id="fork-editors"')
        assert 'aria-describedby="fork-error fork-context-help" aria-invalid="true"' in page
    else:
        assert page.index('id="fork-reason"') < page.index('id="fork-error"') < page.index('id="fork-preview-button"')
        assert 'aria-invalid="true" aria-describedby="fork-error"' in page
    assert '<details class="redo-way fold-action" id="fork-details" open>' in page
    assert 'id="recap-title"' in page  # the node page, not the error page
    assert html.escape(form["context"]) in page
    assert forks() == 0


def test_an_unknown_node_is_the_error_page_and_a_complete_node_has_no_form(client, root):
    assert client.post("/nodes/123/fork", {"context": "{}", "reason": "x"}).status_code == 404
    answer = start_workflow(RELEASE, context=START_CONTEXT)
    while answer["kind"] != "complete":
        answer = ack(answer)
    done = tokens.parse(settings.WORKRAIL_HOME, answer["stateToken"], TokenKind.STATE).id
    assert 'id="fork-details"' not in client.get(f"/nodes/{done}/").content.decode()
    response = client.post(f"/nodes/{done}/fork", {"context": "{}", "reason": "Redo."})
    assert response.status_code == 409 and "NODE_COMPLETE" in response.content.decode()
    assert client.get(f"/nodes/{root}/fork").status_code == 405
    assert forks() == 0


def test_a_post_without_the_csrf_token_or_from_a_foreign_host_is_refused(root):
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(f"/nodes/{root}/fork", {"context": "{}", "reason": "x"}).status_code == 403
    assert (
        Client().post(f"/nodes/{root}/fork", {"context": "{}", "reason": "x"}, HTTP_HOST="evil.example").status_code
        == 400
    )
    assert forks() == 0
    page = strict.get(f"/nodes/{root}/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    answer = strict.post(
        f"/nodes/{root}/fork", {"context": edited(), "reason": "x", "confirm": "1", "csrfmiddlewaretoken": token}
    )
    assert answer.status_code == 302 and forks() == 1


def test_the_rate_limit_shows_inline(client, root, settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 1
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 1
    assert confirmed(client, root, edited(), "One.").status_code == 302
    refused = client.post(f"/nodes/{root}/fork", {"context": edited(), "reason": "Two.", "confirm": "1"})
    assert refused.status_code == 200
    assert "RATE_LIMITED" in refused.content.decode() and 'id="fork-error"' in refused.content.decode()
    assert forks() == 1


def test_the_first_submit_shows_the_change_key_by_key_and_records_nothing(client, root):
    typed = json.dumps({"target": "production"})  # "service" deleted from the editor: it would be removed
    response = client.post(f"/nodes/{root}/fork", {"context": typed, "reason": "Production only."})
    assert response.status_code == 200 and forks() == 0
    page = html.unescape(response.content.decode())
    preview = between(page, 'id="fork-preview"', "</form>")
    assert '<li>target: "staging" → "production"</li>' in preview
    assert '<li>service: removed (was "billing")</li>' in preview
    assert "ticketId" not in preview  # kept as it is: not in the editor, not a change
    # At the form's end, where its button was, after the inputs and "Why" it previews (friction65a 8): the button
    # that records, then the form's own, now "Preview again" and quiet; no second "Preview the change".
    assert page.index('id="fork-context"') < page.index('id="fork-reason"') < page.index('id="fork-preview"')
    assert re.search(
        r'<button type="submit" class="primary" form="fork-confirm">Start the branch with this change</button>\s*'
        r"(?:\{#.*?#\}\s*)?<button type=\"submit\" id=\"fork-preview-button\">Preview again</button>",
        preview,
        re.S,
    )
    assert "Preview the change</button>" not in page
    confirm = between(page, 'id="fork-confirm"', "</form>")
    assert 'name="confirm" value="1"' in confirm
    sent = re.search(r'<input type="hidden" name="context" value="([^"]*)"', response.content.decode()).group(1)
    assert json.loads(html.unescape(sent)) == {"target": "production"}
    done = client.post(f"/nodes/{root}/fork", {"context": typed, "reason": "Production only.", "confirm": "1"})
    assert done.status_code == 302 and forks() == 1
    recorded = Event.objects.get(kind=EventKind.OPERATOR_FORKED).data
    assert recorded["contextSet"] == {"target": "production"} and recorded["contextRemoved"] == ["service"]


def test_a_locked_key_typed_into_the_editor_is_refused_at_the_preview(client, root):
    response = client.post(f"/nodes/{root}/fork", {"context": edited(ticketId="OTHER-1"), "reason": "x"})
    page = response.content.decode()
    assert 'id="fork-error"' in page and "names the session" in page and 'id="fork-preview"' not in page
    assert forks() == 0


def test_a_branch_started_by_hand_at_the_first_step_is_step_1_on_every_page(client, root):
    """The header, the recap and the run page tell the same story: the branch redoes Prepare, step 1, and
    nothing was recorded before it (the agent's recap is empty because the path holds no notes, not because
    the node is the run's start)."""
    assert confirmed(client, root, edited(target="production"), "Production.").status_code == 302
    child = Node.objects.get(parent__public_id=int(root), pending_step_id="prepare")
    page = client.get(f"/nodes/{child.public_id}/").content.decode()
    meta = " ".join(
        re.sub(r"<[^>]+>", "", between(page, '<ul class="meta node-facts" id="node-facts">', "</ul>")).split()
    )
    # Where the step stands, the crumb says: not again under the head.
    assert meta.startswith("Branch 2, started by hand from ") and "step 2" not in meta
    # Both branches named: the step it came from, of the same title, does not read as this page (friction18a 7).
    assert "started by hand from branch 1's Prepare (step 1 of 5) run" in meta and root[:8] not in meta  # no bare id
    assert meta.endswith("in the dashboard") and "risk" not in meta  # the server's default mode is not said
    recap = between(page, 'id="recap-title"', "</section>")
    assert "where the run started" not in recap
    assert "No notes were recorded on the way to this step" in recap and "empty recap" in recap
    assert (
        continue_workflow(stateToken=tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, child.public_id))["recap"][
            "entries"
        ]
        == []
    )  # what the page says the agent gets
    crumbs = between(page, '<p class="crumbs">', "</p>")
    assert ">REL-7</a>" in crumbs and "ses_" not in re.sub(r"<[^>]+>", "", crumbs)
    # The crumb names the node by its step; its id only in the tooltip, not read as part of its name.
    assert f'<span title="node {child.public_id}" id="node-place">Prepare · step 1 of 5</span>' in crumbs
    # A phone's one line of crumbs (friction28a 13): up to the step's branch, named with its session (friction60a
    # 5: the ticket the agent is on; the run's name is the "run …" fact under the heading), then the place.
    up = between(page, '<p class="crumb-up">', "</p>")
    assert up == (
        f'<p class="crumb-up"><a href="/runs/{child.run.public_id}/?tip={child.public_id}">'
        '<span aria-hidden="true">← </span>'
        'REL-7 (branch 2)</a><span class="crumb-here"> · step 1 of 5</span>'
    ), up
    run_page = client.get(f"/runs/{child.run.public_id}/?tip={child.public_id}").content.decode()
    words = " ".join(re.sub(r"<[^>]+>", "", run_page).split())
    # Reading the branch's token is not answering on it: no agent has taken the branch up yet, so it is paused,
    # the person's move, said once by its panel with the message to give.
    # branch 1's badge says it is left behind
    line = status_line(run_page)
    # How it came, then that no agent has it (friction18a 4: "no agent has had it for …" read backwards).
    assert line == "Your move · No agent yet Prepare · step 1 of 5 · branch 2 · started by hand", line
    assert "no agent has had it" not in words and "Agent working on" not in words, words
    # Branch 1's agent may still be at work: stop it first, then paste, the hand-over's order (friction60b 4).
    assert "tell its agent to stop; then copy the message and paste it into that chat or a new one" in words, words
    assert "Branch 2 open at step 2" not in words, words


def test_a_branch_started_by_hand_later_in_the_run_counts_the_steps_before_it(client, root):
    staged = Node.objects.get(pending_step_id="deploy-staging")
    response = confirmed(client, str(staged.public_id), edited(service="payments"), "Another service.")
    assert response.status_code == 302
    child = Node.objects.get(parent=staged)
    page = client.get(f"/nodes/{child.public_id}/").content.decode()
    meta = " ".join(
        re.sub(r"<[^>]+>", "", between(page, '<ul class="meta node-facts" id="node-facts">', "</ul>")).split()
    )
    assert "Deploy to staging · step 2 of 5" in between(page, '<p class="crumbs">', "</p>")
    # Started at the branch's latest step, it goes on on that branch: no branches to tell apart.
    assert meta.startswith("started by hand from Deploy to staging · step 2 of 5")
    assert "Did prepare." in between(page, 'id="recap-title"', "</section>")  # the path's notes are its history


def test_a_branch_set_aside_by_a_fork_started_by_hand_is_not_said_to_be_left_by_a_rewind(client, root):
    staged = Node.objects.get(pending_step_id="deploy-staging")  # branch 1's tip, left open
    assert confirmed(client, root, edited(target="production"), "Ship it.").status_code == 302
    run_page = client.get(f"/runs/{staged.run.public_id}/").content.decode()
    words = " ".join(re.sub(r"<[^>]+>", " ", html.unescape(run_page)).split())
    # Right after, the agent on branch 1 may still be working (friction19b 2): replaced, not "Left behind" (no
    # agent works on it) until the branch has been quiet as long as a run takes to stall. Nobody's move, a neutral
    # pill (friction22a B9: the person just took over, so "Agent's move" read wrong); its line says what to do.
    assert (
        "Replaced Branch 1 · Deploy to staging · step 2 of 5 · its agent may still be working: tell it in its chat"
        " to stop" in words
    ), words
    assert "Agent's move · Replaced" not in words and "Superseded" not in words
    assert "Your move · Replaced" in words  # the run page says whose move; only the hand-over's to-dos do there
    # The new branch's paused panel gives the hand-over's to-dos in their order: stop branch 1's agent first, then
    # paste (friction60b 4: it said only "paste it into a new chat").
    assert (
        "In branch 1's chat, tell its agent to stop; then copy the message and paste it into that chat or a new one:"
        " it picks up at this step, nothing lost." in words
    ), words
    # Its row in the other branches is grey-edged as nobody's move, not the blue of an open branch's agent.
    assert re.search(
        r'<li class="callout callout-\w+ replaced">\s*<button [^>]+><span title="A newer branch replaced', run_page
    )
    assert "Left behind" not in words.split("Timeline")[0], words
    quiet = timezone.now() - timedelta(minutes=settings.WORKRAIL_STALL_MINUTES, seconds=1)
    Node.objects.filter(pk=staged.pk).update(created_at=quiet)
    run_page = client.get(f"/runs/{staged.run.public_id}/").content.decode()
    words = " ".join(re.sub(r"<[^>]+>", " ", html.unescape(run_page)).split())
    assert "Replaced" not in words and "its agent may still be working" not in words, words
    # Why it was left behind is its own panel's, shown with it (its line beside branch 2 links its "Resume here").
    run_page = client.get(f"/runs/{staged.run.public_id}/?tip={staged.public_id}").content.decode()
    words = " ".join(re.sub(r"<[^>]+>", " ", html.unescape(run_page)).split())
    assert "left behind when branch 2 was started by hand" in words and "set aside" not in words, words
    # Nobody told the agent that was on branch 1 (friction16a 10): the page says it may still be at work there.
    said = "started by hand. An agent working here is not told: it may carry on in its chat until you tell it there"
    assert said in words and "by hand: no agent works on it any more" not in words, words
    assert "rewind" not in words and "went back" not in words  # one verb: branch


def test_a_branch_started_by_hand_is_where_the_agent_works_only_once_an_agent_answers_on_it(client, root):
    assert confirmed(client, root, edited(target="production"), "Ship it.").status_code == 302
    child = Node.objects.filter(parent__public_id=int(root)).order_by("-created_at", "-pk").first()
    assert child is not None

    def words() -> str:
        return " ".join(re.sub(r"<[^>]+>", " ", html.unescape(run_page())).split())

    def run_page() -> str:
        return client.get(f"/runs/{child.run.public_id}/").content.decode()

    before = words()
    assert status_line(run_page()).startswith("Your move · No agent yet") and "started by hand" in before, before
    assert "where the agent works" not in before
    attempt = child.attempts.get()
    home = settings.WORKRAIL_HOME
    continue_workflow(
        stateToken=tokens.mint(home, TokenKind.STATE, child.public_id),
        ackToken=tokens.mint(home, TokenKind.ACK, attempt.public_id),
        output={"notesMarkdown": "Prepared the production release."},
    )
    after = words()
    line = status_line(run_page())
    # The replaced branch 1's agent may still work: the line says the person's move (friction60a 7) in its ONE
    # pill, what to do after it, and where branch 2's agent works as a plain line, no second pill (friction62b 1).
    # Each names its branch, once: the pill branch 1, the line under it branch 2 (friction63a 4, 63b 5).
    assert line == (
        "Your move · Branch 1 replaced Tell its agent to stop Branch 2 · Deploy to production · step 3 of 5 · agent"
        " working"
    ), line
    card = run_page().split('id="run-status"', 1)[1].split("</p>", 1)[0]
    assert card.count('class="badge') == 1 and 'class="run-where run-other"' in card, card
    # Branch 1's row under it said the pill and the instruction again: the head said them (friction63a 4). It stays
    # listed, by its branch and step, the way to the branch the pill asks about (friction64b 1).
    page = run_page()
    head = page.split('id="run-status"', 1)[1].split('class="card run-graph-card"', 1)[0]
    assert "tell it in its chat to stop" not in head, head
    others = page.split('id="other-branches"', 1)[1].split("</details>", 1)[0]
    assert 'class="badge' not in others and "Branch 1 · Deploy to staging · step 2 of 5</a>" in others, others
    assert "Your move · No agent yet" not in after, after
    assert "Agent's move · Working" not in status_line(run_page()), after
    # The sessions list's row agrees: one pill, the person's, and its "Your move" filter counts it.
    listed = client.get("/").content.decode()
    row = listed.split('class="session-row"', 1)[1].split("</tr>", 1)[0]
    assert row.count('class="badge') == 1 and "Your move · Branch 1 replaced" in row, row
    assert "tell branch 1&#x27;s agent to stop" in row, row
    chips = listed.split('class="status-chips move-filters"')[1].split("</ul>", 1)[0]
    assert "Your move 1" in chips and "Agent&#x27;s move 0" in chips, chips


def test_a_replaced_branchs_step_page_says_what_the_run_page_says_to_do(client, root):
    # Round 64: the run page said "Tell its agent to stop" after the pill naming the replaced branch 1; branch 1's
    # step page had the pill but no such words. Both say it right after the pill, from one include.
    assert confirmed(client, root, edited(target="production"), "Ship it.").status_code == 302
    child = Node.objects.filter(parent__public_id=int(root)).order_by("-created_at", "-pk").first()
    assert child is not None
    home = settings.WORKRAIL_HOME
    continue_workflow(
        stateToken=tokens.mint(home, TokenKind.STATE, child.public_id),
        ackToken=tokens.mint(home, TokenKind.ACK, child.attempts.get().public_id),
        output={"notesMarkdown": "Prepared the production release."},
    )
    replaced = Node.objects.filter(parent__public_id=int(root)).exclude(pk=child.pk).get()

    def after_pill(text: str, start: str) -> str:
        return " ".join(re.sub(r"<[^>]+>", " ", html.unescape(text.split(start, 1)[1].split("</p>", 1)[0])).split())

    run = client.get(f"/runs/{child.run.public_id}/").content.decode()
    step = client.get(f"/nodes/{replaced.public_id}/").content.decode()
    also = '<span class="run-also" id="run-also">Tell its agent to stop</span>'
    assert also in run and also in step
    assert after_pill(step, 'data-live-region="step-state">').startswith("Your move · Replaced Tell its agent to stop")
    # The step of the branch at work says nothing of the kind.
    assert 'id="run-also"' not in client.get(f"/nodes/{child.public_id}/").content.decode()


def test_a_context_with_half_a_character_is_shown_as_a_mistake(client, root):
    response = client.post(f"/nodes/{root}/fork", {"context": '{"target": "\\ud800"}', "reason": "Ship it."})
    assert response.status_code in {200, 400}, response.status_code
    assert "lone surrogate" in html.unescape(response.content.decode())
    assert forks() == 0


def test_a_form_over_the_upload_limit_is_413_with_the_error_page(client, root):
    huge = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)
    response = client.post(f"/nodes/{root}/fork", {"context": huge, "reason": "Ship it."})
    assert response.status_code == 413
    assert "REQUEST_TOO_LARGE" in response.content.decode()
    assert forks() == 0


def test_the_sessions_list_offers_a_branch_started_by_hand_the_resume_message(client, root):
    # No agent has had a branch started by hand; its row's link gets the same message as every resume, in the same
    # words (friction62a 5: "get its message" read as another message).
    assert confirmed(client, root, edited(target="production"), "Ship it.").status_code == 302
    page = client.get("/").content.decode()
    row = between(page, '<div class="where-line"', "</div>")
    assert "started by hand" in html.unescape(row), row
    assert re.search(r'<a class="your-action" href="/runs/[^"#]+#paused-2">get the resume message</a>', row), row
    assert "get its message" not in page


def test_a_quoted_reason_ends_its_sentence_before_the_next_one(client, root):
    # friction62a 12: "“A narrower plan first” Started by bob (dashboard)." read as one sentence: a reason without
    # its own full stop gets one after the quote, on the run page and in the hand-over.
    response = confirmed(client, root, edited(target="production"), "Ship it")
    node_page = client.get(response["Location"]).content.decode()
    assert '<q class="fork-reason">Ship it</q>. What changed' in node_page
    child = Node.objects.get(parent__public_id=int(root), pending_step_id="prepare")
    run_page = client.get(f"/runs/{child.run.public_id}/").content.decode()
    assert '<q class="fork-reason">Ship it</q>.' in run_page


def test_a_branch_started_by_hand_at_the_next_step_is_its_own_row_where_it_went(client, root):
    # friction63a 5, 63b 3: a fork point's next step was named by every branch through its node ("Branches 1-2"),
    # while the graph draws a branch that redid that step on its own card. Started by hand there, it is its own
    # row, in the graph's words for that card, linking the step's redo card.
    staging = Node.objects.get(pending_step_id="deploy-staging")
    home = settings.WORKRAIL_HOME
    continue_workflow(  # answered: the step is no branch's last, so a branch started there is one of its own
        stateToken=tokens.mint(home, TokenKind.STATE, staging.public_id),
        ackToken=tokens.mint(home, TokenKind.ACK, staging.attempts.get().public_id),
        output={"notesMarkdown": "Deployed to staging."},
    )
    assert confirmed(client, str(staging.public_id), edited(target="production"), "Ship it.").status_code == 302
    page = client.get(f"/nodes/{root}/").content.decode()
    rows = [
        " ".join(re.sub(r"<[^>]+>", " ", html.unescape(h3)).split())
        for h3 in re.findall(r"<h3>(.*?)</h3>", between(page, 'id="where-next"', "</ol>"), re.S)
    ]
    assert rows == [
        "Branch 1 · Deploy to staging · step 2 of 5",
        "Branch 2 · Deploy to staging (started by hand) · step 2 of 5",
    ]
    assert f'href="/nodes/{staging.public_id}/#redos"' in between(page, 'class="step next-redone"', "</li>")
