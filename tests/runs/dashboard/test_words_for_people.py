"""Pages a person reads say things in words and show each thing once (issue 32's friction review):
the catalog's short cells and warnings only where there are some, the sessions list's branch named
once under a group heading, a failed tool call's code in words, paths that wrap between directories."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from runs.models import Session, ToolCall
from runs.readmodels.ran_elsewhere import RanElsewhere
from runs.readmodels.timings import call_words, recent_calls, session_note
from runs.templatetags.dashboard import hanging_lines, path_breaks
from tests.support.mcp_calls import start_workflow
from tests.support.pages import page
from tests.support.workflow_files import workflow_doc, write_json

pytestmark = pytest.mark.django_db


def test_the_catalog_shows_warnings_only_on_workflows_that_have_some(client, service_catalog):
    write_json(service_catalog["extra"] / "ship.json", workflow_doc("team.ship", name="Ship it"))
    html = page(client, "/workflows/")
    head = html.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert "Warnings" not in head and "Steps" in head  # no column of zeros
    assert not re.search(r'<td class="num">0</td>', html)
    assert "outline steps" not in html  # the Steps cell is short: "7 steps, with a loop"
    placeholder = re.search(r'id="workflow-query"[^>]*placeholder="([^"]*)"', html)
    assert placeholder is not None and len(placeholder[1]) <= 32


def test_the_catalog_names_the_workflows_sessions_ran_that_it_does_not_hold(client, service_catalog):
    # friction19b 17: the catalog said "all bundled" while sessions ran workflows it does not list. A run keeps
    # its workflow's pinned copy: a workflow removed since is still run here, and the catalog says so, once.
    shipped = write_json(service_catalog["extra"] / "ship.json", workflow_doc("team.ship", name="Ship it"))
    start_workflow("team.ship", context={"sessionKey": "SHIP-1"})
    start_workflow("team.ship", context={"sessionKey": "SHIP-2"})
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-05"})
    assert 'id="ran-elsewhere"' not in page(client, "/workflows/")  # every workflow run is listed: nothing to say
    shipped.unlink()
    html = page(client, "/workflows/")
    line = html.split('id="ran-elsewhere">', 1)[1].split("</p>", 1)[0]
    assert line == "Sessions here also ran a workflow not in this catalog: “Ship it”."
    assert 'id="ran-elsewhere"' not in page(client, "/workflows/?q=review")  # a search says what it found only
    # Only the sessions the list shows: one still being imported (staged) is not named yet.
    Session.objects.filter(session_key__in=["SHIP-1", "SHIP-2"]).update(importing=True)
    assert 'id="ran-elsewhere"' not in page(client, "/workflows/")
    # Several, each named once, quoted (a name may hold its own "and").
    assert RanElsewhere(["Plan and build", "Verify the slices"]).words == (
        "Sessions here also ran 2 workflows not in this catalog: “Plan and build” and “Verify the slices”."
    )


def test_grouped_by_branch_the_sessions_list_names_the_branch_once(client, service_catalog):
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-01"})
    Session.objects.filter(session_key="KEY-01").update(workspace_path="/src/shop", git_branch="main")
    # A second group, so that each has its heading row (a list in one group says so in a line instead).
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-01B"})
    Session.objects.filter(session_key="KEY-01B").update(workspace_path="/src/shop", git_branch="dev")
    grouped = page(client, "/sessions/?group=branch")
    assert ' · git branch <span class="mono">main</span>' in grouped  # the group's heading names it
    assert ">Git branch</th>" not in grouped
    by_repository = page(client, "/sessions/?group=workspace")
    assert ">Git branch</th>" in by_repository  # here nothing else names it
    assert "ranches</th>" not in by_repository.replace(">Git branch</th>", "")  # no column of run branches


def test_no_git_branch_column_when_no_row_recorded_one(client, service_catalog):
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-03"})
    Session.objects.filter(session_key="KEY-03").update(workspace_path="/src/shop")
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-04"})
    Session.objects.filter(session_key="KEY-04").update(branch_count=2)  # a run branched
    listed = page(client, "/sessions/?group=workspace")
    # A column of "—" on every row says nothing: it is gone.
    head = listed.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert "Git branch" not in head
    row = listed.split('<tr class="session-row', 1)[1].split("</tr>", 1)[0]
    assert head.count("<th ") == row.count("<td")  # as many cells as headings


def test_no_listing_has_a_column_of_run_branches(client, service_catalog):
    # friction26a 8: the column read "1" on nearly every row (friction22a A7 had put it on every listing); a
    # row's where-line counts branches only when a run branched (overview.where_note).
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-05"})
    for url in ("/sessions/", "/sessions/?group=workspace", "/sessions/?sort=urgency"):
        listed = page(client, url)
        head = listed.split("<thead>", 1)[1].split("</thead>", 1)[0]
        assert "ranches</th>" not in head, url
        row = listed.split('<tr class="session-row', 1)[1].split("</tr>", 1)[0]
        assert head.count("<th ") == row.count("<td"), url
        assert "where-note" not in row and "branch" not in row.split('class="session-where', 1)[1], url


def test_the_sessions_list_leads_each_row_with_its_state_and_folds_sort_and_group(client, service_catalog):
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-02"})
    html = page(client, "/sessions/")
    row = html.split('<tr class="session-row"')[1].split("</tr>")[0]
    assert row.index('<td class="session-state">') < row.index('<td class="session-name">')
    assert row.index('<td class="session-name">') < row.index('<td class="session-where">')
    assert '<details class="filter-fold" id="session-filters" open>' in html  # open until filters.js folds it
    assert html.index('id="f-q"') < html.index('id="session-filters"')  # the search is not folded
    assert "dashboard/filters.js" in html
    searched = page(client, "/sessions/?q=KEY")
    assert 'id="session-filters" open>' in searched  # a search in use is outside the fold
    sorted_ = page(client, "/sessions/?sort=title")
    assert 'id="session-filters" open data-active>' in sorted_  # a sort in use stays in view


def test_a_failed_tool_call_says_what_failed_and_links_to_its_session_and_run(client, built):
    now = timezone.now()
    ToolCall.objects.bulk_create(
        [
            ToolCall(
                tool="continue_workflow",
                outcome="RUN_CANCELED",
                duration_ms=3.0,
                started_at=now,
                run_id=built.review_run,
                session_id=built.session_id,
            ),
            ToolCall(tool="start_workflow", outcome="error", duration_ms=9.0, started_at=now),
            ToolCall(
                tool="start_workflow", outcome="INTERNAL_ERROR", duration_ms=9.0, started_at=now, exception="KeyError"
            ),
            ToolCall(
                tool="continue_workflow", outcome="NODE_COMPLETE", duration_ms=2.0, started_at=now, run_id="run_gone"
            ),
        ]
    )
    recent = page(client, "/timings/").split('id="recent-title"', 1)[1].split("</table>", 1)[0]
    assert '<code class="small">RUN_CANCELED</code>' in recent
    assert "continue_workflow was told no, as it should be: the run was canceled" in recent
    assert f'href="/sessions/{built.session_id}/"' in recent and f'href="/runs/{built.review_run}/"' in recent
    # No reason kept (a row from before codes were): said plainly under its Error tag (friction22b A3); where to
    # look instead is in the page's "For developers" fold.
    assert '>Server error</span><div class="small outcome-words">Reason not recorded.</div>' in recent
    assert "A reason “not recorded” belongs to a call from before this server kept reasons" in recent_fold(client)
    assert "start_workflow failed inside the server on an unexpected KeyError" in recent
    assert "failed without an error code" not in recent
    assert "continue_workflow was told no, as it should be: that branch is already complete" in recent  # no link
    assert 'href="/runs/run_gone/"' not in recent


def test_a_call_told_no_in_the_mcps_terms_is_said_in_peoples_words(client, service_catalog):
    # friction64 A1: "stateToken" in a row's words. A token's code is said in people's words; what the agent was
    # told stays, word for word, in the row's "For developers" fold.
    told = "This ackToken belongs to another step of the same run, not to the snapshot named by the stateToken."
    ToolCall.objects.create(
        tool="continue_workflow",
        outcome="TOKEN_SCOPE_MISMATCH",
        duration_ms=2.0,
        started_at=timezone.now(),
        message=told,
    )
    said = "continue_workflow was told no: the agent sent an old or wrong answer code: it belongs to another step"
    assert call_words("continue_workflow", "TOKEN_SCOPE_MISMATCH", message=told) == said
    [line] = recent_calls()
    assert line.words == said and line.told == told
    recent = page(client, "/timings/").split('id="recent-title"', 1)[1].split("</table>", 1)[0]
    words = recent.split('<div class="small outcome-words">', 1)[1].split("</div>", 1)[0]
    assert "Token" not in words and "token" not in words
    fold = recent.split('<details class="fold-quiet call-told">', 1)[1].split("</details>", 1)[0]
    assert '<summary class="small">For developers</summary>' in fold and told in fold
    # A message written for anyone is still the row's why.
    missing = call_words("start_workflow", "WORKFLOW_NOT_FOUND", message="There is no workflow 'wr.nope' here.")
    assert missing == "start_workflow was told no: There is no workflow 'wr.nope' here."


def test_a_call_linked_to_no_session_says_why_and_a_tool_with_few_calls_has_no_median(client, built):
    # friction16b 10: an OK continue_workflow with a bare "—" for its session read as a data bug.
    now = timezone.now()
    ToolCall.objects.bulk_create(
        [
            ToolCall(tool="continue_workflow", outcome="ok", duration_ms=12.5, started_at=now),
            ToolCall(tool="continue_workflow", outcome="ok", duration_ms=3.0, started_at=now, run_id="run_gone"),
            ToolCall(tool="list_workflows", outcome="ok", duration_ms=1.0, started_at=now),
            ToolCall(tool="start_workflow", outcome="WORKFLOW_NOT_FOUND", duration_ms=1.0, started_at=now),
            ToolCall(
                tool="checkpoint_workflow",
                outcome="ok",
                duration_ms=2.0,
                started_at=now,
                run_id=built.review_run,
                session_id=built.session_id,
            ),
        ]
    )
    assert [line.unlinked for line in recent_calls()] == [
        "",  # linked to its session and run
        "—",  # a start that failed: no session, as a call about none (friction24b 6)
        "—",  # about no session: one term per truth, not "no session" beside "not recorded" (friction23a A7)
        "session deleted",
        "not recorded",  # friction22b A3: not "unknown (older call)", which read as a broken page
    ]
    shown = page(client, "/timings/")
    recent = shown.split('id="recent-title"', 1)[1].split("</table>", 1)[0]
    assert "not recorded" in recent and "session deleted" in recent and "older" not in recent
    assert ">no session<" not in recent
    # Each "—" says in its tooltip why it has no session: the call named none, or it failed first (friction24b 6).
    assert '<span class="muted small" title="A call about no session, as list_workflows is.">—</span>' in recent
    assert '<span class="muted small" title="It failed before it named a session or made one.">—</span>' in recent
    # Which is which, said once under the table, true of both kinds of "—".
    note = shown.split('id="session-note">', 1)[1].split("</p>", 1)[0]
    assert note == (
        "Session “—”: no session (a call such as list_workflows, or a call that failed before it had one); “not"
        " recorded”: an older call, made before this server kept which session a call was about."
    )
    assert shown.count("which session a call was about") == 1 + 1  # the note, and the cell's tooltip
    # Each meaning only where a row shows it; none without such a row.
    assert (
        session_note(recent_calls()[:3])
        == "Session “—”: no session (a call such as list_workflows, or a call that failed before it had one)."
    )
    assert session_note(recent_calls()[:2]) == "Session “—”: no session (a call that failed before it had one)."
    assert session_note(recent_calls()[:1]) == ""
    # A number never wraps away from its unit (friction16b 8).
    assert "12\xa0ms" in recent
    # friction16a 18: a median over one call is that call; no tool has 3 calls, so its cells say "—", and one
    # short line under the table says why. friction18a 2: the Median and p95 columns are there to show that "—".
    stats = shown.split('id="stats-title"', 1)[1].split("</section>", 1)[0]
    assert (
        "Median</th>" in stats and "p95</abbr></th>" in stats and stats.count('<td class="num">—</td>') == 8
    )  # four tools
    assert "A median shows from 3 calls, a p95 from 20; “—” until then." in stats
    # No server error and no call without its reason here: nothing names the server's stderr, and no fold.
    assert "stderr" not in shown and "timings-dev" not in shown
    assert "Keeps the last 5,000 tool calls agents made over" in shown


def test_a_calls_outcome_tag_is_capitalised_and_the_columns_say_their_measure(client):
    now = timezone.now()
    ToolCall.objects.bulk_create(
        [
            ToolCall(tool="continue_workflow", outcome=outcome, duration_ms=3.0, started_at=now)
            for outcome in ("ok", "blocked", "RUN_CANCELED")
        ]
    )
    # A canceled run's refusal is the expected answer, tagged apart from failures (by its code).
    # newest first; a held answer's tag says what was refused, set apart from a call turned away (friction60b 7)
    assert [line.label for line in recent_calls()] == ["Call error", "Answer refused", "OK"]
    ToolCall.objects.create(tool="continue_workflow", outcome="STORE_BUSY", duration_ms=1834.25, started_at=now)
    shown = page(client, "/timings/")
    assert 'title="Median: half the calls took less">Median</th>' in shown and "(ms)" not in shown
    assert "p50" not in shown and "Model Context Protocol" in shown
    # Four calls: a "—" for the p95, whose figure would only be the slowest call again, and why said once in
    # one short line; the failure with its share, the refusal counted apart; times in the unit that suits them.
    stats = shown.split('id="stats-title"', 1)[1].split("</section>", 1)[0]
    assert stats.count("—</td>") == 1 and stats.count("a p95 from 20") == 1
    row = stats.split('<td class="mono">continue_workflow</td>', 1)[1].split("</tr>", 1)[0]
    # Friction26b 13: a code the agent was told (a run that ended, a busy store) is turned away, never red; only a
    # failure inside the server is.
    assert row.startswith('<td class="num">4</td><td class="num">2</td><td class="num">0</td>')
    assert "risk-high" not in row and "3 ms" in row and "1.8 s" in row  # median; slowest
    assert "Call errors</th>" in stats and "Server errors</th>" in stats
    # friction62a 7: one line under the table tells a call error from a refused answer (not only the glossary);
    # friction63a 2: named by the call that was wrong, no "rejected" beside "refused".
    assert 'id="call-error-note">A call error is a call that was itself wrong' in stats
    assert "Rejected" not in stats and "rejected call" not in stats
    assert "Turned away" not in stats
    ToolCall.objects.create(tool="continue_workflow", outcome="INTERNAL_ERROR", duration_ms=2.0, started_at=now)
    stats = page(client, "/timings/").split('id="stats-title"', 1)[1].split("</section>", 1)[0]
    row = stats.split('<td class="mono">continue_workflow</td>', 1)[1].split("</tr>", 1)[0]
    assert row.startswith('<td class="num">5</td><td class="num">2</td><td class="num"><span class="risk-high')
    assert ">1 (20%)</span>" in row


def test_the_refused_column_stays_when_no_call_was_refused(client):
    """Call errors and Server errors are the table's fixed columns, 0 or not (friction10 14)."""
    ToolCall.objects.create(tool="continue_workflow", outcome="ok", duration_ms=3.0, started_at=timezone.now())
    stats = page(client, "/timings/").split('id="stats-title"', 1)[1].split("</section>", 1)[0]
    assert "Server errors</th>" in stats and "Call errors</th>" in stats
    row = stats.split('<td class="mono">continue_workflow</td>', 1)[1].split("</tr>", 1)[0]
    assert row.startswith('<td class="num">1</td><td class="num">0</td><td class="num">0</td>')


def test_a_call_is_said_in_words_from_its_outcome_and_exception():
    assert call_words("continue_workflow", "ok") == ""
    assert call_words("continue_workflow", "blocked") == "the answer was refused: it lacked something"
    # A code the agent was told: turned away (friction26b 13), not a failure of the server.
    assert call_words("checkpoint_workflow", "STORE_BUSY") == "checkpoint_workflow was told no: the store was busy"
    assert call_words("start_workflow", "BUNDLE_TOO_LARGE") == "start_workflow was told no: bundle too large"
    # Where the details are: the server's stderr, named where the failure is (friction26b 13: "the server's error
    # output" named no place), which a stdio client keeps.
    where = "the details are in the stderr of manage.py mcp (the agent's client keeps it in its MCP log)"
    assert call_words("start_workflow", "INTERNAL_ERROR") == f"start_workflow failed inside the server; {where}"
    assert call_words("start_workflow", "ERROR", "OperationalError") == (
        f"start_workflow failed inside the server on an unexpected OperationalError; {where}"
    )
    # A call kept before reasons were: said plainly under its Error tag (friction22b A3); where to look for it is
    # the page's "For developers" fold, not every such row.
    assert call_words("start_workflow", "error") == "Reason not recorded."
    # A code this server does not know is given as it is; an error's own message, when kept, says why.
    assert call_words("start_workflow", "QUOTA_EXCEEDED") == "start_workflow failed with the code QUOTA_EXCEEDED"
    said = call_words("continue_workflow", "RUN_CANCELED", message="Run run_1 was canceled by ana at 14:02 UTC.")
    assert said == "continue_workflow was told no, as it should be: Run run_1 was canceled by ana at 14:02 UTC."


def test_the_catalog_leads_with_the_name_and_says_each_tag_by_its_label(client, service_catalog):
    html = page(client, "/workflows/")
    rows = html.split('aria-label="Catalog"', 1)[1].split("</table>", 1)[0]
    row = rows.split('href="/workflows/wr.code_review/"', 1)[1].split("</tr>", 1)[0].replace("<wbr>", "")
    assert row.startswith(' class="workflow-name">Code Review</a>')  # the name is the link, first
    assert '<div class="workflow-id mono">wr.code_review' in row  # the id beneath it, as text
    assert '<a href="?tag=review_audit" class="tag">Review &amp; audit</a>' in row  # the id only in the URL
    assert ">review_audit<" not in rows and '<th scope="col">Id</th>' not in rows
    filters = html.split('aria-label="Tags"', 1)[1].split("</ul>", 1)[0]
    assert "Review &amp; audit" in filters  # the chip says the same label
    detail = page(client, "/workflows/wr.code_review/")
    assert '<a href="/workflows/?tag=review_audit" class="tag">Review &amp; audit</a>' in detail


def test_the_import_page_has_one_heading_and_says_what_a_bundle_is(client):
    html = page(client, "/sessions/import")
    assert html.count("Import a session bundle</h1>") == 1 and html.count("<h1") == 1
    assert html.count("Import a session bundle") == 2  # the page's title and its heading, no label repeating it
    about = html.split('id="what-a-bundle-is">', 1)[1].split("</p>", 1)[0]
    assert "another WorkRail dashboard" in about and "resume" in about
    assert "manage.py" not in about  # the command line is a footnote under the form
    # The file's name in the sentence, never as "(<code>…</code>)": its padding read as stray spaces (friction18a 22);
    # never broken inside (friction28a 17).
    assert (
        "(<code>" not in html.split("<main", 1)[1]
        and 'a <code class="nowrap">.workrail-bundle.json</code> file' in about
    )
    assert "manage.py export_session" in html.split('id="import-cli">', 1)[1].split("</p>", 1)[0]
    assert '<label for="import-bundle" class="drop-title">Bundle file</label>' in html
    assert 'aria-describedby="what-a-bundle-is"' in html


def test_a_path_wraps_between_directories_not_inside_a_name(client):
    assert str(path_breaks("/work/main/.venv/bin/python")) == "/<wbr>work/<wbr>main/<wbr>.venv/<wbr>bin/<wbr>python"
    assert str(path_breaks("/a<b>/c")) == "/<wbr>a&lt;b&gt;/<wbr>c"
    # A hyphen inside a name is no place to break it (a browser would): the name stays whole (friction13 4).
    assert str(path_breaks("/wt/r42-phone/x --http")) == (
        '/<wbr>wt/<wbr><span class="nowrap">r42-phone</span>/<wbr>x <span class="nowrap">--http</span>'
    )
    html = page(client, "/connect/")
    assert "manage.py mcp</code>" in html and "/<wbr>" in html.split("It runs <code>", 1)[1].split("</code>", 1)[0]


def test_a_wrapped_config_line_hangs_under_its_start_and_copies_as_given():
    html = str(hanging_lines('{\n  "command": "/a/b<c>",\n' + " " * 40 + "deep\n}"))
    assert (
        html
        == (
            '<span class="hang hang-0">{\n</span>'
            '<span class="hang hang-2">  &quot;command&quot;: &quot;/<wbr>a/<wbr>b&lt;c&gt;&quot;,\n</span>'
            '<span class="hang hang-16">' + " " * 40 + "deep\n</span>"  # deeper than the CSS knows: the deepest
            '<span class="hang hang-0">}</span>'
        )
    )
    assert str(hanging_lines("one line")) == '<span class="hang hang-0">one line</span>'


def test_a_pending_steps_page_has_no_empty_next_steps_card(client, service_catalog):
    from runs.models import Node

    start = start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-NEXT"})
    node = Node.objects.get(run__public_id=start["session"]["runId"])
    html = page(client, f"/nodes/{node.public_id}/")
    # Nothing came after it yet: no "Next steps: none yet" (nor "Next nodes (0)") card.
    assert 'id="branches-title"' not in html and "none yet" not in html
    assert "has not gone on" not in html


def test_the_sessions_list_starts_and_imports_from_its_head_and_titles_each_row(client, service_catalog):
    empty = page(client, "/sessions/")
    # With no session, "Start a workflow" leads the page (the one primary button); "Import" sits in the head.
    start = empty.split('id="start-first"', 1)[1].split("</div>", 1)[0]
    assert '<a class="button primary" id="start-workflow" href="/workflows/">Start a workflow</a>' in start
    assert "copy its start message into" in start  # the catalog's name for it (friction60a 13: not "start line")
    head = empty.split('<div class="page-head">', 1)[1].split('id="start-first"', 1)[0]
    assert '<a class="button small" id="import-link" href="/sessions/import"' in head and "Start a workflow" not in head
    assert "import-form" not in empty  # the form is on the import page, not under the list

    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-03", "goal": "Fix the login timeout"})
    listed = page(client, "/sessions/")
    head = listed.split('<div class="page-head">', 1)[1].split("</div>\n</div>", 1)[0]
    # While sessions are listed, both stay modest in the head; the list is not followed by the import form.
    assert '<a class="button small" id="start-workflow" href="/workflows/">Start a workflow</a>' in head
    assert 'id="import-link" href="/sessions/import"' in head
    assert "import-form" not in listed and 'class="button primary"' not in listed
    columns = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', listed.split("<thead>", 1)[1].split("</thead>", 1)[0])
    assert columns[:3] == ["State", "Title", "Where it is"] and "Workflows" not in columns
    row = listed.split('<td class="session-name">', 1)[1].split("</td>", 1)[0]
    assert ">Fix the login timeout</a>" in row and '<span class="session-title session-key-under">KEY-03</span>' in row


def recent_fold(client) -> str:
    """The timings page's "For developers" fold, shown when a call's reason was not recorded."""
    return page(client, "/timings/").split('<details class="for-developers timings-dev">', 1)[1].split("</details>")[0]


def test_the_session_heads_times_are_said_in_one_style(client, service_catalog):
    # Friction26a 14: "started Nov 30, 2:07 PM · last activity 45 min ago" mixed two styles in one line. Both
    # say how long ago, the exact moment in each <time>'s tooltip; a run card's start too, beside it.
    write_json(service_catalog["extra"] / "ship.json", workflow_doc("team.ship", name="Ship it"))
    start_workflow("team.ship", context={"sessionKey": "SHIP-9"})
    start_workflow("team.ship", context={"sessionKey": "SHIP-9"})
    session = Session.objects.get(session_key="SHIP-9")
    shown = page(client, f"/sessions/{session.public_id}/")
    head = shown.split('<ul class="meta', 1)[1].split("</ul>", 1)[0]
    forms = re.findall(
        r'<li>(started|last activity) [^<]*(?:<span[^>]*>[^<]*</span> )?<time [^>]*data-when="(\w+)"', head
    )
    assert [word for word, _ in forms] == ["started", "last activity"] and {form for _, form in forms} == {"ago"}
    assert 'data-when="time"' not in shown.split('id="run-facts"', 1)[1].split("</ul>", 1)[0]
