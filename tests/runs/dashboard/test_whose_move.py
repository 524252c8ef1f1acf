"""Every state a person may act on says whose move it is (runs/readmodels/states.py, next_move): one label beside
its badge, whose move and the move itself in a few words ("Your move: confirm" beside Needs you, "Your move: restart
the agent" beside Blocked once the agent stopped), on the list's rows, the run cards and the page's head, once per
screen; and every page that sets an agent going hands over the same message behind the same button
(runs/readmodels/agent_message.py, templates/dashboard/_agent_message.html)."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import get_args

import pytest
from django.conf import settings
from django.db.models import F
from django.test import Client

from runs.contract.dashboard import StateName
from runs.models import Ack, Node, Run
from runs.readmodels import attention, states
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review, forked_review
from tests.support.mcp_calls import ack, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_attention_places")]

BUTTON = "Copy the message for the agent"
OLD_BUTTONS = ("Copy the sentence", "Copy stateToken", "Copy the call")


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def copied(text: str) -> list[str]:
    """What each "Copy the message for the agent" button of a page copies: the text of its target."""
    found = []
    for target in re.findall(r'data-copy-target="([^"]+)">' + BUTTON + "</button>", text):
        body = re.search(r'<pre class="wrap agent-message" id="' + re.escape(target) + r'">(.*?)</pre>', text, re.S)
        assert body is not None, target
        found.append(html.unescape(body.group(1)))
    return found


def token_of(message: str) -> int:
    token = re.search(r'stateToken "([^"]+)"', message)
    assert token is not None, message
    return tokens.parse(settings.WORKRAIL_HOME, token.group(1), TokenKind.STATE).id


def tags(text: str) -> list[str]:
    return re.findall(r'<span class="move state-\w+" data-move="(\w+)">', text)


def chip(text: str) -> str:
    """The one state chip in `text` (state_chip: the badge and the move, one pill); "" when it has none."""
    found = re.search(r'<span class="state-chip" data-move="\w+">.*?</span></span>', text, re.S)
    return found.group(0) if found else ""


def run_head(text: str) -> str:
    return text.split('class="run-head"')[1].split("</ul>")[0]


def page_head(text: str) -> str:
    return text.split('class="page-head"')[1].split("</div>")[0]


def test_every_state_has_a_move_and_one_case_reads_the_clock():
    assert set(states.MOVES) == set(get_args(StateName))
    assert [states.move(s) for s in ("needs_you", "paused", "stalled")] == ["yours", "yours", "yours"]
    assert [states.move(s) for s in ("running", "blocked")] == ["agents", "agents"]
    assert {states.move(s) for s in ("done", "canceled", "left_behind", "notes")} == {"nobody"}
    assert states.move("blocked", stopped=True) == "yours"  # the agent has stopped: restarting it is yours
    assert states.move("running", stopped=True) == "agents"  # a quiet running run is called stalled instead


def test_one_mapping_gives_every_state_its_label_in_its_own_colour():
    def said(state: str, move: states.Move, **kw: bool) -> tuple[str, str] | None:
        label = states.next_move(state, move, **kw)
        return (label.words, label.css) if label is not None else None

    usual = {state: said(state, states.move(state)) for state in states.MOVES}
    assert usual == {
        "needs_you": ("Your move: confirm", "move state-needs_you"),  # the action, not an echo of its badge
        "paused": ("Your move: resume the agent", "move state-paused"),  # no agent has it
        "stalled": ("Your move: resume the agent", "move state-stalled"),
        "running": ("Agent's move", "move state-running"),
        "blocked": ("Agent's move: resend the step", "move state-blocked"),
        **{state: None for state in ("left_behind", "done", "canceled", "notes")},
    }
    # Where the move is not the state's usual one, the label says the move, so that it never contradicts its badge.
    assert said("blocked", states.move("blocked", stopped=True)) == (
        "Your move: resume the agent",
        "move state-blocked",
    )
    assert said("blocked", "yours", held_by_you=True) == ("Your move: tell the agent", "move state-blocked")
    # Every move in one to three words, never its badge's word again.
    for (state, _why), action in states.MOVE_ACTIONS.items():
        assert 1 <= len(action.split()) <= 3 and states.label(state).lower() not in action, action
    assert states.YOUR_MOVE == "Your move" and states.YOUR_MOVE in states.YOUR_MOVE_MEANS


def test_the_one_chip_says_the_state_then_whose_move_and_the_move_each_once():
    # The badge and its label are one chip (friction9 item 2): after the state's own word, whose move (in words,
    # not by colour alone) and the move, in one pattern for every state (friction13 1).
    def chip(state: str, move: states.Move, **kw: bool) -> str:
        label = states.next_move(state, move, **kw)
        assert label is not None
        return label.chip_words

    assert chip("needs_you", "yours") == "your move: confirm"  # the same pattern as every other state
    assert chip("stalled", "yours") == chip("paused", "yours") == "your move: resume the agent"
    assert chip("running", "agents") == "agent's move"
    assert chip("blocked", "agents") == "agent's move: resend the step"
    assert chip("blocked", "yours") == "your move: resume the agent"  # the agent has stopped
    assert chip("blocked", "yours", held_by_you=True) == "your move: tell the agent"
    for state in states.MOVES:
        label = states.next_move(state, states.move(state))
        if label is not None:
            assert states.label(state).lower() not in label.chip_words, state


def test_a_narrow_chip_says_whose_move_alone():
    # A run card's chip (friction11 10): whose move, the move itself told in the page's body; every state alike.
    def short(state: str, move: states.Move) -> str:
        label = states.next_move(state, move)
        assert label is not None
        return label.short_words

    assert short("blocked", "agents") == "agent's move"
    assert short("blocked", "yours") == short("stalled", "yours") == "your move"
    assert short("needs_you", "yours") == "your move"


def test_each_row_of_the_sessions_list_says_whose_move_it_is(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    made.waiting_for_user(service_catalog["extra"], key="CONF-1")
    blocked_review("MR-77")
    made.stalled()
    made.canceled()
    start_workflow(made.PLAN, context={"sessionKey": "RUN-1"})
    text = page(client, "/sessions/")
    rows = {
        row.split('data-state="')[1].split('"')[0]: row.split('class="session-name"')[0]
        for row in text.split('<tr class="session-row')[1:]
    }
    assert {state: tags(cell) for state, cell in rows.items()} == {
        "needs_you": ["yours"],  # "Needs you · your move: confirm": the one pattern of every state
        "blocked": ["agents"],
        "stalled": ["yours"],
        "running": ["agents"],
        "canceled": [],
    }
    # One chip each: the state's badge, then whose move and the move, inside the same pill.
    assert '<span class="badge state-blocked">Blocked</span>' in chip(rows["blocked"])
    assert "agent&#x27;s move: resend the step</span>" in chip(rows["blocked"])
    assert "your move: resume the agent</span>" in chip(rows["stalled"])
    assert 'class="badge state-needs_you">Needs you</span>' in chip(rows["needs_you"])
    assert 'data-move="yours">your move: confirm</span>' in chip(rows["needs_you"])
    assert 'class="state-chip"' not in rows["canceled"]  # nobody's move: the badge alone
    # The "Your move" chip gathers the rows a person acts on: the one that needs them and the stalled one. Its
    # reasons below carry their counts, which add up to its total: the head says no number (friction13 1).
    assert 'class="badge chip-yours">Your move</span>' in text
    # Its reasons sit inside it as chips of the one chip system (the states always yours), each its state's own
    # badge and filter (friction12 6); Blocked, mostly the agent's retries, with the other states after it.
    umbrella = text.split('<li class="chip-umbrella"')[1].split("</ul></li>")[0]
    assert 'href="?status=needs_you"' in umbrella and 'href="?status=stalled"' in umbrella
    assert '<span class="badge state-needs_you">Needs you 1</span>' in umbrella
    assert '<span class="badge state-stalled">Stalled 1</span>' in umbrella
    assert "state-blocked" not in umbrella
    assert text.count('href="?status=needs_you"') == 1 and 'href="?status=blocked"' in text


def test_a_blocked_run_is_the_agents_move_until_it_stops_then_leads_with_the_message(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    stuck = blocked_review("MR-77")
    text = page(client, f"/runs/{stuck.run_id}/")
    panel = text.split('class="blocked-panel"')[1].split("</section>")[0]
    # Whose move, the chips of the page's head and the run's card say, not the run's header: the panel's heading
    # says what it takes, and the line under it names the step, once (friction9 item 2).
    assert tags(panel.split("</h3>")[0]) == [] and tags(page_head(text)) == ["agents"] and tags(run_head(text)) == []
    assert "agent&#x27;s move: resend the step</span>" in page_head(text)
    heading = panel.split("</h3>")[0]
    assert "Blocked: the agent must resend this step with the list of changed files." in heading
    assert "Record the Changed Files" not in heading
    read = re.sub(r"<pre.*?</pre>", "", panel, flags=re.S)  # the message for the agent is for the agent to read
    assert re.sub(r"<[^>]+>|\s+", " ", read).count("Record the Changed Files") == 1
    # The agent's move: the panel says it retries by itself; the message for the agent is folded, under when the
    # move turns the person's.
    before_folds = panel.split("<details")[0]
    assert "The agent was told what to fix and normally resends the step by itself" in before_folds
    assert BUTTON not in before_folds and "If the agent has stopped, copy the message" not in text
    fold = panel.split('<details class="if-stopped-fold" id="if-stopped-1">')[1].split("</details>")[0]
    assert "If the agent has stopped: the message to paste into its chat (yours if it has not retried by " in fold
    assert BUTTON in fold
    # That moment as a <time> the reader's browser puts on their clock, not "05:50 UTC" in the words.
    summary = fold.split("<summary", 1)[1].split("</summary>", 1)[0]
    assert '(yours if it has not retried by <time datetime="' in summary and "UTC)" not in summary
    listed = page(client, "/sessions/")
    assert "chip-yours" not in listed  # nobody's row says "Your move": no chip for people
    assert not any(old in text for old in OLD_BUTTONS)
    [message] = copied(text)
    assert token_of(message) == int(stuck.node_id) and "Record the Changed Files" in message
    # The raw call stays, folded, for people who drive the API: in the run's one "For developers" fold, beside
    # its ids, not in a second fold of the panel right above it.
    assert 'class="blocked-more"' not in panel
    fold = text.split('id="run-details"')[1].split("</details>")[0]
    assert 'id="resend-call-1"' in fold and f'id="run-id-{stuck.run_id}"' in fold
    card = text.split('id="run-title"')[1].split('id="run-facts"')
    assert card[0].count(">For developers</summary>") == 0  # the panel, before the run's facts
    assert card[1].split("</ul>\n")[0].count(">For developers</summary>") == 1

    # Nothing recorded for the stall window: the agent has stopped, and restarting it is the person's move.
    back = timedelta(minutes=45)
    run = Run.objects.get(public_id=stuck.run_id)
    made.quiet(stuck.run_id)
    Ack.objects.filter(node__run=run).update(created_at=F("created_at") - back)
    attention._KEPT.clear()  # the list keeps where each session is by its last event: none was recorded
    text = page(client, f"/runs/{stuck.run_id}/")
    panel = text.split('class="blocked-panel"')[1].split("</section>")[0]
    assert tags(panel.split("</h3>")[0]) == [] and tags(page_head(text)) == ["yours"] and tags(run_head(text)) == []
    assert "your move: resume the agent</span>" in page_head(text)
    # Its heading no longer says the agent must act: what is wrong, the step to give it again below.
    heading = panel.split("</h3>")[0]
    assert "must resend" not in heading and "Blocked: the agent did not attach the list of changed files." in heading
    # The person's move: the panel leads with the message and its button, before the refusal's details.
    # (the message's own text folded under its button, friction11 9, is not one of those folds)
    before_folds = re.sub(r'<details class="message-fold".*?</details>', "", panel, flags=re.S).split("<details")[0]
    assert 'id="if-stopped-1"' in before_folds and BUTTON in before_folds
    assert before_folds.index(BUTTON) < before_folds.index("Why it was refused")
    assert "has not tried again for 45 minutes" in before_folds
    # One run: its card in the runs column carries the same chip as the head above (friction9 item 12).
    card = text.split('class="runs-nav"')[1].split("</nav>")[0]
    assert tags(card) == ["yours"] and "your move</span>" in chip(card)  # narrow: the move in the body
    listed = page(client, "/sessions/")
    row = listed.split('data-state="blocked"')[1].split('class="session-name"')[0]
    assert tags(row) == ["yours"] and "your move: resume the agent</span>" in row  # the head's words
    # No reason chip holds it (Blocked, outside the frame, is mostly the agent's retries): the frame's head says
    # its total, and its link selects it, with every other session yours.
    umbrella = listed.split('<li class="chip-umbrella"')[1].split("</li>")[0]
    assert 'href="?status=yours"' in umbrella and 'class="badge chip-yours">Your move: 1</span>' in umbrella
    assert 'data-state="blocked"' in page(client, "/sessions/?status=yours")


def test_the_stalled_and_left_behind_panels_copy_the_same_message(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    stalled = made.stalled()
    text = page(client, f"/runs/{stalled.run_id}/")
    # Whose move, once: the page's head (a session of one run: not its run's header again).
    assert tags(page_head(text)) == ["yours"] and "your move: resume the agent</span>" in page_head(text)
    assert tags(run_head(text)) == []
    [message] = copied(text)
    assert message.startswith("Resume the WorkRail workflow: call continue_workflow with stateToken")
    assert "step 2 of 3 (" in message
    assert not any(old in text for old in OLD_BUTTONS)

    rewound = made.left_behind()
    text = page(client, f"/runs/{rewound.run_id}/")
    line = text.split('class="left-behind-line"')[1].split("</details>")[0]
    assert BUTTON in line and not tags(line)  # nobody's move: the branch is set aside
    [message] = copied(text)
    assert "step 3 of 3 (" in message
    # The live branch's pending step runs: the agent's move, said by the page's head, not the pending line.
    assert tags(text.split('id="pending-step"')[1].split("</p>")[0]) == [] and tags(page_head(text)) == ["agents"]


def test_a_needs_you_panel_leaves_whose_move_to_its_badge(client, service_catalog):
    waiting = made.waiting_for_user(service_catalog["extra"])
    text = page(client, f"/runs/{waiting.run_id}/")
    panel = text.split('class="state-panel state-waiting_for_user"')[1].split("</section>")[0]
    assert tags(panel.split("</h3>")[0]) == []
    assert BUTTON not in panel  # nothing to give the agent: the person answers in its chat


def test_a_node_page_and_a_branch_started_by_hand_copy_the_message_not_a_token_or_a_call(client, service_catalog):
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    ack(start)
    root = str(tokens.parse(settings.WORKRAIL_HOME, start["stateToken"], TokenKind.STATE).id)
    text = page(client, f"/nodes/{root}/")
    assert text.count(BUTTON) == 1 and not any(old in text for old in OLD_BUTTONS)
    [message] = copied(text)
    assert token_of(message) == int(root) and "Prepare" in message

    form = {"context": '{"service": "billing", "target": "production"}', "reason": "Production."}
    client.post(f"/nodes/{root}/fork", form)
    response = client.post(f"/nodes/{root}/fork", {**form, "confirm": "1"})
    child = Node.objects.get(parent__public_id=int(root), pending_step_id="prepare")
    text = page(client, response["Location"].split("#")[0])
    handover = text.split('class="fork-handover"')[1].split("</section>")[0]
    assert handover.count(BUTTON) == 1 and not any(old in text for old in OLD_BUTTONS)
    [message] = copied(text)
    assert token_of(message) == child.public_id
    # The raw call stays behind a disclosure, for people who drive the API.
    assert '<details class="raw-call">' in handover and 'id="agent-call"' in handover
    assert "Give it the message below to go on." in text
    # Its branch, which no agent has taken up yet, waits at this step: paused, the person's move; the branch
    # it set aside is nobody's.
    head = text.split('class="page-head"')[1].split("</div>")[0]
    assert (
        tags(head) == ["yours"]
        and 'class="badge state-paused"' in head
        and "state-running" not in head
        and "your move: resume the agent" in head
    )
    assert 'class="node-branches"' not in text  # no branch went on past it yet
    # On the run page, nobody has taken the branch up yet: paused, the person's move, with the same message
    # in its panel, said once.
    run_page = page(client, f"/runs/{child.run.public_id}/")
    panel = run_page.split('class="state-panel state-paused"')[1].split("</section>")[0]
    assert tags(page_head(run_page)) == ["yours"] and BUTTON in panel
    assert "started by hand at" in panel and "Agent working on" not in run_page
    assert "your move: resume the agent" in page_head(run_page)
    assert token_of(copied(run_page)[0]) == child.public_id  # then the branch it set aside, folded
    # The list's chip for people counts it, as its row's tag says.
    listed = page(client, "/sessions/")
    assert tags(listed.split('<tr class="session-row')[1].split('class="session-name"')[0]) == ["yours"]
    assert 'class="badge chip-yours">Your move</span>' in listed  # its reason chip says the count
    assert '<span class="badge state-paused">Paused 1</span>' in listed


def test_with_several_runs_each_card_says_its_state_and_whose_move(client, service_catalog):
    first = start_workflow(made.PLAN, context={"sessionKey": "MR-77"})
    blocked_review("MR-77")
    text = page(client, f"/sessions/{first['session']['sessionId']}/")
    # Running, then blocked: every card badges its run's state and says whose move, every time; the head says
    # the most urgent one's, in the same words as its card; the shown run's header not again beside its card.
    cards = text.split('class="runs-nav"')[1].split("</nav>")[0]
    assert tags(cards) == ["agents", "agents"] and cards.count('class="badge state-') == 2
    assert 'class="badge state-running"' in cards and 'class="badge state-blocked"' in cards
    assert 'id="session-run-lines"' not in text
    said = "agent&#x27;s move: resend the step</span>"
    assert tags(page_head(text)) == ["agents"] and said in page_head(text) and "agent&#x27;s move</span>" in cards
    assert tags(run_head(text)) == []


def test_a_node_page_offers_resuming_after_its_step_and_never_at_the_end_of_a_finished_branch(client, service_catalog):
    review = forked_review()
    done = page(client, f"/nodes/{review.done_tip}/")
    # Nothing left to resume or branch from: neither section.
    assert BUTTON not in done and 'id="resume-here"' not in done and 'id="branch-here"' not in done
    open_tip = page(client, f"/nodes/{review.open_tip}/")
    # After the step's own content, "Resume here" with its message folded (the agent is on the step: it is
    # for when it stops), then "Branch from here" with the other way, editing the context, folded.
    assert (
        open_tip.index('id="recorded-title"') < open_tip.index('id="resume-here"') < open_tip.index('id="branch-here"')
    )
    resume = open_tip.split('id="resume-here"')[1].split("</section>")[0]
    assert '<h2 id="resume-here-title">Resume here</h2>' in resume and 'id="fork-details"' not in resume
    assert ">Resume the agent if it has stopped: the message</summary>" in resume
    assert resume.index('<details class="resume-message"') < resume.index(BUTTON)
    branch = open_tip.split('id="branch-here"')[1].split("</section>")[0]
    assert '<h2 id="branch-title">Branch from here</h2>' in branch and 'id="fork-details"' in branch


def test_a_rows_other_run_is_named_as_a_run_with_its_state_in_the_chips_words(client, service_catalog, settings):
    # Not a bare "also Focused Plan Routine" (friction13 12): another run of the session, and its state.
    settings.WORKRAIL_STALL_MINUTES = 30
    plan = start_workflow(made.PLAN, context={"sessionKey": "MR-77"})
    blocked_review("MR-77")

    def others() -> str:
        listed = page(client, "/sessions/")
        return html.unescape(
            re.sub(r"<[^>]+>", "", listed.split('class="session-others muted small">')[1]).split("\n")[0]
        )

    assert others() == "+1 run: Focused Plan Routine (running)"
    made.quiet(plan["session"]["runId"])  # the run's own state, as its chip says it, not the session's
    assert others() == "+1 run: Focused Plan Routine (stalled)"
