"""Every state says whose move it is in its one pill (runs/readmodels/states.py, pill): whose move leads when it is
someone's ("Your move · Confirm", "Agent's move · Working"; "Done" alone), and the
pill's colour is whose move alone (data-move), on the list's rows, the run cards and the page's head, once per
screen; the move itself is the where-line's and the panel's; and every page that sets an agent going hands over
the same message behind the same button (runs/readmodels/agent_message.py, templates/dashboard/_agent_message.html).
"""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import get_args

import pytest
from django.conf import settings
from django.db.models import F

from runs.contract.dashboard import StateName
from runs.models import Ack, Node, Run
from runs.readmodels import attention, states
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review, forked_review
from tests.support.mcp_calls import ack, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release
from tests.support.pages import page

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_attention_places")]

BUTTON = "Copy the resume message"  # every resume panel's, and a step's "Resume here" (actions.COPY)
REDO = "Copy the redo message"  # a redo's with the same inputs: the one message that differs (friction62a 5)
OLD_BUTTONS = ("Copy the sentence", "Copy stateToken", "Copy the call")


def copied(text: str, button: str = BUTTON) -> list[str]:
    """What each `button` ("Copy the resume message") of a page copies: the text of its target."""
    found = []
    for target in re.findall(r'data-copy-target="([^"]+)">' + re.escape(button) + "</button>", text):
        body = re.search(r'<pre class="wrap agent-message" id="' + re.escape(target) + r'">(.*?)</pre>', text, re.S)
        assert body is not None, target
        found.append(html.unescape(body.group(1)))
    return found


def token_of(message: str) -> int:
    token = re.search(r'stateToken "([^"]+)"', message)
    assert token is not None, message
    return tokens.parse(settings.WORKRAIL_HOME, token.group(1), TokenKind.STATE).id


def tags(text: str) -> list[str]:
    """Whose move each pill in `text` says (its colour), nobody's left out: they say no one's move."""
    return [m for m in re.findall(r'class="badge state-\w+" data-move="(\w+)"', text) if m != "nobody"]


def chip(text: str) -> str:
    """The words of the first state pill in `text` (state_chip: states.pill); "" when it has none."""
    found = re.search(r'class="badge state-\w+" data-move="\w+"(?: id="[^"]+")?>(.*?)</span>', text, re.S)
    return html.unescape(found.group(1)) if found else ""


def status(text: str) -> str:
    """The run card's one status line: its chip, then where the agent is (status_line.of_run)."""
    return text.split('id="run-status"')[1].split("</p>")[0]


def page_head(text: str) -> str:
    return text.split('class="page-head"')[1].split("</div>")[0]


def test_every_state_has_a_move_and_one_case_reads_the_clock():
    assert set(states.MOVES) == set(get_args(StateName))
    assert [states.move(s) for s in ("needs_you", "paused", "stalled")] == ["yours", "yours", "yours"]
    assert [states.move(s) for s in ("running", "blocked")] == ["agents", "agents"]
    # A branch replaced by hand is nobody's move (friction22a B9): the person just took over from its agent.
    assert {states.move(s) for s in ("done", "canceled", "left_behind", "notes")} == {"nobody"}
    # A replaced branch asks the person to stop its agent (friction23a A1, 23b 2): theirs, not "Nothing to do".
    assert states.move("superseded") == "yours"
    assert states.move("blocked", stopped=True) == "yours"  # the agent has stopped: restarting it is yours
    assert states.move("running", stopped=True) == "agents"  # a quiet running run is called stalled instead


def test_one_pill_always_leads_with_whose_move_when_it_is_someones():
    # One pill per row (friction14 1): whose move, then the state, unless the state's word says whose it is; the
    # move itself ("resume the agent") is the where-line's and the panel's, never the pill's.
    def said(state: str, move: states.Move) -> tuple[str, str]:
        found = states.pill(state, move)
        return found.words, found.move

    usual = {state: said(state, states.move(state)) for state in states.MOVES}
    assert usual == {
        "needs_you": ("Your move · Confirm", "yours"),
        "paused": ("Your move · No agent yet", "yours"),
        "stalled": ("Your move · Stalled", "yours"),
        "running": ("Agent's move · Working", "agents"),
        "blocked": ("Agent's move · Retrying", "agents"),
        # friction22a B9: not the agent's; friction23a A1, 23b 2: its line asks the person to stop that agent
        "superseded": ("Your move · Replaced", "yours"),
        "left_behind": ("Left behind", "nobody"),
        "done": ("Done", "nobody"),
        "canceled": ("Canceled", "nobody"),
        "notes": ("Notes only", "nobody"),
    }
    # A blocked step whose agent stopped, or that waits for something only the person gives: the person's move.
    assert said("blocked", states.move("blocked", stopped=True)) == ("Your move · Agent stopped", "yours")
    # A settled state is nobody's move, whatever its source said.
    assert said("done", "agents") == ("Done", "nobody")
    for state in states.MOVES:
        words = states.pill(state, states.move(state)).words
        # no action inside; a blocked step the agent resends reads "Retrying" (friction28a 2)
        assert words.count(states.word(state, states.move(state))) == 1 and ":" not in words, words
    assert states.MOVE_FILTERS == {"yours": "Your move", "agents": "Agent's move", "nobody": "Nothing to do"}
    # The move itself, for a where-line that does not say it: only when it is yours.
    assert states.your_action("stalled", "yours") == states.your_action("blocked", "yours") == "get the resume message"
    assert states.your_action("needs_you", "yours") == "review and reply"
    assert states.your_action("blocked", "agents") == states.your_action("needs_you", "agents") == ""
    assert states.your_action("blocked", "yours", held_by_you=True) == ""  # its line says what only you give


def test_a_blocked_pill_says_whether_its_agent_stopped_or_it_needs_your_input():
    """friction26a 4, 26b 10: the pill of a Blocked step that is yours says which of its two causes it is, from
    the step's held_by (typed), on the row, the run card and a branch alike (the state_chip tag)."""
    from django.template import Context, Template

    from runs.contract.dashboard import Whereabouts

    def drawn(held_by_you: bool) -> str:
        where = Whereabouts(
            place="blocked", words="step 2 of 3", run_id="r", run_name="W", run_number=1, since=None, state="blocked"
        )
        where._move = "yours"
        where._held_by_you = held_by_you
        out = Template("{% load dashboard %}{% state_chip 'blocked' where %}").render(Context({"where": where}))
        return chip(out)

    assert drawn(False) == "Your move · Agent stopped"
    assert drawn(True) == "Your move · Needs your input"


def test_each_row_of_the_sessions_list_says_whose_move_it_is(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    made.waiting_for_user(service_catalog["extra"], key="CONF-1")
    blocked_review("MR-77")
    made.stalled()
    made.canceled()
    start_workflow(made.PLAN, context={"sessionKey": "RUN-1"})
    text = page(client, "/sessions/")
    # Each pill's one-line meaning is its tooltip and its accessible description (states.MEANINGS; friction22b
    # B11), no visible word more; the fold by the filters lists every state once.
    means = html.escape(states.meaning("stalled", "yours"))
    assert (
        f'<span title="{means}" aria-description="{means}" data-tone="yours" class="badge state-stalled" '
        'data-move="yours">Your move · Stalled</span>' in text
    )
    fold = text.split('id="state-meanings"')[1].split("</details>")[0]
    assert "What the states mean" in fold and "Counted under “Your move”" in fold
    assert all(f"<strong>{html.escape(m.word)}</strong>" in fold for m in states.MEANINGS)
    rows = {
        row.split('data-state="')[1].split('"')[0]: row.split('class="session-name"')[0]
        for row in text.split('<tr class="session-row')[1:]
    }
    assert {state: tags(cell) for state, cell in rows.items()} == {
        "needs_you": ["yours"],
        "blocked": ["agents"],
        "stalled": ["yours"],
        "running": ["agents"],
        "canceled": [],  # nobody's move: a grey pill
    }
    # One pill each: whose move when it is someone's, then the state; no action inside.
    assert {state: chip(cell) for state, cell in rows.items()} == {
        "needs_you": "Your move · Confirm",
        "blocked": "Agent's move · Retrying",
        "stalled": "Your move · Stalled",
        "running": "Agent's move · Working",
        "canceled": "Canceled",
    }
    # The move itself is told once, at the end of the where-line, where the line does not say it already.
    rows_where = {
        state: row.split('class="session-where"')[1].split("</div>")[0]
        for state, row in (
            (r.split('data-state="')[1].split('"')[0], r) for r in text.split('<tr class="session-row')[1:]
        )
    }
    # A link to the run's panel that holds the message (friction15a 19), not bold words that look like one; the
    # words of where it is link the run, as on every row (friction32: plain on your-move rows only read as
    # arbitrary), so the line's two links lead to two places: the run, and its panel (friction28b 10).
    link = re.search(
        r'</a> <a class="your-action" href="/runs/([^/"]+)/#stalled-1">get the resume message</a>$',
        rows_where["stalled"],
    )
    assert link is not None, rows_where["stalled"]
    assert rows_where["stalled"].count("<a ") == 2 and "where-text" not in rows_where["stalled"]
    assert f'<a class="where-link" href="/runs/{link.group(1)}/"' in rows_where["stalled"]
    # Every row's where-words link its run, whoever's move it is.
    assert all('<a class="where-link' in line for line in rows_where.values()), rows_where
    # A confirmation's row links its panel too, in the same place (friction25a 10).
    reply = re.search(
        r'</a> <a class="your-action" href="/runs/([^/"]+)/#waiting_for_user-1">review and reply</a>$',
        rows_where["needs_you"],
    )
    assert reply is not None, rows_where["needs_you"]
    assert 'id="waiting_for_user-1"' in page(client, f"/runs/{reply.group(1)}/")  # the panel it lands on
    assert [state for state, line in rows_where.items() if "your-action" in line] == ["needs_you", "stalled"]
    # The block the agent resends says when it becomes yours, as the blocked panel does (friction15b 5), as a
    # condition on that moment rather than "yours from <time>" (friction16a 7).
    then = rows_where["blocked"].split('class="where-then"')[1]
    assert re.match(r">becomes your move <time [^>]+>[^<]+</time> if no corrected answer comes</span>", then), then
    # friction17b 17: the reason on a muted line of its own, so that the row reads in two short lines.
    assert "did not attach" not in rows_where["blocked"]
    blocked_row = next(r for r in text.split('<tr class="session-row')[1:] if 'data-state="blocked"' in r)
    reason = blocked_row.split('<div class="where-reason muted small">')[1].split("</div>")[0]
    assert reason == "the agent did not attach the list of changed files"
    assert "waiting for your confirmation" in rows_where["needs_you"]
    # The filters count the rows of each colour, plain links with no frame of reasons (friction14 4); which
    # states "Your move" holds, its tooltip says.
    strip = text.split('class="status-chips move-filters"')[1].split("</ul>")[0]
    said = [html.unescape(w) for w in re.findall(r'<span class="badge[^"]*"[^>]*>([^<]+)</span>', strip)]
    assert said == ["All 5", "Your move 2", "Agent's move 2", "Nothing to do 1"]
    for name in ("yours", "agents", "nobody"):
        assert f'href="?status={name}"' in strip
    assert "(Confirm 1 · Stalled 1)." in html.unescape(strip)
    assert "chip-umbrella" not in text and "chip-reason" not in text
    # Each filter keeps exactly the rows of its colour.
    for name, expected in (
        ("yours", {"needs_you", "stalled"}),
        ("agents", {"blocked", "running"}),
        ("nobody", {"canceled"}),
    ):
        shown = page(client, f"/sessions/?status={name}")
        assert set(re.findall(r'<tr class="session-row[^"]*" data-state="(\w+)"', shown)) == expected, name
    # A state's older link still filters by that state, and shows it chosen.
    older = page(client, "/sessions/?status=stalled")
    assert set(re.findall(r'<tr class="session-row[^"]*" data-state="(\w+)"', older)) == {"stalled"}
    assert re.search(r'href="\?status=stalled" aria-current="true"><span class="badge filter" data-move="yours"', older)


def test_a_blocked_run_is_the_agents_move_until_it_stops_then_leads_with_the_message(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    stuck = blocked_review("MR-77")
    text = page(client, f"/runs/{stuck.run_id}/")
    panel = text.split('class="blocked-panel"')[1].split("</section>")[0]
    # Whose move, the pill of the card's status line says, once: not the page's head, nor the panel, which
    # opens with what happens next; the line names the step, once (friction9 item 2).
    assert tags(panel) == [] and tags(page_head(text)) == [] and tags(status(text)) == ["agents"]
    assert chip(status(text)) == "Agent's move · Retrying"
    assert 'class="verdict-line"' not in panel and "the agent must resend it" in status(text)
    read = re.sub(r"<pre.*?</pre>", "", panel, flags=re.S)  # the message for the agent is for the agent to read
    assert "Record the Changed Files" not in re.sub(r"<[^>]+>|\s+", " ", read)
    assert re.search(r"<strong>Record the Changed Files</strong> · step \d+ of \d+ · refused", status(text))
    # The agent's move: the panel says it retries by itself; the message for the agent is folded, under when the
    # move turns the person's.
    before_folds = panel.split("<details")[0]
    assert "The agent was told what to fix and normally resends the step by itself" in before_folds
    assert BUTTON not in before_folds and "If the agent has stopped, copy the message" not in text
    fold = panel.split('<details class="if-stopped-fold" id="if-stopped-1">')[1].split("</details>")[0]
    summary = fold.split("<summary", 1)[1].split("</summary>", 1)[0]
    # The fold's title says what it holds and when it is for; when the move turns yours is a line over it, not
    # packed into the title (friction29a 7).
    assert summary.endswith(">Resume here · only if the agent stopped") and "<time" not in summary
    assert BUTTON in fold
    turns = panel.split('id="turns-1">')[1].split("</p>")[0]
    assert panel.index('id="turns-1"') < panel.index('id="if-stopped-1"')
    # That moment as a <time> the reader's browser puts on their clock, not "05:50 UTC" in the words.
    assert turns.startswith('It becomes your move <time datetime="') and "UTC)" not in turns
    assert turns.endswith(" if no corrected answer comes.")
    listed = page(client, "/sessions/")
    assert "Your move 0" in listed  # nobody's row says "Your move"
    assert not any(old in text for old in OLD_BUTTONS)
    [message] = copied(text)
    assert token_of(message) == int(stuck.node_id) and "Record the Changed Files" in message
    # The raw call stays, folded, for people who drive the API: in the run's one "For developers" fold, beside
    # its ids, not in a second fold of the panel right above it.
    assert 'class="blocked-more' not in panel
    fold = text.split('id="run-details"')[1].split("</details></li>")[0]
    assert 'id="resend-call-1"' in fold and f'id="run-id-{stuck.run_id}"' in fold
    card = text.split('id="run-title"')[1].split('id="run-facts"')
    assert card[0].count("<summary>Details") == 0  # the panel, before the run's facts
    assert card[1].split("</ul>\n")[0].count("<summary>Details: the refused answer,") == 1
    assert fold.index(">The refused answer</h4>") < fold.index(">For developers</h4>") < fold.index("resend-call-1")

    # Nothing recorded for the stall window: the agent has stopped, and restarting it is the person's move.
    back = timedelta(minutes=45)
    run = Run.objects.get(public_id=stuck.run_id)
    made.quiet(stuck.run_id)
    Ack.objects.filter(node__run=run).update(created_at=F("created_at") - back)
    attention._KEPT.clear()  # the list keeps where each session is by its last event: none was recorded
    text = page(client, f"/runs/{stuck.run_id}/")
    panel = text.split('class="blocked-panel"')[1].split("</section>")[0]
    assert tags(panel) == [] and tags(page_head(text)) == [] and tags(status(text)) == ["yours"]
    assert chip(status(text)) == "Your move · Agent stopped"
    # The line no longer says the agent must act: it has not resent the step; the panel says what to do.
    assert "must resend" not in status(text) and "the agent has not resent it" in status(text)
    # The person's move: the panel leads with the message and its button, before the refusal's details.
    # (the message's own text folded under its button, friction11 9, is not one of those folds)
    before_folds = re.sub(r'<details class="message-fold".*?</details>', "", panel, flags=re.S).split("<details")[0]
    assert 'id="if-stopped-1"' in before_folds and BUTTON in before_folds
    assert before_folds.index(BUTTON) < before_folds.index("Why it was refused")
    assert "The message gives it the step again to resend." in before_folds and "tried again" not in before_folds
    # Only the verdict in bold, the rest of the line regular (friction25b 18).
    lead = before_folds.split('id="if-stopped-1">')[1].split("</p>")[0]
    assert lead.startswith('<strong class="lead-verdict">It has probably stopped.</strong> The message gives')
    assert lead.count("<strong") == 1
    # One run: its card in the runs column names it only; its chip is the status line's, once.
    card = text.split('class="runs-nav"')[1].split("</nav>")[0]
    assert tags(card) == [] and chip(card) == ""
    listed = page(client, "/sessions/")
    row = listed.split('data-state="blocked"')[1].split('class="session-name"')[0]
    assert tags(row) == ["yours"] and chip(row) == "Your move · Agent stopped"  # the head's words
    # The row says why it is yours, and its move links to the blocked panel that holds the message.
    where = listed.split('data-state="blocked"')[1].split('class="session-where"')[1].split("</div>")[0]
    assert (
        ' · <span class="where-then">the agent has not resent the refused step for 4' in where
        and " min</span>" in where
    )
    assert f'<a class="your-action" href="/runs/{stuck.run_id}/#blocked-1">get the resume message</a>' in where
    assert "yours from" not in where
    # The "Your move" filter counts it and selects it, with every other session yours.
    assert "Your move 1" in listed and "Agent&#x27;s move 0" in listed
    assert 'data-state="blocked"' in page(client, "/sessions/?status=yours")


def test_the_stalled_and_left_behind_panels_copy_the_same_message(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    stalled = made.stalled()
    text = page(client, f"/runs/{stalled.run_id}/")
    # Whose move, once: the run card's status line (a session of one run: not the page's head again).
    assert tags(status(text)) == ["yours"] and chip(status(text)) == "Your move · Stalled"
    assert tags(page_head(text)) == [] and text.count('class="badge state-') == 1
    # What to do, the panel says in plain words (the pill says whose move only).
    # A check the person can make first, not a judgment of what the page cannot see (friction24a 13).
    stalled_panel = text.split('class="state-panel state-stalled"')[1].split("</section>")[0]
    assert "Check the agent&#x27;s chat first: if it is idle or gone, copy the message." in stalled_panel
    # Which chat, the same or a new one, one sentence under the button says, once (friction28b 1).
    assert stalled_panel.count("new one") == 1 and "new chat" not in stalled_panel
    assert "If the agent has stopped" not in stalled_panel
    [message] = copied(text)
    assert message.startswith("Resume the WorkRail workflow: call continue_workflow with stateToken")
    assert "step 2 of 3 (" in message
    assert not any(old in text for old in OLD_BUTTONS)

    rewound = made.left_behind()
    text = page(client, f"/runs/{rewound.run_id}/")
    line = text.split('class="left-behind-line"')[1].split("</div>")[0]
    # Beside the live branch, the branch left behind's line links the branch only: no way to resume on it
    # (friction26a 7: a second agent by one click), its panel, once shown, offers it (below).
    assert "#resume-here" not in line and BUTTON not in line and not tags(line)
    # The live branch's pending step runs: the agent's move, said by the status line, not the page's head.
    assert 'id="pending-step"' not in text and tags(status(text)) == ["agents"] and tags(page_head(text)) == []
    tip = line.split('href="?tip=')[1].split('"')[0]
    panel = page(client, f"/runs/{rewound.run_id}/?tip={tip}").split('class="state-panel state-left_behind"')[1]
    # Shown, nobody's move: the branch is set aside, its resume the quiet outline, under the message's one name
    # (friction16), in sight (friction22a B3).
    assert f'class="copy-button copy-quiet" data-copy-target="left_behind-sentence-1">{BUTTON}<' in panel
    [message] = copied(panel.split("</section>")[0])
    assert "step 3 of 3 (" in message


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
    assert text.count(REDO) == 1 and not any(old in text for old in OLD_BUTTONS)
    [message] = copied(text, REDO)
    assert token_of(message) == int(root) and "Prepare" in message

    form = {"context": '{"service": "billing", "target": "production"}', "reason": "Production."}
    client.post(f"/nodes/{root}/fork", form)
    response = client.post(f"/nodes/{root}/fork", {**form, "confirm": "1"})
    child = Node.objects.get(parent__public_id=int(root), pending_step_id="prepare")
    text = page(client, response["Location"].split("#")[0])
    handover = text.split('class="fork-handover"')[1].split("</section>")[0]
    # The hand-over gives the same message as any resume, so its button says so (friction62a 5).
    assert handover.count(BUTTON) == 1 and "Copy the message for the agent" not in text
    assert not any(old in text for old in OLD_BUTTONS)
    [message] = copied(handover, BUTTON)
    assert token_of(message) == child.public_id
    # The raw call stays behind a disclosure, for people who drive the API.
    assert '<details class="raw-call fold-quiet">' in handover and 'id="agent-call"' in handover
    assert "Give it the message below to go on." in text
    # Its branch, which no agent has taken up yet, waits at this step: paused, the person's move; the branch
    # it set aside is nobody's.
    head = text.split('class="page-head"')[1].split("</div>")[0]
    assert (
        tags(head) == ["yours"]
        and 'class="badge state-paused"' in head
        and "state-running" not in head
        and chip(head) == "Your move · No agent yet"
    )
    assert 'class="node-branches"' not in text  # no branch went on past it yet
    # On the run page, nobody has taken the branch up yet: paused, the person's move, with the same message
    # in its panel, said once.
    run_page = page(client, f"/runs/{child.run.public_id}/")
    panel = run_page.split('class="state-panel state-paused"')[1].split("</section>")[0]
    assert tags(status(run_page)) == ["yours"] and tags(page_head(run_page)) == [] and BUTTON in panel
    # Nobody has it: "an agent's chat", so no line naming the chat that started the run (friction27a 2).
    assert "which-chat" not in panel and "data-paste-into" not in panel
    why = run_page.split('id="run-details"')[1].split("</details></li>")[0]  # the panel's why: the run's one fold
    assert "started this branch by hand" in why and "Agent working on" not in run_page
    assert chip(status(run_page)) == "Your move · No agent yet"
    assert token_of(copied(run_page)[0]) == child.public_id  # then the branch it set aside, folded
    # The list's chip for people counts it, as its row's tag says.
    listed = page(client, "/sessions/")
    assert tags(listed.split('<tr class="session-row')[1].split('class="session-name"')[0]) == ["yours"]
    assert "Your move 1" in listed and "(No agent yet 1)." in listed


def test_with_several_runs_each_card_says_its_state_and_whose_move(client, service_catalog):
    first = start_workflow(made.PLAN, context={"sessionKey": "MR-77"})
    blocked_review("MR-77")
    text = page(client, f"/sessions/{first['session']['sessionId']}/")
    # Running, then blocked: every card badges its run's state and says whose move, every time (the runs column
    # is the index); the head says none again; the shown run's status line says its own, with the move.
    cards = text.split('class="runs-nav"')[1].split("</nav>")[0]
    assert tags(cards) == ["agents", "agents"] and cards.count('class="badge state-') == 2
    assert 'class="badge state-running"' in cards and 'class="badge state-blocked"' in cards
    assert 'id="session-run-lines"' not in text
    assert tags(page_head(text)) == [] and chip(status(text)) == "Agent's move · Retrying"
    assert chip(cards) == "Agent's move · Working"
    assert tags(status(text)) == ["agents"]


def test_a_node_page_offers_resuming_after_its_step_and_never_at_the_end_of_a_finished_branch(client, service_catalog):
    review = forked_review()
    done = page(client, f"/nodes/{review.done_tip}/")
    # Nothing left to resume or branch from: neither section.
    assert BUTTON not in done and 'id="resume-here"' not in done and 'id="branch-here"' not in done
    open_tip = page(client, f"/nodes/{review.open_tip}/")
    # The agent is on the step: "Resume here" is one quiet closed fold under the page's status (issue 32), its
    # message the quiet outline behind "Resume here · only if the agent stopped" (friction16, 23a A6, 25a 4,
    # 25b 2; not "Agent stopped? …", 22a B3); "Branch from here" after the step's own content.
    assert (
        open_tip.index('id="node-pending"')
        < open_tip.index('id="resume-here"')
        < open_tip.index('id="recorded-title"')
        < open_tip.index('id="branch-here"')
    )
    resume = open_tip.split('id="resume-here"')[1].split('id="recorded-title"')[0]
    assert 'id="fork-details"' not in resume
    assert (
        resume.index('id="resume-what"><span id="resume-here-title">Resume here</span> · only if the agent stopped')
        < resume.index(BUTTON)
        < resume.index('id="state-token"')
    )
    assert "Agent stopped?" not in open_tip
    # While the agent works on it, "Branch from here" is a quiet closed fold (friction59a 9), the redo inside.
    branch = open_tip.split('id="branch-here"')[1].split("</details>\n</details>")[0]
    assert '<summary><span id="branch-title">Branch from here</span>' in branch and 'id="fork-details"' in branch


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

    assert others() == "+1 run: Focused Plan Routine (working)"
    made.quiet(plan["session"]["runId"])  # the run's own state, as its chip says it, not the session's
    assert others() == "+1 run: Focused Plan Routine (stalled)"


def test_a_panel_and_the_progress_strip_say_whose_move_as_the_pill_does(client, service_catalog, settings):
    # Friction15 3, 12, 16: a panel's colour (data-move, dashboard.css) is whose move, not a tint of its state:
    # yours for needs you, stalled, paused and a blocked step whose agent stopped; nobody's for canceled.
    settings.WORKRAIL_STALL_MINUTES = 30
    panels = {
        "waiting_for_user": made.waiting_for_user(service_catalog["extra"]),
        "stalled": made.stalled(),
        "canceled": made.canceled(),
    }
    moves = {}
    for kind, run in panels.items():
        found = re.search(
            rf'<section class="state-panel state-{kind}" data-move="(\w+)"', page(client, f"/runs/{run.run_id}/")
        )
        assert found is not None, kind
        moves[kind] = found.group(1)
    assert moves == {"waiting_for_user": "yours", "stalled": "yours", "canceled": "nobody"}

    def strip(text: str) -> tuple[str, str]:
        """Whose move the progress strip's current step and the blocked panel are."""
        step = re.search(r'<li class="st-step current"[^>]*><span class="st-box dot-(\w+)" data-move="(\w+)"', text)
        panel = re.search(r'<section class="blocked-panel" data-move="(\w+)"', text)
        assert step is not None and panel is not None and step.group(1) == "blocked"
        return step.group(2), panel.group(1)

    stuck = blocked_review("MR-77")
    assert strip(page(client, f"/runs/{stuck.run_id}/")) == ("agents", "agents")  # retrying: blue, not red
    made.quiet(stuck.run_id)
    Ack.objects.filter(node__run__public_id=stuck.run_id).update(created_at=F("created_at") - timedelta(minutes=45))
    attention._KEPT.clear()
    assert strip(page(client, f"/runs/{stuck.run_id}/")) == ("yours", "yours")  # its agent stopped: red


def test_a_paused_branch_started_by_hand_gets_the_resume_message_as_every_row_does():
    # Its message is the resume message, so its link says so: "get its message" beside "get the resume message"
    # read as two messages (friction62a 5).
    # A paused run's row gets it, whether the run was imported or its branch started by hand (one rule, no flag).
    assert states.your_action("paused", "yours") == "get the resume message"
    assert states.your_action("paused", "yours") == states.your_action("stalled", "yours")


def test_a_one_state_filter_is_split_by_whose_move_as_its_rows_pills(client, service_catalog, settings):
    """friction64 (D 2): an older link's ?status=blocked had one chip, "Retrying, Agent stopped or Needs your input",
    the agent's move and yours in one; the filters and the pills group by whose move. Now one chip per move, each
    worded as its rows' pills, and each filters to its own rows."""
    settings.WORKRAIL_STALL_MINUTES = 30
    retrying = blocked_review("MR-1")
    stopped = blocked_review("MR-2")
    made.quiet(stopped.run_id)
    Ack.objects.filter(node__run__public_id=stopped.run_id).update(created_at=F("created_at") - timedelta(minutes=45))
    attention._KEPT.clear()

    def strip(text: str) -> dict[str, bool]:
        """The strip's chips after the three by move: {words: chosen}."""
        chips = text.split('class="status-chips move-filters"')[1].split("</ul>")[0].split("<li")[5:]
        return {html.unescape(re.sub(r"<[^>]+>", "", c.split(">", 1)[1])).strip(): "aria-current" in c for c in chips}

    both = page(client, "/sessions/?status=blocked")
    assert strip(both) == {"Agent's move · Retrying 1": True, "Your move · Agent stopped or Needs your input 1": True}
    assert "Retrying, Agent stopped" not in both
    for status, key, other in (("retrying", "MR-1", "MR-2"), ("blocked-yours", "MR-2", "MR-1")):
        text = page(client, f"/sessions/?status={status}")
        rows = text.split("<tbody>", 1)[1]
        assert f">{key}</a>" in rows and f">{other}</a>" not in rows, status
        chosen = [words for words, on in strip(text).items() if on]
        assert chosen == [next(w for w in strip(both) if w.startswith("Agent's" if key == "MR-1" else "Your"))]
    # A state of one move is named as its pills too, whose move first.
    assert strip(page(client, "/sessions/?status=stalled")) == {"Your move · Stalled 0": True}
    assert retrying.session_id != stopped.session_id
