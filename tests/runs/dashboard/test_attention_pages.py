"""The sessions list says where each session is and names the run there; a run's page has a panel for
each state a person may act on (runs/readmodels/attention.py) and its commits (runs/readmodels/commits.py)."""

from __future__ import annotations

import re

import pytest
from django.utils.html import escape

from runs.readmodels import run_view
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review, forked_review, node_id_of
from tests.support.mcp_calls import start_workflow
from tests.support.pages import page, text_of

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_attention_places")]


def visible(html: str) -> str:
    """A page without its drawings: the timeline's dots name each step in the page's words, in their tooltips."""
    return re.sub(r"<svg\b.*?</svg>", "", html, flags=re.S)


def test_the_list_groups_by_repository_then_branch_and_never_merges_two_mains(client, service_catalog):
    ids = made.two_repositories()
    html = page(client, "/sessions/?sort=title")
    headings = [part.split("</th>")[0] for part in html.split('<tr class="group-row">')[1:]]
    assert len(headings) == 3  # blog · feature/x, blog · main, shop · main
    assert ['<span class="repo-name">blog</span>' in h for h in headings] == [True, True, False]
    assert sum("main</span>" in h for h in headings) == 2
    # In plain words: the repository, its branch, how many; the repository's path muted after them.
    assert '<span class="repo-name">blog</span> · git branch <span class="mono">feature/x</span> · 1 ' in headings[0]
    assert "(1)" not in html and "work observed outside git" not in html
    assert html.index(ids["BLOG-MAIN"]) < html.index(ids["SHOP-MAIN"])
    # A session's head names the repository and git branch its agent works in, in the list's words, once
    # (friction13 7); the repository's root on hover; a session seen outside git says so.
    html = page(client, f"/sessions/{ids['BLOG-X']}/")
    assert (
        '<li id="session-workspace" title="/src/blog">repository <strong>blog</strong> · '
        'git branch <span class="mono">feature/x</span></li>'
    ) in html
    assert html.count("feature/x") == 1
    outside = start_workflow(made.PLAN, context={"sessionKey": "NOWHERE"})["session"]["sessionId"]
    # Recorded none: the head says nothing of it (friction15a 21), rather than an empty fact on every head.
    told = page(client, f"/sessions/{outside}/")
    assert 'id="session-workspace"' not in told and "No repository recorded" not in told


def test_each_row_says_where_it_is_and_links_the_run_in_that_state(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    waiting = made.waiting_for_user(service_catalog["extra"], quiet_minutes=45)
    first = start_workflow(made.PLAN, context={"sessionKey": "MR-77"})
    stuck = blocked_review("MR-77")
    assert stuck.session_id == first["session"]["sessionId"]
    stalled = made.stalled()
    canceled = made.canceled()
    html = page(client, "/sessions/")
    rows = {
        part.split('data-place="')[1].split('"')[0]: part.split("</div>")[0] for part in html.split("where-line")[1:]
    }
    assert set(rows) == {"waiting_for_user", "blocked", "stalled", "canceled"}
    # The workflow's name plain, the words of where it is the link to the run (friction26b 11).
    assert '<span class="where-workflow">Plan and build</span>' in rows["waiting_for_user"]
    # Where the move is yours, the where-words link the run as on every row (friction32), and the move links
    # its panel: two places, not the same one twice (friction28b 10).
    assert f'<a class="where-link needs-you" href="/runs/{waiting.run_id}/"' in rows["waiting_for_user"]
    assert "Approve the plan · step 2 of 3 · waiting for your confirmation</a>" in rows["waiting_for_user"]
    assert rows["waiting_for_user"].count("<a ") == 2
    assert f'class="your-action" href="/runs/{waiting.run_id}/#waiting_for_user-1"' in rows["waiting_for_user"]
    assert '<span class="where-workflow">Risk-Scaled Merge Request Review</span>' in rows["blocked"]
    assert f'<a class="where-link" href="/runs/{stuck.run_id}/"' in rows["blocked"]
    assert "(run 2 of 2)" in rows["blocked"]
    # Its reason on a muted line of its own under the row's where-line (friction17b 17).
    assert "step 2 of 8" in rows["blocked"] and "did not attach" not in rows["blocked"]
    assert '<div class="where-reason muted small">the agent did not attach the list of changed files</div>' in html
    assert (
        f'href="/runs/{stalled.run_id}/#stalled-1"' in rows["stalled"] and "step 2 of 3 · stalled " in rows["stalled"]
    )
    assert f'href="/runs/{canceled.run_id}/"' in rows["canceled"] and ">canceled <time " in rows["canceled"]
    # The pill says whose move it is, for the session's most urgent run, and a filter counts each move's rows
    # (a run that waits for the user is not counted as stalled, however long it waits).
    chips = html.split('class="status-chips move-filters"')[1].split("</ul>\n")[0]
    for chip in ("Your move 2", "Agent&#x27;s move 1", "Nothing to do 1"):  # needs you and stalled are yours
        assert chip in chips, chips
    # The chips are the only state filter: no status dropdown says the same again.
    assert 'name="status"' not in html and "Stalled (1)" not in html
    # Most urgent first: needs you, stalled, then the block the agent is still retrying (its move, not yours:
    # friction11 7), then the canceled one, dimmed.
    order = [html.index(f">{key}</a>") for key in ("CONF-1", "STALL-1", "MR-77", "CANCEL-1")]
    assert order == sorted(order)
    canceled_row = html.split(">CANCEL-1</a>")[0].rsplit("<tr ", 1)[1]
    assert 'class="session-row settled"' in canceled_row and 'data-state="canceled"' in canceled_row
    rows_html = html.split("<tbody>")[1:]
    row_of = {key: next(r for body in rows_html for r in body.split("<tr>") if key in r) for key in ("CONF-1", "MR-77")}
    assert 'class="badge state-needs_you" data-move="yours">Your move · Confirm</span>' in row_of["CONF-1"]
    retrying = 'class="badge state-blocked" data-move="agents">Agent&#x27;s move · Retrying</span>'
    assert retrying in row_of["MR-77"]
    # Each chip filters to the sessions in that state.
    blocked_only = page(client, "/sessions/?status=blocked")
    assert "MR-77" in blocked_only and "CONF-1" not in blocked_only.split("<tbody>", 1)[1]


def test_a_stalled_run_has_no_agent_at_work_and_says_how_to_resume(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    stalled = made.stalled()
    html = page(client, f"/runs/{stalled.run_id}/")
    assert 'class="badge state-stalled" data-move="yours">Your move · Stalled</span>' in html
    # Where it stands is the card's one status line, the moment as a <time> the page puts in the reader's time
    # zone (times.js), not "... UTC" text; the panel under it says what to do, not where again.
    where = html.split('id="run-where"')[1].split("</span>")[0]
    assert "><strong>Draft Plan with Risks</strong> · step 2 of 3 · stalled <time datetime=" in where
    assert 'data-when="for"' in where
    assert "where the agent works" not in html and "the agent&#x27;s move" not in html
    panel = html.split('class="state-panel state-stalled"')[1].split("</section>")[0]
    assert 'class="verdict-line"' not in panel and "step 2 of 3" not in panel.split("agent-message")[0]
    assert "Copy the resume message" in panel
    assert "Resume the WorkRail workflow: call continue_workflow with stateToken &quot;st" in panel
    # The why and the raw token wait in one "Details" fold right under the panel, the run's, beside its ids:
    # "Why" then "For developers", not two folds side by side (friction22a B6, 22b B11; friction9 item 2).
    assert "<details" not in panel.split("agent-message")[-1] and 'class="break state-token"' not in panel
    fold = html.split('id="run-details"')[1].split("</details></li>")[0]
    assert fold.startswith("><summary>Details: why, the step&#x27;s resume code, the run&#x27;s ids</summary>")  # 25b 9
    # No "token" outside "For developers" (friction62b 6): the heading inside names it as the fold does.
    assert "<h4>The step's resume code</h4>" in html and "token</h4>" not in html
    assert fold.index(">Why</h4>") < fold.index("No step has been recorded") < fold.index(">For developers</h4>")
    assert fold.index(">For developers</h4>") < fold.index('class="break state-token"')
    assert f'id="run-id-{stalled.run_id}"' in fold
    assert "<summary>For developers" not in html and html.count("<summary>Details") == 1


def test_a_step_waiting_for_the_user_says_what_to_confirm(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    waiting = made.waiting_for_user(service_catalog["extra"], quiet_minutes=45)
    html = page(client, f"/runs/{waiting.run_id}/")
    assert (
        'class="badge state-needs_you" data-move="yours">Your move · Confirm</span>' in html
        and "state-stalled" not in html
    )
    # The card's status line says where, once: no "Pending step" bar, no verdict or step line in the panel.
    assert 'id="pending-step"' not in html
    panel = html.split('class="state-panel state-waiting_for_user"')[1].split("</section>")[0]
    assert 'class="verdict-line"' not in panel and "step 2 of 3" not in panel
    # Since when, as a <time> the page shows local; the chip beside it says whose move.
    where = html.split('id="run-where"')[1].split("</span>")[0]
    assert "><strong>Approve the plan</strong> · step 2 of 3 · waiting for your confirmation <time" in where
    # First what the step asks, said to the user, and where the answer goes (the agent's chat, by the two copy
    # buttons: friction15); then the plan to review, then the two replies (read, then decide, as on the step's
    # page: friction17); last, folded, the step's prompt as the agent was given it.
    move = panel.split('class="next-move"')[1].split("</p>")[0]
    assert "The agent is waiting for you to approve the plan." in move
    assert "The dashboard cannot talk to it: you confirm by copying a reply below." in move
    replies = panel.split('class="copy-row replies"')[1].split("</details>")[0]
    assert (
        'class="copy-button" data-copy-target="reply-1-confirmed" data-share-label="Share “Confirmed”…">'
        "Copy “Confirmed” reply</button>" in replies
    )
    assert (
        'class="copy-button copy-quiet" data-copy-target="reply-1-changes" data-share-label="Share “Not yet”…">'
        "Copy “Not yet: change…” reply<" in replies
    )
    assert 'id="reply-1-confirmed">Confirmed: go on with “Approve the plan”.</pre>' in replies
    # The fold says what it holds (friction60a 14: "Check the replies (optional)" read as a check to run).
    assert '<summary class="small">See the exact text each button copies</summary>' in replies
    assert "no button" not in panel
    assert panel.index('class="next-move"') < panel.index("to-approve") < panel.index("copy-row replies")
    assert "What the step asks you to confirm" not in panel
    approve = panel.split('class="markdown to-approve"', 1)[1].split("</div>", 1)[0]
    assert "Planned it: two modules, one migration." in approve
    fold = panel.split('<details class="asks-fold panel-why"', 1)[1].split("</details>", 1)[0]
    # One name for one fold on both pages (friction24b 15): "Why", as the step page's "Resume here" names it, with
    # the same sentence first, then the step's instructions; not said again in the run's "Details".
    assert '<summary class="small">Why</summary>' in fold and "The agent's instructions" not in html
    assert "The workflow asks you to confirm this step before the agent goes on." in fold
    assert "The workflow asks you to confirm this step" not in html.split('id="run-details"')[1]
    assert "<strong>ask them to approve it</strong>" in fold
    assert panel.index('class="next-move"') < panel.index("to-approve") < panel.index("asks-fold")
    # The notes to review are in the panel, and the step that recorded them shows them too, as every answered
    # step does (friction18a 6: a step with only its prompt read as an answer lost); no line pointing up there.
    steps = html.split('id="steps-title"', 1)[1].split("</section>", 1)[0]
    # Steps says it twice: its folded line's first line of the answer, then the answer itself.
    assert steps.count("Planned it: two modules, one migration.") == 2
    assert html.count("Planned it: two modules") == 3
    assert "Plan · step 1 of 3" in steps
    assert "to-approve-1" not in steps and "panel above" not in steps and "No notes." not in steps


def test_a_canceled_run_and_a_branch_left_behind_have_their_panels(client, service_catalog):
    canceled = made.canceled()
    html = page(client, f"/runs/{canceled.run_id}/")
    panel = html.split('class="state-panel state-canceled"')[1].split("</section>")[0]
    why = html.split('id="run-details"')[1].split("</details></li>")[0]  # the panel's why, in the run's one fold
    assert "told the run was canceled" in why and "step 2 of 3" not in panel
    # Its way back in, a link away: the workflow's start message (friction21b 13: a dead end).
    start = f'href="/workflows/{made.PLAN}/#start-it">The workflow\'s start message →</a>'
    assert start in panel
    # Who canceled it and where it stopped: the card's status line, once.
    where = html.split('id="run-where"')[1].split("</span>")[0]
    assert "><strong>Draft Plan with Risks</strong> · step 2 of 3 · canceled in the dashboard <time" in where
    assert "RUN_CANCELED" not in panel  # the error code is not a word for people
    # Nobody's move is pending on a canceled run, and the page does not say an agent works.
    assert 'id="pending-step"' not in html and "while the agent works" not in html
    assert 'class="badge state-canceled" data-move="nobody">Canceled</span>' in html
    rewound = made.left_behind()
    html = page(client, f"/runs/{rewound.run_id}/")
    # Beside the live branch, the branch left behind is one line; its way back is one link to its step page's
    # "Resume here", named as there (friction22a B3, 22b 13: no "Want it back?" fold, said once per page).
    line = html.split('class="left-behind-line" id="left_behind-1"')[1].split("</div>")[0]
    assert (
        "Branch 1 · " in line
        and " · step 3 of 3</a>" in line
        and 'class="badge state-left_behind" data-move="nobody">Left behind</span>' in line
    )
    assert "<summary" not in line and "Resume the WorkRail workflow" not in line
    # No way back on the line itself (friction26a 7): its link opens the branch, whose panel offers it.
    assert "#resume-here" not in line and "Resume here" not in line
    assert "Want it back?" not in html
    assert 'class="state-panel state-left_behind"' not in html
    # The live branch leads: the status line says where its agent is, before the branches left behind.
    assert 'id="pending-step"' not in html
    assert html.index('id="run-where"') < html.index('id="left_behind-1"')
    assert "<strong>Draft Plan with Risks</strong> · step 2 of 3 · branch 2 · agent working <time" in html
    # Shown on its own, the branch left behind has its full panel and no pending step beside "nothing needs doing".
    tip = line.split('href="?tip=')[1].split('"')[0]
    shown = page(client, f"/runs/{rewound.run_id}/?tip={tip}")
    panel = shown.split('class="state-panel state-left_behind"')[1].split("</section>")[0]
    # One banner names the branch shown, in its state's word, then leads to branch 2, where the agent works
    # (friction24a 9).
    assert "Viewing branch 1 (left behind). " in shown
    assert ">Draft Plan with Risks · step 2 of 3&nbsp;→</a>" in shown and "Agent&#x27;s move · Working" in shown
    # The box names where the branch shown stopped (friction61a 9: a bare step name read as a leftover).
    assert "Branch 1 stopped at: Self-Check the Plan · step 3 of 3" in panel and 'class="verdict-line"' not in panel
    # Its resume is the quiet button, with one line saying what it does (friction15), and that branch 2 goes on as
    # well; the button is the quiet outline, in sight with that line (friction22a B3), not behind a fold: quiet, so
    # it does not invite reviving the branch by accident (friction19b 15).
    # Its line says "optional" in words, why the button is the quiet one (friction24a 14); one short line under
    # it says which chat takes it (friction23b 7), not which branch the run page then shows (a rule nobody needs).
    assert "Optional: only if you want this branch back.</p>" in panel
    assert (
        'id="left_behind-then-1">If you resume this branch, branch 2 keeps going too: two agents at once. '
        "Paste the message into a new chat.</p>" in panel
    )
    # friction27a 2: the message is for a new chat, as that line says: no line naming the chat that started the
    # run under its button, and its Copied line names none (friction28b 1: said once).
    assert "which-chat" not in panel and "data-paste-into" not in panel
    assert "whichever branch moved last" not in shown
    assert "want-back" not in panel and "Want it back?" not in shown
    assert 'class="copy-button copy-quiet" data-copy-target="left_behind-sentence-1">Copy the resume message<' in panel
    assert "Nothing to do." not in panel
    assert 'id="pending-step"' not in shown


def test_a_run_page_shows_its_commits_and_the_change_between_them(client, service_catalog, settings, tmp_path):
    from tests.support.attention_sessions import git as _git
    from tests.support.attention_sessions import run_to_the_end as _run_to_the_end

    repo = tmp_path / "shop"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "orders.py").write_text("one\n")
    _git(repo, "add", "orders.py")
    _git(repo, "commit", "-q", "-m", "one")
    settings.WORKRAIL_PROJECT_DIR = repo
    start = start_workflow(made.PLAN)
    (repo / "orders.py").write_text("one\ntwo\n")
    _git(repo, "commit", "-q", "-am", "two")
    _run_to_the_end(start)
    html = page(client, f"/runs/{start['session']['runId']}/")
    line = html.split('id="run-commits"')[1].split("</p>")[0]
    assert "started on <code" in line and "ended on <code" in line
    assert '1 file changed, <span class="diff-add">+1</span> <span class="diff-del">\u22120</span>' in line
    assert str(repo) in line


def test_a_stalled_run_never_stalls_before_it_started(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    stalled = made.stalled()
    detail = run_view.run_detail(stalled.run_id)
    [panel] = detail.panels
    assert panel.since >= detail.run.created_at
    assert detail.where is not None and detail.where.since is not None and detail.where.since >= detail.run.created_at


def test_a_completed_runs_branches_left_behind_are_badged_so(client, service_catalog):
    rewound = made.left_behind()
    made.run_to_the_end(rewound.answer)
    detail = run_view.run_detail(rewound.run_id)
    assert detail.run.state == "done"
    assert [o.state for o in detail.other_branches] == ["left_behind"]
    html = page(client, f"/runs/{rewound.run_id}/")
    assert "status-open" not in html and 'class="badge state-left_behind" data-move="nobody">Left behind</span>' in html


def test_with_several_runs_each_card_says_its_runs_line_and_the_head_does_not_repeat_it(client, service_catalog):
    first = start_workflow(made.PLAN, context={"sessionKey": "MR-77"})
    stuck = blocked_review("MR-77")
    html = page(client, f"/sessions/{first['session']['sessionId']}/")
    assert 'id="session-run-lines"' not in html
    cards = html.split('class="runs-nav"')[1].split("</nav>")[0].split('class="run-link"')[1:]
    assert len(cards) == 2
    assert "Agent&#x27;s move · Working" in cards[0]
    assert '<span class="run-summary">Clarify Goal and Constraints · step 1 of 3</span>' in cards[0]
    assert f'href="/runs/{stuck.run_id}/"' in html.split('class="runs-nav"')[1].split("</nav>")[0]
    # The shown run's card (the blocked one, most urgent) names it, badges it and says where it stands like
    # every other card (friction15a 10), in short: its own card beside names the step in full and says why, its
    # block's panel (friction64: the step said three times on a desktop).
    assert 'aria-current="page"' in cards[1]
    assert '<span class="run-summary" id="shown-run-place">step 2 of 8</span>' in cards[1]
    assert "Record the Changed Files" not in cards[1]
    main = html.split("</nav>", 1)[1]
    assert "The agent did not attach the list of changed files." in main
    assert visible(main).count("<strong>Record the Changed Files</strong> · step 2 of 8") == 1
    assert all(";" not in card.replace("&#x27;", "'") for card in cards)
    # Every card badges its run's state, every time (not only where it differs from the session's).
    assert "badge state-running" in cards[0] and "badge state-blocked" in cards[1]
    # The runs column is the index of their chips: the head does not add the most urgent one's again.
    head = html.split('class="page-head"')[1].split("</div>")[0]
    assert "badge state-" not in head


def test_a_session_of_one_run_says_where_it_is_once_in_the_run_card(client, service_catalog):
    stuck = blocked_review("MR-78")
    for url in (f"/sessions/{stuck.session_id}/", f"/runs/{stuck.run_id}/"):
        html = page(client, url)
        # Said by the run card's status line, once: the session's head keeps its facts only, the runs column
        # its name only, and the panel under the line says what to do.
        assert 'id="session-run-lines"' not in html and 'id="session-status-summary"' not in html
        assert html.count("Agent&#x27;s move · Retrying</span>") == 1
        assert (
            visible(html).count("<strong>Record the Changed Files</strong> · step 2 of 8 · refused") == 1
        )  # the timeline's dots: tooltips
        assert "refused <time" in html.split('id="run-where"')[1].split("</p>")[0]
        assert 'class="verdict-line"' not in html.split('id="run-title"')[1].split("</section>")[0]
        head = html.split('class="page-head"')[1].split("</div>")[0]
        assert "badge state-" not in head


def test_the_mode_is_one_line_in_the_head_and_its_fold_ends_the_page(client, service_catalog):
    start = start_workflow(made.PLAN)
    html = page(client, f"/sessions/{start['session']['sessionId']}/")
    # One short line among the head's facts names the mode, once (friction26a 9: a phrase of what it does here and
    # the name again in the fold's title), and links to the fold at the page's end: what the mode makes the agent
    # do, what a mode is (said there once), the switch and the history.
    does = "The agent asks you at every confirmation, and weighs risk against speed."
    facts = html.split('id="session-facts"')[1].split("</ul>")[0]
    # "Mode" is a word of the glossary a newcomer cannot guess: linked to its line, its meaning the tooltip, once
    # on the page (friction62b 6: "Guided, balanced risk" unexplained on every header).
    means = "How often the agent stops to ask you, and how much risk it may take (“Guided, balanced risk”)."
    linked = f'<a class="term" href="/words/#mode" title="{escape(means)}">Mode</a>'
    assert f'<li id="session-mode">{linked}: <strong id="mode-name">Guided, balanced risk</strong> · <a' in facts
    assert html.count('href="/words/#mode"') == 1
    assert 'id="mode-title">Mode <span class="fold-parts">' in html
    assert "title=" not in facts.split('id="mode-name"')[1]
    assert '<a href="#mode-title" id="mode-link">change</a>' in facts
    assert html.index('id="timeline-title"') < html.index('<details class="fold" id="mode">')
    fold = html.split('<details class="fold" id="mode">')[1].split("</details>\n</section>")[0]
    assert f">{does}</p>" in fold and 'class="mode-choice"' in fold and "History" in fold
    assert html.count("A mode is the preferences the agent follows at each step of this session's runs.") == 1
    assert '<details class="fold" id="mode" open' not in html
    # A canceled run's session says the mode it ran under, and keeps its history and explanation, no switch.
    canceled = made.canceled()
    html = page(client, f"/sessions/{canceled.session_id}/")
    assert (
        'Mode</a> was: <strong id="mode-name">Guided, balanced risk</strong> · ' in html
    )  # no gist: nothing to change
    assert '<a href="#mode-title" id="mode-link">history</a>' in html
    assert 'id="mode-title"' in html and "A mode is the preferences" in html and "<h3>History</h3>" in html
    assert 'class="mode-choice"' not in html and 'id="fine-tune"' not in html


def test_right_after_an_import_the_message_to_resume_is_offered_once(client, service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    # A run whose card offers no message of its own (the agent is at work): offered above the runs.
    running = start_workflow(made.PLAN, context={"sessionKey": "IMP-1"})
    html = page(client, f"/sessions/{running['session']['sessionId']}/?imported=1")
    resume = html.split('id="resume-after-import"', 1)[1].split("</section>", 1)[0]
    assert "it picks up Focused Plan Routine at step 1 of 3" in resume
    assert 'data-copy-target="import-message"' in resume
    # For a new chat here (friction27a 2, 28b 1): the chat that started the run is not named under its button, and
    # its Copied line names none.
    assert "paste it into a new chat: it picks up" in resume
    assert "which-chat" not in resume and "data-paste-into" not in resume
    # A stalled run's panel offers it already: not a second time.
    stalled = made.stalled()
    html = page(client, f"/runs/{stalled.run_id}/?imported=1")
    assert 'id="resume-after-import"' not in html
    assert html.count("Resume the WorkRail workflow: call continue_workflow with stateToken &quot;") == 1


def test_each_message_to_copy_says_which_agent_chat_takes_it(client, service_catalog):
    # friction22a B2: "paste it into its chat" named none of the person's agent windows. Under the copy button,
    # the workspace the session recorded; where it recorded none, that any chat with WorkRail can take it.
    # friction26b 6: before it, the chat by what a person sees of it: when it started the run (no client name
    # where none was recorded), then the client's declared name and the run's last call.
    from runs.models import Session
    from runs.store.actors import Actor, Door, acting_as

    stalled = made.stalled()
    html = page(client, f"/sessions/{stalled.session_id}/")
    line = html.split('<p class="muted small which-chat">')[1].split("</p>")[0]
    # friction27a 1: one sentence with its verb, nothing after it that contradicts "It hears only its chat".
    # friction28a 9: the clock and how long ago together, the day only when not today; friction28b 1: whether a
    # new chat will do, in the same sentence, and nowhere else in the panel.
    # friction60a 16: the "(" held to "run" by a no-break space, so a phone never breaks the line between them.
    assert line.startswith('Paste it into the chat that started this run&nbsp;(<time datetime="')
    assert 'data-when="clock">' in line and " UTC, 45 min ago</time>)" in line
    assert line.endswith("</time>); if that chat is closed, a new one works too.")
    panel = html.split('id="stalled-1"')[1].split("</section>")[0]
    assert "new one" not in panel.replace(line, "") and "new chat" not in panel
    assert html.count('class="muted small which-chat"') == 1
    with acting_as(Actor("", Door.STDIO, client_name="claude-code")):
        stalled = made.stalled("STALL-2")
    Session.objects.filter(public_id=stalled.session_id).update(workspace_path="/srv/shop", git_branch="main")
    html = page(client, f"/sessions/{stalled.session_id}/")
    line = html.split('<p class="muted small which-chat">')[1].split("</p>")[0]
    # The client in people's words, not its declared "claude-code"; its start once, by the clock and how long ago
    # (the head says when the run last moved: no "last call" beside it). The client in the brackets: the sentence
    # the same, "the chat that started this run", whether the client is known or not (friction62a 5, 62b 14a).
    assert line.startswith("Paste it into the chat that started this run&nbsp;(Claude Code, <time ")
    assert "last call" not in line
    # the workspace not again: the head names the repository and branch
    assert line.endswith(" ago</time>); if that chat is closed, a new one works too.")
    assert html.index('class="copy-button') < html.index('class="muted small which-chat"')
    step = page(client, f"/nodes/{node_id_of(stalled.answer)}/")  # the step's own "Resume here"
    assert '<p class="muted small which-chat">Paste it into the chat that started this run&nbsp;(Claude Code, ' in step
    assert 'data-paste-into="the chat (Claude Code)"' in step
    # A reply to a step waiting for the person goes to the waiting chat only: no new chat offered under it.
    # (The Copied line names the chat, nothing more: copy.js.)


def test_viewing_another_branch_while_nobody_works_on_the_latest_names_its_state_once(client, service_catalog):
    # Friction24a 9: one banner. Where no agent works on the latest branch (it stalled), the banner gives its pill
    # and where it stands, after the branch shown in its state's word; no second line, no row for it below.
    rewound = made.left_behind()
    behind = next(o for o in run_view.run_detail(rewound.run_id).other_branches if o.number == 1)
    made.quiet(rewound.run_id)
    html = page(client, f"/runs/{rewound.run_id}/?tip={behind.tip_node_id}")
    banner = html.split('id="shown-branch">')[1].split("</p>")[0]
    assert banner.startswith("Viewing branch 1 (left behind). ")
    pill = r'Branch 2:</span> <button type="button" class="pill-tap" popovertarget="[^"]+"><span title="'
    assert re.search(pill, banner)
    assert "The agent works" not in banner
    assert 'data-move="yours">Your move · Stalled</span>' in banner
    assert ">Draft Plan with Risks · step 2 of 3 · stalled <time" in banner
    assert 'id="run-status"' not in html and "Latest:" not in html and 'id="other-branches"' not in html


def test_a_step_left_behind_shows_the_runs_other_branches_open(client, service_catalog):
    """On a phone the run's other branches fold to their count, but where the step's own branch is left behind they
    are where the work goes on: the list is open (friction28b 11). A step of the live branch keeps it folded."""
    rewound = made.left_behind()
    run = page(client, f"/runs/{rewound.run_id}/")
    tip = run.split('class="left-behind-line" id="left_behind-1"')[1].split('href="?tip=')[1].split('"')[0]
    behind = page(client, f"/nodes/{tip}/")
    assert '<details class="branch-callouts" id="other-branches" open>' in behind
    # The branch the run went on with says what makes it so: its tip is the run's newest step (friction29a 15,
    # 29b 12: "· the latest" read as the latest branch, or the latest step, or neither).
    others = text_of(behind.split('id="other-branches"')[1].split("</details>")[0])
    assert "· the run's newest step" in others and "the latest" not in others
    # A step of the branch that goes on, beside one that finished: the others stay folded to their count.
    going_on = page(client, f"/nodes/{forked_review().open_tip}/")
    assert '<details class="branch-callouts" id="other-branches">' in going_on
