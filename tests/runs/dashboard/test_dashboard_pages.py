"""The dashboard's pages, rendered by the Django test client over a session built through the services."""

from __future__ import annotations

import html as html_module
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from runs.models import Event, EventKind, Node, Run, RunStatus, Session, ToolCall
from tests.support.mcp_calls import checkpoint_workflow, start_session, start_workflow
from tests.support.pages import page
from tests.support.sample_session import SESSION_KEY, advance
from tests.support.workflow_files import workflow_doc, write_json

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.SITE_DIR) / "templates" / "dashboard"


def between(html: str, start: str, end: str) -> str:
    """The part of `html` from the first `start` to the next `end`."""
    first = html.index(start)
    return html[first : html.index(end, first)]


def count_queries(client: Client, url: str) -> int:
    page(client, url)  # warm: per-process caches (pinned workflows, the catalog)
    with CaptureQueriesContext(connection) as captured:
        page(client, url)
    return len(captured)


# --- the sessions list -------------------------------------------------------------------------------


def test_the_sessions_list_shows_each_session_with_its_status_counts_and_workflows(client, built):
    for url in ("/", "/sessions/"):
        html = page(client, url)
        assert f'href="/sessions/{built.session_id}/"' in html
        assert SESSION_KEY in html
        # The workflows by name, each once: the run "Where it is" names, then the session's other one under its
        # title; no ids. The session's id only as its link's title.
        where = html.split('class="where-line"', 1)[1].split("</div>", 1)[0]
        # friction26b 11: the workflow's name plain text, the words of where it is the one link, to the run.
        # friction27a 4: the run named never branched: no count of branches, though the session's other run has 3.
        assert (
            '<span class="where-workflow">Focused Plan Routine</span> <span class="muted where-note">(run 2 of 2)'
            '</span>: <a class="where-link" href="/runs/'
        ) in where
        assert where.count("<a ") == 1
        others = html.split('<span class="session-others muted small">')[1].split("</span>")[0]
        assert others == "+1 run: Risk-Scaled Merge Request Review (working)"  # another run, in the chips' words
        assert "wr.risk_scaled_mr_review" not in html.split("<tbody>", 1)[1]
        assert f'title="session {built.session_id}">' in html and f">{built.session_id}<" not in html
        assert 'class="badge state-running" data-move="agents">Agent&#x27;s move · Working</span>' in html
        assert "Agent&#x27;s move 1</span>" in html  # the filters by whose move carry the counts
        assert 'data-live-version-url="/live/sessions"' in html
        assert "Connect an agent" not in html


def test_the_sessions_list_searches_filters_sorts_groups_and_pages(client, service_catalog):
    for index in range(7):
        start_workflow("wr.routine-focused_plan", context={"sessionKey": f"KEY-{index:02d}"})
    html = page(client, "/sessions/?q=KEY-03")
    assert "KEY-03" in html and "KEY-04" not in html
    html = page(client, "/sessions/?sort=title&group=branch")
    assert html.index("KEY-00") < html.index("KEY-06")
    # Every session outside any repository: no heading row that reads like a row (friction11 6), and no line
    # above the list (friction12 6); the "Group by" control says why nothing groups (friction14), whichever
    # grouping is chosen, and the select points to it.
    assert 'class="group-row"' not in html
    for grouped in ("/sessions/?sort=title&group=branch", "/sessions/?group=workspace"):
        control = page(client, grouped).split('id="f-group"')[1].split("</details>")[0]
        assert ">None of the 7 sessions recorded a repository</p>" in control
        assert control.startswith(' name="group" aria-describedby="one-group">')
    assert 'id="one-group"' not in page(client, "/sessions/?group=none")
    # Not asked, a list where no session recorded a repository is not grouped, and no note says it does
    # nothing (friction15a 9); picking a grouping still shows the note, above.
    usual = page(client, "/sessions/")
    assert 'id="one-group"' not in usual and '<option value="none" selected>No grouping</option>' in usual
    assert 'id="session-filters" open data-active' not in usual and ">Reset</a>" not in usual
    Session.objects.filter(session_key__in=["KEY-00", "KEY-01"]).update(workspace_path="/src/shop", git_branch="main")
    Session.objects.filter(session_key="KEY-02").update(workspace_path="/src/blog", git_branch="main")
    branch = ' · git branch <span class="mono">main</span> · '
    shop = '<span class="repo-name">shop</span>' + branch
    blog = '<span class="repo-name">blog</span>' + branch
    for grouped in (
        "/sessions/?sort=title&group=branch",
        "/sessions/?sort=title",
    ):  # by repository and branch unless told
        html = page(client, grouped)
        assert html.index(blog) < html.index("KEY-02") < html.index(shop) < html.index("KEY-00")
        # Among other groups, the sessions outside any repository have their bar again; the control needs no note.
        assert '<span class="repo-name">No repository recorded</span> · 4' in html
        assert 'id="one-group"' not in html
        # The grouping says its git branch as git's, as each heading does: "branch" alone is a run's (friction59).
        assert '<option value="branch" selected>Repository, then git branch</option>' in html
        assert html.count("git branch <span") == 2 and "Group by branch" not in html
    html = page(client, "/sessions/?sort=title&group=none")
    assert 'class="group-row"' not in html
    # One repository, one git branch: the control's note names them, the only place that does (no heading row,
    # and the git branch column is left out while grouping by branch).
    html = page(client, "/sessions/?q=KEY-00")
    assert 'class="group-row"' not in html
    assert (
        ">The one session is in the repository shop, git branch main</p>"
        in html.split('id="f-group"')[1].split("</details>")[0]
    )
    html = page(client, "/sessions/?status=canceled")
    assert "No session matches these filters." in html
    # Three a page: the paging links keep the other parameters.
    html = page(client, "/sessions/?sort=title&group=none&per_page=3&page=2")
    assert "Page 2 of 3" in html
    assert 'href="?sort=title&amp;group=none&amp;per_page=3&amp;page=3"' in html
    assert 'href="?sort=title&amp;group=none&amp;per_page=3&amp;page=1"' in html
    assert "KEY-03" in html and "KEY-00" not in html


@pytest.mark.parametrize(
    "query",
    [
        "?status=bogus",
        "?page=abc",
        "?page=-3",
        "?page=99999999999999999999",
        "?page=%EF%BC%91",  # a full-width digit
        "?sort=DROP&group=nope",
        "?q=" + "x" * 5000,
        "?q=%00%3Cscript%3E",
        "?status=stalled&page=7",
    ],
)
def test_bad_list_parameters_fall_back_to_the_defaults(client, built, query):
    html = page(client, "/sessions/" + query)
    assert "<script>" not in html.split("</head>", 1)[1].replace('<script src="', "")


def test_an_unknown_status_is_reported_not_a_server_error(client, built):
    html = page(client, "/sessions/?status=bogus&page=abc")
    assert "Ignored status “bogus”, page “abc”" in html
    assert SESSION_KEY in html


def test_with_no_session_at_all_the_home_page_explains_how_to_connect_an_agent(client, service_catalog):
    html = page(client, "/")
    assert "Connect an agent" in html
    assert "claude mcp add workrail" in html
    # friction63b 13: its last step linked "the sessions page", the page it is on; its first line says it already.
    steps = between(html, 'id="connect-steps"', "</ol>")
    assert 'href="/sessions/"' not in steps and "appears on the" not in steps
    assert "its session shows up here as it works" in html
    # The Connect page, another page, still says where the session appears, and links it.
    assert 'id="where-it-appears">Its session appears on the <a href="/sessions/">' in page(client, "/connect/")


# --- a session and its runs ---------------------------------------------------------------------------


def test_the_session_page_shows_both_runs_and_selects_the_newest_root_run(client, built):
    html = page(client, f"/sessions/{built.session_id}/")
    runs = between(html, 'class="runs-nav"', "</nav>")
    assert "Merge Request Review" in runs and "Focused Plan Routine" in runs
    assert f'href="/runs/{built.review_run}/"' in runs and f'href="/runs/{built.plan_run}/"' in runs
    selected = re.findall(r'<a class="run-link" href="/runs/([^/]+)/" aria-current="page"', html)
    assert selected == [built.plan_run]
    assert "Planned the follow-up." in html


def test_a_run_page_draws_its_graph_with_a_link_per_node_and_a_lane_per_branch(client, built):
    html = page(client, f"/runs/{built.review_run}/")
    selected = re.findall(r'<a class="run-link" href="/runs/([^/]+)/" aria-current="page"', html)
    assert selected == [built.review_run]
    svg = between(html, '<svg class="run-graph"', "</svg>")
    review = Run.objects.get(public_id=built.review_run)
    links = re.findall(r'<a href="([^"]+)" class="graph-node" data-node-id="([^"]+)" data-lane="(\d+)"', svg)
    marks = re.findall(r'<a href="/nodes/(\d+)/" class="checkpoint-mark"', svg)
    # Every node of the store can be reached from the drawing: by its card, or (a checkpoint) by its mark beside
    # its step's card (ninth review item 5); the two steps answered again after a rewind are cards of the
    # branches that answered them (item 3), linking the nodes they answer again.
    stored = {href.split("/")[2] for href, _, _ in links if href.startswith("/nodes/")}
    stored |= {href.split("=")[1] for href, _, _ in links if "?tip=" in href}
    assert len(stored | set(marks)) == review.node_count == 11
    assert len(links) == 12 and len(marks) == 1
    assert len(re.findall(r"<a\b", svg)) == 13
    assert {lane for _, _, lane in links} == {"0", "1", "2"}  # forked twice: three branches, three lanes
    # The graph's own title, the Start root's, one per card and per mark, one per skipped step's placeholder, and
    # one per step redone after branching (its "↺" badge, friction22b A5). The skipped step is drawn on every
    # branch's line that passed it, one rule (friction63b 9: drawn once where branches 1 and 2 split, branch 2's
    # line read as not skipping it).
    assert svg.count('<g class="skipped-step">') == 3 and svg.count('<g class="again-badge"') == 2
    assert len(re.findall(r"<title\b", svg)) == 15 + 3 + 2
    # No marker of where (friction14): the blue fill says the branch viewed, the branch states where each stands.
    assert svg.count('class="tag-text current"') == 0 and svg.count('class="tag-text newest"') == 0
    assert svg.count('class="card on-branch') == 8  # root to the newest node (the checkpoint a mark on the way)
    to_nodes = [href for href, _, _ in links if href.startswith("/nodes/")]
    to_branches = [href for href, _, _ in links if "?tip=" in href]
    assert len(to_nodes) == 10 and len(to_branches) == 2  # leaves of the other branches select them
    assert "<path" in svg and "V" in svg  # forks drawn as elbows
    # The key names the checkpoint's ◆ by a word of the glossary: linked to its line, once on the page, its meaning
    # the tooltip (friction62b 6: "checkpoint" looked up by hand).
    key = between(html, '<ul class="legend state-legend"', "</ul>")
    assert '<a class="term" href="/words/#checkpoint" title="Notes the agent saved at a step' in key
    assert html.count('href="/words/#checkpoint"') == 1


def test_the_artifact_tables_order_findings_by_severity_and_list_each_file_once(client, built):
    html = page(client, f"/runs/{built.review_run}/")
    findings = between(html, '<table class="findings">', "</table>")
    order = [findings.index(f"sev-{name}") for name in ("critical", "major", "minor")]
    assert order == sorted(order)
    assert findings.count("Copy comment") == 2  # the agent wrote comments for two findings out of three
    assert 'data-copy-target="finding-comment-1"' in findings and 'id="finding-comment-1"' in findings
    comment = between(findings, 'id="finding-comment-1">', "</pre>").removeprefix('id="finding-comment-1">')
    assert comment == "This builds the query from user input; could we pass `name` as a parameter instead?"
    assert findings.count("The agent wrote no review comment for this finding.") == 1
    files = between(html, '<table class="changed-files">', "</table>")
    assert files.count("src/alpha.py") == 1 and files.count("src/zeta.py") == 1
    assert files.index("src/alpha.py") < files.index("src/zeta.py")
    assert "Parse input early, reported twice" in files  # the latest report of a path wins


def test_the_run_page_shows_steps_notes_prompts_pending_step_and_checkpoints(client, built):
    html = page(client, f"/runs/{built.review_run}/")
    steps = between(html, 'id="steps-title"', "</section>")
    assert "Triage the Change" in steps and "Went on after the checkpoint." in steps
    assert steps.count("<summary>Prompt</summary>") >= 6
    assert steps.count('<details class="checkpoint-mark"') == 1  # a mark on its step, not a step of its own
    # Where the agent works, on which step by its name, since when (a <time> in the reader's zone): the card's
    # one status line, no second "pending step" bar.
    where = between(html, 'id="run-where"', "</span>")
    said = r"><strong>Summarize the Review</strong> · step \d+ of \d+ · branch \d+ · agent working <time "
    assert re.search(said, where), where
    assert 'id="pending-step"' not in html
    # Its checkpoint is among the steps: no card lists it again.
    assert "Checkpoint: halfway." in steps and "Session notes and checkpoints" not in html
    # The session's other run shown: the review's checkpoint is the review's, not listed in that run's column.
    other = page(client, f"/runs/{built.plan_run}/")
    assert "Checkpoint: halfway." not in other and "Session notes and checkpoints" not in other
    timeline = between(html, 'id="timeline-title"', "</section>")
    points = dict(re.findall(r'data-run-id="(run_\w+)" data-points="(\d+)"', timeline))
    assert points == {built.review_run: "11", built.plan_run: "2"}
    # A dot per node, coloured by its state: the review's branch 1 runs, its two rewound branches were left behind.
    # Dots too close to tell apart are one dot that names each of its nodes (the wide track's layout here), a
    # link to the list of them under the axis.
    # (to the track's own end, on a line of its own: a checkpoint's ◆ is an <svg> inside it)
    wide = re.findall(r'<svg class="tl-track wide".*?\n\s*</svg>', timeline, re.S)
    names = []
    for track in wide:
        for label in re.findall(r'(?:role="img"|<a class="tl-group" href="#[^"]+") aria-label="([^"]*)"', track):
            names += (
                label.replace("&#x27;", "'").split(": ", 1)[1].split("; ")
                if re.match(r"^[^:]* within (a second|a minute|[\d]+ (min|h))( \([^)]+\))?: ", label)
                else [label.replace("&#x27;", "'")]
            )
    # Every node, and a dot for each step the review redid after a rewind (its graph's "↺ redone" boxes).
    assert len(names) == 11 + 2 + 2
    # A step answered reads as the legend's green, "Answered" (friction18a 3), not "Done".
    review = [re.search(r": (Answered|Left behind|Agent's move · Working)", name).group(1) for name in names[:13]]
    assert sorted(review) == ["Agent's move · Working"] + ["Answered"] * 10 + ["Left behind"] * 2
    assert sum("↺ redone: Answered (branch" in name for name in names) == 2
    assert any("Summarize the Review · step 8 of 8: Agent's move · Working (branch 1) · " in name for name in names)
    # Canceling stops every open branch, not only the one shown: the button says it covers the whole run, no
    # count (friction22a B5, 23a A2); its confirmation names them as the cards say them (friction17b 18).
    # friction28b 14: on a run of several branches, "the whole run", from the count of its branches.
    assert "Cancel run (all branches)…</summary>" in html and "Cancel run…" not in html
    assert "every branch of the run stops" in html
    assert "with branch 1 in progress and branches 2 and 3 left behind" in html


def test_a_notes_only_session_shows_its_notes_without_runs(client, service_catalog, settings):
    settings.WORKRAIL_ENABLE_START_SESSION = True
    session = start_session(title="Caching <b>spike</b>", sessionKey="cache-spike")
    checkpoint_workflow(sessionToken=session["sessionToken"], output={"notesMarkdown": "LRU **beats** TTL."})
    listed = page(client, "/sessions/?status=notes")
    assert "Caching &lt;b&gt;spike&lt;/b&gt;" in listed and "state-notes" in listed
    session_id = re.findall(r'href="/sessions/(ses_\w+)/"', listed)[0]
    html = page(client, f"/sessions/{session_id}/")
    assert "No runs: a notes-only session." in html
    assert "LRU <strong>beats</strong> TTL." in html
    assert "Nothing to place on a timeline yet." in html


def test_tip_selects_another_branch_of_the_run(client, built):
    fork = Run.objects.get(public_id=built.review_run)
    html = page(client, f"/runs/{fork.public_id}/")
    other = re.findall(r'<a href="/runs/[^"]+\?tip=(\d+)"', html)
    assert other
    branch = page(client, f"/runs/{built.review_run}/?tip={other[0]}")
    assert "A second look after a rewind." in between(branch, 'id="steps-title"', "</section>")
    assert "Went on after the checkpoint." not in between(branch, 'id="steps-title"', "</section>")
    # The card's banner says the branch shown is not the latest, once: the Steps card does not again (friction24a 9).
    assert "Viewing branch " in branch and "not the latest" not in branch
    assert page(client, f"/sessions/{built.session_id}/?tip=abc", 404)


def test_the_node_page_shows_what_was_recorded_the_recap_branches_and_tokens(client, built):
    html = page(client, f"/runs/{built.review_run}/")
    links = re.findall(r'href="/nodes/(\d+)/" class="graph-node"', html)
    second = links[1]  # the changed files step, which has notes with the hostile payload
    node = page(client, f"/nodes/{second}/")
    assert "Record the Changed Files" in node
    assert "Step 2 of the review." in node
    assert "mr_review.changed_files" in node
    # One button copies the message for the agent; the stateToken alone waits behind a disclosure.
    assert 'data-copy-target="node-message"' in node and 'data-copy-target="state-token"' not in node
    token = re.search(r'id="state-token" class="wrap">(st1_[\w-]+)</pre>', node).group(1)
    message = between(node, 'id="node-message">', "</pre>").removeprefix('id="node-message">')
    assert message.startswith("Resume the WorkRail workflow: call continue_workflow with stateToken &quot;" + token)
    heading = between(node, 'id="node-branch-title"', "</h2>")
    # Branches 1-2 went on along one answer: one next step. Branch 3 answered this step again (the graph draws it
    # as branch 3's own card): its answer and where it went on are in the redo card, not a step after this one
    # (friction61a 1: "Next steps: 2 steps on 3 branches, all 3 taken by the agent" listed "Branch 3").
    # One card says where it went (friction62a 4): the next step by the branches the graph draws through its card,
    # branch 1; branch 2 went on to the same step but redid it, its own redone card (friction63a 5, 63b 3:
    # "Branches 1-2 · Review api" named a card branch 2 does not pass), linking that step's redo card.
    assert heading.endswith(">Where it went") and 'id="branches-title"' not in node
    assert re.search(
        r'id="where-next">\s*<li class="step">\s*<div class="step-head">\s*<h3><a href="/nodes/(\d+)/">Branch 1 · '
        r"<span[^>]*>Review api · step 4 of 8 \(area 1 of 2\)</span></a>",
        node,
    )
    shared = re.search(r'<h3><a href="/nodes/(\d+)/">Branch 1 · ', node)
    assert shared is not None
    redone = re.search(r'<li class="step next-redone">.*?<h3><a href="/nodes/(\d+)/#redos">(.*?)</a>', node, re.S)
    assert redone is not None and redone.group(1) == shared.group(1), node
    assert re.sub(r"<[^>]+>", "", redone.group(2)) == "Branch 2 · Review api (redone) · step 4 of 8 (area 1 of 2)"
    assert "Branches 1-2 · " not in between(node, 'id="where-next"', "</ol>")
    # Branch 3 redid this step: a row of the same list, in the same shape, saying so, with its answer (friction65a
    # 13: a card of its own further down, "Redo on branch 3", read as another kind of thing).
    assert 'id="redos-title"' not in node
    redo = between(node, '<li class="step redo-answered" id="redos">', "</li>")
    assert node.index('id="where-next"') < node.index('id="redos"') < node.index("</ol>", node.index('id="where-next"'))
    said = " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", redo)).split())
    assert said.startswith("Branch 3 · Review api · step 4 of 8 (area 1 of 2) redid this step took")
    assert "This step's answer on branch 3:" in said and "A second look after a rewind." in said
    recorded = between(node, 'id="recorded-title"', "</section>")
    assert "A second look after a rewind." not in recorded and "Answer on branch" not in recorded
    # the node's own stateToken, in the message and alone; each next node's is on its own page
    assert node.count("st1_") == 2
    next_nodes = between(node, 'class="steps next-nodes"', 'id="redos"')  # the steps after this one, redos aside
    # The notes are under "Answer": one answer left here, not quoted again under its next step.
    assert "Step 2 of the review." not in next_nodes and "answer-preview" not in next_nodes
    assert "&lt;svg onload" not in next_nodes
    assert "then pending" not in node
    assert "Step 1 of the review." in between(node, 'id="recap-title"', "</section>")


def test_unknown_ids_answer_a_404_page_with_the_error_code(client, built):
    for url in (
        "/sessions/ses_nope/",
        "/runs/run_nope/",
        "/nodes/123/",
        "/nodes/abc/",
        f"/runs/{built.review_run}/?tip=123",
    ):
        html = page(client, url, 404)
        assert "NOT_FOUND" in html and "What to do" in html
    html = page(client, "/workflows/team.nothing/", 404)
    assert "WORKFLOW_NOT_FOUND" in html
    response = client.get("/live/sessions/ses_nope")
    assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"


# --- hostile text ---------------------------------------------------------------------------------------

ACTIVE = [
    re.compile(r"<script>window\.__pwned", re.I),
    re.compile(r"<(?!/)[a-z][^<>]*\son[a-z]+\s*=", re.I),  # a real tag with an on* attribute
    re.compile(r"""href\s*=\s*["']?\s*javascript:""", re.I),
    re.compile(r"<svg onload", re.I),
    re.compile(r"<img src=x", re.I),
]


def test_hostile_notes_and_artifacts_are_never_rendered_as_markup(client, built):
    html = page(client, f"/runs/{built.review_run}/")
    node_ids = re.findall(r'href="/nodes/(\d+)/"', html)
    urls = [
        "/",
        f"/sessions/{built.session_id}/",
        f"/runs/{built.review_run}/",
        f"/runs/{built.plan_run}/",
        *{f"/nodes/{node_id}/" for node_id in node_ids},
    ]
    for url in urls:
        html = page(client, url)
        for pattern in ACTIVE:
            assert not pattern.search(html), (url, pattern.pattern)
    review = page(client, f"/runs/{built.review_run}/")
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in review  # escaped in the tables
    assert "click me" in review  # the Markdown link kept its text, not its javascript: target


def test_templates_hold_no_inline_script_style_or_handlers():
    """The CSP (script-src 'self', style-src 'self') would block them; keep them out of the source."""
    forbidden = re.compile(r"<script(?![^>]*\bsrc=)|<style|\sstyle=|\son[a-z]+=|javascript:", re.I)
    for template in TEMPLATES.glob("*.html"):
        assert not forbidden.search(template.read_text()), template.name
    assert not re.search(r"\|\s*safe\b|autoescape off", "".join(t.read_text() for t in TEMPLATES.glob("*.html")))


# --- actions --------------------------------------------------------------------------------------------


def test_the_mode_form_records_a_preferences_change_and_the_page_shows_it(client, built):
    url = f"/sessions/{built.session_id}/"
    assert "No change yet" in page(client, url)
    response = client.post(f"{url}preferences", {"mode": "autopilot", "back": url})
    assert response.status_code == 302 and response["Location"] == url
    assert Event.objects.filter(session__public_id=built.session_id, kind=EventKind.PREFERENCES_CHANGED).exists()
    html = page(client, url)
    assert "Preferences saved: Autopilot, stops for you" in html  # the message, once
    history = between(html, 'aria-label="Preferences changes, newest first"', "</ol>")
    assert "autopilot" in history and "by dashboard" in history
    assert "autonomy: guided → full_auto_stop_on_user_deps" in history
    # When it was changed is a clock time, as every moment something happened (how long ago in its tooltip).
    assert 'data-when="time"' in history and 'data-when="ago"' not in history
    assert 'value="autopilot" class="mode-choice" aria-pressed="true"' in html

    response = client.post(f"{url}preferences", {"autonomy": "guided", "riskPolicy": "conservative"})
    assert response.status_code == 302 and response["Location"] == url
    assert "riskPolicy: balanced → conservative" in page(client, url)


@pytest.mark.parametrize(
    "data", [{"mode": "reckless"}, {"autonomy": "yolo"}, {}, {"riskPolicy": "balanced", "mode": "<script>"}]
)
def test_a_bad_preferences_form_is_a_400_page(client, built, data):
    response = client.post(f"/sessions/{built.session_id}/preferences", data)
    assert response.status_code == 400
    assert "INVALID_INPUT" in response.content.decode()
    assert "<script>" not in response.content.decode().split("</head>", 1)[1].replace('<script src="', "")


def test_back_never_leaves_the_site(client, built):
    response = client.post(
        f"/sessions/{built.session_id}/preferences", {"mode": "guided", "back": "https://evil.example/"}
    )
    assert response["Location"] == f"/sessions/{built.session_id}/"
    response = client.post(f"/sessions/{built.session_id}/preferences", {"mode": "guided", "back": "//evil.example/"})
    assert response["Location"] == f"/sessions/{built.session_id}/"


def test_cancel_sets_the_run_canceled(client, built):
    url = f"/runs/{built.plan_run}/"
    response = client.post(f"{url}cancel", {"back": url})
    assert response.status_code == 302 and response["Location"] == url
    assert Run.objects.get(public_id=built.plan_run).status == RunStatus.CANCELED
    html = page(client, url)
    # Said in people's words: no run id, no token, no error code (friction14).
    assert "The run is canceled: an agent still on it is told so when it next calls." in html
    assert "RUN_CANCELED" not in html.split('class="messages"')[1].split("</ul>")[0]
    # Who canceled, as recorded (the dashboard, no one signed in), in the run card's status line.
    assert " · canceled in the dashboard " in between(html, 'id="run-where"', "</span>")
    assert 'id="cancel-button"' not in between(html, 'id="run-title"', "</section>")
    assert client.post("/runs/run_nope/cancel").status_code == 404
    assert client.get(f"{url}cancel").status_code == 405


def test_posts_without_the_csrf_token_are_refused(built):
    strict = Client(enforce_csrf_checks=True)
    url = f"/sessions/{built.session_id}/"
    assert strict.post(f"{url}preferences", {"mode": "autopilot"}).status_code == 403
    assert strict.post(f"/runs/{built.plan_run}/cancel").status_code == 403
    assert not Event.objects.filter(kind=EventKind.PREFERENCES_CHANGED).exists()
    assert Run.objects.get(public_id=built.plan_run).status == RunStatus.IN_PROGRESS
    html = page(strict, url)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert token
    answer = strict.post(f"{url}preferences", {"mode": "autopilot", "csrfmiddlewaretoken": token.group(1)})
    assert answer.status_code == 302


# --- live updates -----------------------------------------------------------------------------------------


def test_the_live_versions_change_when_the_session_records_something(client, built):
    listed = client.get("/live/sessions")
    one = client.get(f"/live/sessions/{built.session_id}")
    for response in (listed, one):
        assert response.status_code == 200
        assert response["Cache-Control"] == "no-store"
        assert response["Content-Type"] == "application/json"
    advance(built.answers[-1], "One more step.")
    assert client.get("/live/sessions").json()["version"] != listed.json()["version"]
    assert client.get(f"/live/sessions/{built.session_id}").json()["version"] != one.json()["version"]
    html = page(client, f"/sessions/{built.session_id}/")
    version = client.get(f"/live/sessions/{built.session_id}").json()["version"]
    assert f'data-live-version="{version}"' in html
    assert html.count("data-live-region=") >= 4


# --- the other pages ---------------------------------------------------------------------------------------


def test_the_workflow_pages_show_the_catalog_its_problems_and_an_outline(client, service_catalog):
    (service_catalog["extra"] / "broken.json").write_text("{")
    html = page(client, "/workflows/")
    assert 'href="/workflows/wr.risk_scaled_mr_review/"' in html
    assert "INVALID_JSON" in html and "broken.json" in html and "Fix:" in html
    detail = page(client, "/workflows/wr.risk_scaled_mr_review/")
    assert "Merge Request Review" in detail and "sha256:" in detail
    outline = between(detail, 'id="outline-title"', "</section>")
    assert "Record the Changed Files" in outline and "review-area" in outline  # loop bodies included
    # How to start it, before the outline: the message for the agent (the person's task after it) and where the
    # sessions that ran it are.
    start = between(detail, 'id="start-title"', "</section>")
    assert detail.index('id="start-title"') < detail.index('id="outline-title"')
    assert (
        "call start_workflow with workflowId &quot;wr.risk_scaled_mr_review&quot;, then follow the steps it gives you"
        in start
    )
    assert 'data-copy-target="start-message"' in start and 'href="/sessions/?q=wr.risk_scaled_mr_review"' in start
    # The catalog's row copies that same message (one builder: agent_message.to_start); the workflow's own ends in
    # the blank its task box fills (friction23a B1).
    message = between(start, 'id="start-message">', "</pre>").removeprefix('id="start-message">')
    message = message.removesuffix('<span id="start-message-task" data-blank=""></span>')
    row = between(html, 'id="start-wr.risk_scaled_mr_review" hidden>', "</pre>")
    assert row.removeprefix('id="start-wr.risk_scaled_mr_review" hidden>') == message
    assert 'data-copy-target="start-wr.risk_scaled_mr_review">Copy the start message</button>' in html


def test_the_catalog_page_filters_by_the_same_tags_and_search_as_list_workflows(client, service_catalog):
    extra = service_catalog["extra"]
    (extra.parent / "spec").mkdir(exist_ok=True)  # the extra directory's own tag file: a team vocabulary
    tags = {"tags": [{"id": "release", "displayName": "Releases", "when": ["shipping"]}], "workflows": {}}
    (extra.parent / "spec" / "workflow-tags.json").write_text(json.dumps(tags), encoding="utf-8")
    write_json(extra / "ship.json", workflow_doc("team.ship", name="Ship it", tags=["release"]))
    write_json(extra / "demo.json", workflow_doc("team.polling_example", name="Polling demo"))
    html = page(client, "/workflows/")
    filters = between(html, 'aria-label="Tags"', "</ul>")
    assert 'href="?tag=release"' in filters and "Releases" in filters and 'title="shipping"' in filters
    assert 'href="?tag=review_audit"' in filters  # the bundled vocabulary
    assert "team.polling_example" in html and '<span class="tag example"' in html  # shown, marked
    # The bucket of workflows no tag names reads as a label, capitalised as the others (its id stays "untagged").
    assert 'href="?tag=untagged"' in filters and ">Untagged <span" in filters and ">untagged" not in filters
    # Two sources and two kinds: their columns stay.
    assert '<th scope="col">Source</th>' in html and '<th scope="col">Kind</th>' in html
    # The jargon explained in one line in sight above the table, where the Kind column shows (friction12 10).
    assert '<p class="muted small" id="routine-hint">A <strong>routine</strong> is a short workflow' in html
    only = page(client, "/workflows/?tag=release")
    assert "team.ship" in only and "wr.risk_scaled_mr_review" not in only and 'aria-current="true"' in only
    # One source and one kind among the rows left, yet both columns stay: they are judged over the whole
    # catalog, so a filter does not make columns come and go (friction10 14).
    assert '<th scope="col">Source</th>' in only and '<th scope="col">Kind</th>' in only
    assert 'class="source-once"' not in only
    # No routine among the rows left: the line explaining the word goes (friction60a 18).
    assert 'id="routine-hint"' not in only
    searched = page(client, "/workflows/?q=risk+scaled")
    assert "wr.risk_scaled_mr_review" in searched and "team.ship" not in searched
    assert "No workflow matches." in page(client, "/workflows/?q=nothing+like+this")
    # A loop of one step is said, not hidden, in words a newcomer gets, short enough for its cell, with one count
    # (the one a run's "step 4 of 8" counts against, never a second one to add to it); the loop's steps in its tooltip.
    assert ">8 steps, with a loop</span>" in searched and "that repeat" not in searched
    assert "each loop counted as one; the 1 step inside loops runs once per round" in searched


def test_the_timings_and_connect_pages(client, built):
    from datetime import UTC

    assert "No tool call recorded yet." in page(client, "/timings/")
    now = timezone.now()
    ToolCall.objects.bulk_create(
        [
            ToolCall(tool="continue_workflow", outcome="ok", duration_ms=12.5, started_at=now),
            ToolCall(tool="continue_workflow", outcome="TOKEN_UNKNOWN", duration_ms=3.0, started_at=now),
            ToolCall(tool="start_workflow", outcome="ok", duration_ms=250.0, started_at=now),
        ]
    )
    html = page(client, "/timings/")
    stats = between(html, 'id="stats-title"', "</table>")
    assert stats.index("continue_workflow") < stats.index("start_workflow")
    assert "12 ms" in stats and "250 ms" in stats
    recent = between(html, 'id="recent-title"', "</table>")
    assert "TOKEN_UNKNOWN" in recent
    # The one page whose times say seconds: it measures timings (the dashboard's one rule for times).
    assert recent.count('data-when="seconds"') == 3 and 'data-when="time"' not in recent
    assert f"{now.astimezone(UTC):%H:%M:%S} UTC</time>" in recent
    html = page(client, "/connect/")
    assert "claude mcp add workrail" in html and "mcpServers" in html


def test_every_page_has_the_top_navigation_and_our_stylesheet(client, built):
    for url in ("/", "/workflows/", "/timings/", "/connect/", f"/sessions/{built.session_id}/"):
        html = page(client, url)
        for link in ('href="/sessions/"', 'href="/workflows/"', 'href="/timings/"', 'href="/connect/"'):
            assert link in html
        assert 'href="/api/v1/docs"' in html and 'href="/admin/"' in html
        assert "/static/dashboard/dashboard.css" in html and "/static/dashboard/live.js" in html


# --- a constant number of queries --------------------------------------------------------------------------


def test_the_session_and_sessions_pages_read_a_fixed_number_of_queries(client, built):
    session_url = f"/sessions/{built.session_id}/"
    run_url = f"/runs/{built.review_run}/"
    first = Node.objects.filter(run__public_id=built.review_run).order_by("pk").first()
    assert first is not None
    node_url = f"/nodes/{first.public_id}/"
    small = [count_queries(client, url) for url in ("/sessions/", session_url, run_url, node_url)]
    # More of everything: sessions, runs in the session, steps, and preferences changes.
    answer = built.answers[-1]
    for index in range(4):
        answer = advance(answer, f"Extra step {index}.")
    for index in range(6):
        start_workflow("wr.routine-focused_plan", context={"sessionKey": f"OTHER-{index}"})
    extra = start_workflow("wr.routine-focused_plan", context={"sessionKey": SESSION_KEY})
    advance(extra, "Another plan.")
    client.post(f"{session_url}preferences", {"mode": "unattended"})
    client.post(f"{session_url}preferences", {"mode": "guided"})
    large = [count_queries(client, url) for url in ("/sessions/", session_url, run_url, node_url)]
    assert large == small


def test_a_completed_run_shows_its_synthesis_and_cannot_be_canceled(client, built):
    answer = advance(built.answers[-1], "Summed up: **ship it**.")
    assert answer["kind"] == "complete"
    url = f"/runs/{built.review_run}/"
    html = page(client, url)
    # The run forked twice: its newest branch completed, the two others are still open (issue 20).
    # One status line for the run: finished when, on which branch, how many steps (friction6 item 9); the others'
    # state is their badges' in the list under it, said once (friction12 item 2).
    assert 'id="shown-branch"' not in html
    where = between(html, 'id="run-where">', "</span>").removeprefix('id="run-where">')
    assert where.startswith("Finished <time") and "</time> · branch 1 · " in where, where
    # The run is done: its two left-behind branches are history, listed with their badge and no "Resume the agent…" up
    # front (friction5 item 13); each one's own step page still offers to resume from there. One word for
    # them, the state's: never "set aside" (friction6 item 9).
    others = between(html, 'class="branch-callouts', "</details>")
    assert others.count("state-left_behind") == 2 and "state-open" not in html
    assert others.count(" of 2)</a>") == 2 and "set aside" not in html, others  # each names its step's round
    assert "Resume the agent…" not in html and "Want it back?" not in html and 'class="left-behind-line"' not in html
    tip = re.findall(r"\?tip=(\d+)", others)[0]
    left = page(client, f"/nodes/{tip}/")
    assert ">Resume here</h2>" in left and 'id="step-state">Left behind</span>' in left
    # The quiet outline, in sight with its line (friction16, friction19b 15, friction22a B3), under the one name of
    # its message.
    assert 'class="copy-button copy-quiet" data-copy-target="node-message">Copy the resume message<' in left
    assert "No agent works on this branch. Resuming continues branch 2 from this step, as it was." in left
    assert "Want it back?" not in left
    synthesis = between(html, 'id="synthesis-title"', "</section>")
    assert "Summed up: <strong>ship it</strong>." in synthesis
    assert "mr_review.findings" in synthesis
    assert 'id="cancel-button"' not in between(html, 'id="run-title"', "</section>")
    response = client.post(f"{url}cancel")
    assert response.status_code == 400 and "INVALID_INPUT" in response.content.decode()


# --- presentation helpers ---------------------------------------------------------------------------------


def test_delegated_runs_are_listed_under_the_run_that_handed_them_out():
    from datetime import UTC, datetime

    from runs.contract.dashboard import RunSummary
    from runs.dashboard.sessions import run_tree

    def run(run_id: str, parent: str | None = None) -> RunSummary:
        at = datetime(2026, 1, 1, tzinfo=UTC)
        return RunSummary(
            run_id=run_id,
            session_id="ses_x",
            workflow_id="wr.x",
            workflow_name="X",
            workflow_hash="sha256:0",
            status="in_progress",
            node_count=1,
            branch_count=1,
            delegated_by=parent,
            created_at=at,
            updated_at=at,
        )

    runs = [run("a"), run("a1", "a"), run("b"), run("a2", "a"), run("a1x", "a1"), run("orphan", "gone")]
    assert [(item.run.run_id, item.level) for item in run_tree(runs)] == [
        ("a", 0),
        ("a1", 1),
        ("a1x", 2),
        ("a2", 1),
        ("b", 0),
        ("orphan", 0),
    ]


def test_the_time_filters():
    from datetime import UTC, datetime, timedelta

    from runs.templatetags.dashboard import ago, duration, lasted, stamp

    now = timezone.now()
    assert ago(now) == "just now"
    assert ago(now - timedelta(minutes=5)) == "5 min ago"
    assert ago(now - timedelta(hours=3)) == "3 h ago"
    assert ago(now - timedelta(hours=23, minutes=20)) == "23 h ago"
    # A day and older: the day and the clock, not "1 day ago" (the dashboard's one rule for times).
    assert ago(now - timedelta(days=1)) == f"{now - timedelta(days=1):%-d %b}, {now - timedelta(days=1):%H:%M} UTC"
    assert ago(datetime(2020, 3, 4, 5, 6, 7, tzinfo=UTC)) == "4 Mar 2020, 05:06 UTC"
    assert ago(None) == "" and ago("not a date") == ""
    assert stamp(datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)) == "2026-03-04 05:06:07 UTC"
    assert stamp("2026-03-04T05:06:07.5+00:00") == "2026-03-04 05:06:07 UTC"
    # One unit for each size, the same on the run pages, the timings and the reports.
    # The filter holds each on one line: a number never wraps away from its unit ("217 / ms", friction16b 8).
    assert [duration(s) for s in (0.0004, 0.005, 0.041, 0.9994, 0.9996, 2.5, 9.97, 42, 185, 7200)] == [
        "0.4\xa0ms", "5\xa0ms", "41\xa0ms", "999\xa0ms", "1.0\xa0s",
        "2.5\xa0s", "10\xa0s", "42\xa0s", "3\xa0min\xa05\xa0s", "2\xa0h",
    ]  # fmt: skip
    # What a person or an agent spent says whole units as a person counts them, never milliseconds
    # (friction16a 4): a step answered in 63 ms "took under a minute".
    assert [lasted(s) for s in (0.063, 59.9, 60, 45 * 60 + 59, 3 * 3600, 3 * 86400)] == [
        "under\xa0a\xa0minute", "under\xa0a\xa0minute", "1\xa0min", "45\xa0min", "3\xa0h", "3\xa0days"
    ]  # fmt: skip


def test_the_session_page_names_the_session_and_each_checkpoints_step_in_words(client, built):
    html = page(client, f"/sessions/{built.session_id}/")
    crumbs = between(html, '<p class="crumbs">', "</p>")
    assert f'<span title="session {built.session_id}">TICKET-4242</span>' in crumbs
    facts = between(html, 'id="session-facts"', "</ul>")
    assert "<h1>TICKET-4242</h1>" in html and "key " not in facts  # the title is the key: said once
    # The review's checkpoint is the review's: not listed in the column of the run shown here (the plan);
    # on the review's page it is a mark on the step it was saved during (ninth review item 5).
    assert 'id="notes-title"' not in html
    steps = between(page(client, f"/runs/{built.review_run}/"), 'id="steps-title"', "</section>")
    post = re.split(r"<h3[^>]*>Post the Approved Comments", steps, maxsplit=1)[1].split("<h3", 1)[0]
    assert 'class="checkpoint-mark"' in post and "Checkpoint during" not in steps and "during <span" not in steps
    assert f">run {built.review_run}" not in steps
