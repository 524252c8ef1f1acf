"""The session, run, node and sessions pages tell the truth about branches and blocked runs (issue 20)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.support.branched_review import blocked_review, forked_review, node_id_of

pytestmark = pytest.mark.django_db

# Where the run is, in the dashboard's words (runs/readmodels/states.py): its newest branch, where the agent works,
# placed in the outline (the review loop is its 4th entry; the agent is in its 2nd round).
# What a finished branch beside the one the agent works on means, once (friction18b 11).
WENT_BACK = "branch 2 redoes part of it and is where the agent works now"
WHERE = "Review storage · step 4 of 8 (area 2 of 2)"  # its name first, then the one locator (step_places.named)
# The same place as the run card's status line opens its sentence (status_line.of_run): the place first.
# The step's name leads in bold (friction25a 8), its counters then the state on the same line (friction28b 5).
STATUS = "<strong>Review storage</strong> · step 4 of 8 (area 2 of 2) · branch 2 · agent working <time"


# How long the agent has been at the step, after its words: one piece with its "·" (its own line on a phone).
PENDING_FOR = '</strong> <span class="nowrap pending-for"><span class="sep">· </span><time'


def visible(html: str) -> str:
    """A page without its drawings: the timeline's dots name each step in the page's words, in their tooltips."""
    return re.sub(r"<svg\b.*?</svg>", "", html, flags=re.S)


def html_of(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_each_branch_page_shows_its_own_work_and_names_the_other(client, service_catalog):
    review = forked_review()
    newest = html_of(client, f"/runs/{review.run_id}/")
    assert 'id="synthesis-title"' not in newest and 'id="findings-title"' not in newest
    assert "Branch 1 · Request changes, 1 critical finding" in newest
    assert f'href="/runs/{review.run_id}/?tip={review.done_tip}"' in newest
    # Where the agent works is the card's status line's, once: no pending line says it again.
    assert newest.count(STATUS) == 1 and 'id="pending-step"' not in newest

    first = html_of(client, f"/runs/{review.run_id}/?tip={review.done_tip}")
    assert "Summary of branch 1" in first and "What the branch ended with" in first
    # What it ended with, in people's words and the recording step's title; the kinds and step ids folded.
    ended = first.split('<ul class="ended-with">', 1)[1].split("</ul>", 1)[0]
    assert "The list of changed files" in ended and "mr_review." not in ended and "from “" in ended
    ids = first.split('id="ended-with-ids"', 1)[1].split("</details>", 1)[0]
    assert "<code>mr_review.changed_files</code> from step <code>" in ids
    assert "SQL built from user input" in first  # the findings table
    assert f">{WHERE}&nbsp;→</a>" in first  # named once, by the banner (friction24a 9)

    assert STATUS in html_of(client, f"/sessions/{review.session_id}/")
    assert WHERE in html_of(client, "/sessions/")
    node = html_of(client, f"/nodes/{review.open_tip}/")
    assert "On branch 2" in node and "Branch 1 · Request changes, 1 critical finding" in node


def test_the_forked_review_says_each_thing_once_and_the_newest_branch_first(client, service_catalog):
    review = forked_review()
    session = html_of(client, f"/sessions/{review.session_id}/")
    # One run: where it is once, in its card's status line (not in the session's head or a pending line too);
    # its branches counted once.
    assert session.count(STATUS) == 1 and 'id="session-run-lines"' not in session
    assert 'id="pending-step"' not in session
    assert "1 run, 2 branches" not in session and '<li class="fact-runs">1 run</li>' in session
    # The run card lists its other branch: no "2 branches" line under the list to say it again (friction23a B5,
    # 23b 9); the run's "Details" fold stays.
    assert "2 branches</span>" not in session and "<li>2 branches</li>" not in session
    assert 'id="other-branches"' in session and 'id="run-details"' in session
    assert "open at step 4, Review storage" not in session  # the branches' line does not repeat it
    # The status line says on which branch the agent works (friction6 item 9); showing the newest branch, nothing
    # says which is shown. A branch finished beside one that goes on: how the agent went back is told, never
    # "replaced" (friction8 5); where it grew from, the list of branches says.
    assert f'id="branch-story">Branch 1 finished; {WENT_BACK}.</p>' in session
    assert 'id="shown-branch"' not in session
    assert "the newest, where the agent works" not in session
    # Canceling stops the open branch only (branch 1 finished), but it ends the whole run: the label says so on a
    # run of several branches (friction28b 14), its confirmation saying every branch stops (friction22a B5).
    button = session.split('id="cancel-button">')[1].split("</summary>")[0]
    assert button == "Cancel run (all branches)…" and "every branch of the run stops" in session

    first = html_of(client, f"/runs/{review.run_id}/?tip={review.done_tip}")
    # Another branch shown: one banner says which, in its state's word, and leads to where the agent works, named
    # once (friction24a 9): no "Latest:" line with a pill, no row for branch 2 in the list, no story line.
    banner = first.split('id="shown-branch">')[1].split("</p>")[0]
    assert banner.startswith("Viewing branch 1 (done). ")
    # The run's pill kept beside branch 2 (friction61a 9: without it the card had no state).
    assert '<span class="nowrap">Branch 2:</span>' in banner and "Agent&#x27;s move · Working" in banner
    assert f">{WHERE}&nbsp;→</a>" in banner
    assert "Latest:" not in first and "agent working <time" not in first
    assert "· the run's newest step" not in first and 'id="branch-story"' not in first
    assert 'id="other-branches"' not in first  # branch 2 was the only other: the list goes


def between_where(page: str) -> str:
    at = page.index('id="where-next"')
    return page[at : page.index("</ol>", at)]


def test_a_node_before_the_fork_is_on_both_branches_and_its_answers_are_told_apart(client, service_catalog):
    review = forked_review()
    fork = html_of(client, f"/nodes/{node_id_of(review.answers[1])}/")
    # Branch 2 has its own copy of the step: said once, in the redo card, not in the heading too (friction61b 7).
    # Where branch 1 went from here, one card (friction62a 4).
    assert '<h2 id="node-branch-title">Where it went</h2>' in fork and "(redo on branch 2)" not in fork
    # Branch 2's redo is a row of that card's one list, saying it redid the step (friction65a 13).
    assert 'id="redos-title"' not in fork and "redid this step</span>" in between_where(fork)
    # Branch 2 grew from its own redo of this step: not among the branches that went on from here (friction60a
    # 2), nor in their list of where each stands now, whose caption it made untrue (friction64: "Branches 1 and 2
    # now:" under "Where it went"); its redo card says where it is now, with its pill. Still no second list of the
    # run's branches (friction63a 5).
    assert 'id="node-went-on">Branch 1 now:</p>' in fork and "Other branches of this run" not in fork
    listed = fork.split('class="node-branches"')[1].split("</ul>")[0]
    assert "Branch 2 ·" not in listed and "Branch 1 ·" in listed
    redo = fork.split('id="redos"')[1].split("</section>")[0]
    now = redo.split('id="redo-now-2">')[1].split("</p>")[0]
    assert now.startswith("Now: ") and 'class="badge state-' in now and "Branch 2 ·" in now
    first = html_of(client, f"/nodes/{node_id_of(review.answers[0])}/")
    assert '<h2 id="node-branch-title">Where it went</h2>' in first and "Branches 1 and 2 now:" in first

    newest = html_of(client, f"/runs/{review.run_id}/")
    assert "↺ redone here; branch 1 had answered: &#x27;Did list-changed-files.&#x27; →" in newest
    earlier = html_of(client, f"/runs/{review.run_id}/?tip={review.done_tip}")
    assert "↺ redone on branch 2: &#x27;After the rewind: a second look" in earlier
    assert f'?tip={review.open_tip}">↺ redone on branch 2' in earlier  # the footnote links the branch


def test_a_blocked_run_explains_itself_on_every_page(client, service_catalog):
    stuck = blocked_review()
    message = stuck.refused["blocked"]["issues"][0]["message"].replace("'", "&#x27;")
    # The agent's pointer into its own answer is left out for people: the page shows the shape itself.
    message = message.replace("; see pending.outputContract for its schema and an example.", ".")
    for url in (f"/sessions/{stuck.session_id}/", f"/runs/{stuck.run_id}/"):
        html = html_of(client, url)
        assert 'class="blocked-panel"' in html, url
        # The state and the step said once, by the card's status line; the panel opens with what happens next;
        # the call, the example and the artifact's shape behind the run's one disclosure for developers.
        where = html.split('id="run-where"')[1].split("</span>")[0]
        assert "><strong>Record the Changed Files</strong> · step 2 of 8 · refused <time" in where, url
        assert ", the agent must resend it" in where, url
        assert (
            'class="verdict-line"' not in html
            and visible(html).count("<strong>Record the Changed Files</strong> · ") == 1
        ), url
        # Whose move and the state, in the one pill of the status line (not the page's head, nor the panel).
        head = html.split('class="page-head"')[1].split("</div>")[0]
        label = 'class="badge state-blocked" data-move="agents">Agent&#x27;s move · Retrying</span>'
        assert label not in head and html.count(label) == 1, url
        assert label in html.split('id="run-status"')[1].split("</p>")[0], url
        # The one run's card in the runs column names it only.
        card = html.split('class="runs-nav"')[1].split("</nav>")[0]
        assert 'class="badge ' not in card, url
        assert 'class="badge ' not in html.split('class="blocked-panel"')[1].split("</section>")[0], url
        assert '<details class="blocked-more' not in html, url
        more = html.split('id="run-details"')[1].split("</details></li>")[0]
        # The fold is named by what it holds (friction25b 9), not a bare "Details".
        title = "Details: the refused answer, codes, the call, the run&#x27;s ids"
        assert more.split("<summary>")[1].startswith(title + "</summary>"), url
        assert 'class="resend-call"' in more and 'class="expected-example"' in more, url
        assert 'id="pending-step"' not in html, url
        # What is wrong in plain words, in the panel; the code and the place in the agent's answer under "For
        # developers", not a column of the person's panel (friction24a 11).
        words = "The agent did not attach the list of changed files."
        issue = html.split('<ul class="blocked-issues">')[1].split("</ul>")[0].replace("<wbr>", "")
        assert words in issue and message not in issue and "contract" not in issue, url
        assert "ARTIFACT_MISSING" not in issue and "Code and place" not in html, url
        codes = html.split('<ul class="issue-codes">')[1].split("</ul>")[0].replace("<wbr>", "")
        assert (
            '<code class="code-word">ARTIFACT_MISSING</code> at <code class="pointer">/output/artifacts</code>' in codes
        )
        assert html.index('<ul class="issue-codes">') > html.index('<h4 class="fold-sub">For developers</h4>'), url
        # What the refusal told the agent names its tokens: under "For developers", never above it (friction62b 6).
        told = html.index('class="muted small refusal-told">The refusal told the agent: “')
        assert told > html.index('<h4 class="fold-sub">For developers</h4>'), url
        assert (
            "ackToken" not in html.split('<h4 class="fold-sub">The refused answer</h4>')[1].split("For developers")[0]
        )
        # For the developer, only the exact call: whose move it is and the message to give a stopped agent the
        # panel says once, not the drawer again (friction12 item 8).
        assert ">The call the agent must make</summary>" in html and "To get past the refusal" in html, url
        assert "Nothing for you to do unless" not in html and "give it this call" not in html, url
        # The call as its text reads (the tags that let a long line wrap, hanging_lines, copy as nothing).
        call = re.sub(r"<[^>]+>", "", html)
        assert f"&quot;ackToken&quot;: &quot;{stuck.refused['ackToken']}&quot;" in call, url
        assert f"&quot;stateToken&quot;: &quot;{stuck.refused['stateToken']}&quot;" in call, url
        # The refused answer, the expected artifact's shape, and why each part of the call is there.
        assert "The refused answer" in html and "Listed the files in my head." in html, url
        assert "changedFiles (a list; each: path, summary, risk)" in html, url
        assert "see pending.outputContract" not in html, url
        assert "<code>context.reviewAreas</code> — also asked for by this step" in html, url
        assert "output.artifacts (mr_review.changed_files)" in html, url
        assert "refused <time" in html, url
        # A part of the call an issue names points back at the codes by their heading's own words; no heading
        # stands empty over another (the run page's "The refused step" had nothing under it).
        assert "(see the refusal's codes above)" in more and "see the issue above" not in html, url
        assert "The refusal's codes" in more and "The refused step</h4>" not in html, url
        assert not re.search(r"</h4>\s*<h4", more), url

    session = html_of(client, f"/sessions/{stuck.session_id}/")
    # Badged once, on the run card's status line (a session of one run: not in its head or its runs column too).
    assert session.count('badge state-blocked" data-move="agents">Agent&#x27;s move · Retrying</span>') == 1
    # The panel's verdict and place line name the step already: its link does not name it a third time.
    assert f'<a href="/nodes/{stuck.node_id}/">Open the refused step\'s page</a>' in session

    node = html_of(client, f"/nodes/{stuck.node_id}/")
    # The refused step's page shows the refusal itself, the run page's panel (not a link to it): the verdict,
    # what is wrong and what the agent is told, under the step's own Blocked pill.
    refusal = node.split('id="node-refusal"')[1].split('id="resume-here"')[0]  # to the "Resume here" under it
    # Its message is "Resume here"'s, right under it, under the title every state has (friction22a B1): one copy
    # button on the page, the quiet outline while the agent is to resend, with when it turns the person's move.
    resume = node.split('id="resume-here"')[1].split("</section>")[0]
    assert "copy-button" not in refusal and node.count('class="copy-button') == 1
    assert 'class="copy-button copy-quiet" data-copy-target="node-message">' in resume
    # Behind the run page's closed fold while the agent is to resend (friction23a A6, 23b 6).
    fold = resume.split('<details class="resume-message if-stopped-fold fold-quiet" id="resume-message">')[1]
    assert fold.lstrip().startswith('<summary id="resume-what"><span id="resume-here-title">Resume here</span>')
    assert "</span> · only if the agent stopped</summary>" in fold
    # Inside, the message; when the move turns the person's is said in the refusal's panel, as on the run page,
    # once (friction60b 12: it was only inside this closed fold).
    assert fold.index("</summary>") < fold.index("copy-button") and "It becomes your move" not in fold
    refusal = node.split('id="node-refusal"')[1].split("</section>")[0]
    assert '<p class="small muted turns-line" id="turns-1">It becomes your move <time' in refusal
    assert node.count("It becomes your move <time") == 1
    # One status: the refusal, not also "Agent working on this step" above it (friction14 item 2).
    assert 'id="node-pending"' not in node and "Agent working on this step" not in node
    assert 'class="blocked-panel"' in refusal and "Why it was refused" in refusal
    # "Refused", never "Blocked" (friction19a 1, 28a 2): its pill says "Retrying" while the agent is to
    # resend it.
    # What it takes said once, by "Why it was refused" under the verdict (friction61a 5, 61b 14).
    assert "Refused: the agent normally resends this step by itself; nothing for you to do now.</span>" in refusal
    # Said once (friction62b 7): no lead line repeating the heading, no "Refused at …", no "the branch stays …".
    assert 'class="next-move"' not in refusal and 'class="small muted refused-when"' not in refusal
    assert "The branch stays at this step" not in node and "normally resends the step" not in refusal
    assert refusal.split('class="blocked-more')[0].count("list of changed files") == 1
    assert "Agent&#x27;s move · Retrying" in node and "Blocked" not in refusal
    # On a step's page the panel keeps its own fold: the page has no run facts to share it. One "Details" fold,
    # its last (friction17b 6), the refused answer then "For developers" (friction22a B6, 22b B11).
    # The fold is named by what it holds (friction25b 9).
    named = ">Details: the refused answer, codes, the call</summary>"
    assert refusal.count(named) == 1 and 'class="resend-call"' in refusal
    box = refusal.split("</section>")[0]
    fold = box.split('<details class="blocked-more fold-quiet"')[1]
    # Inside it, each JSON block in its own closed fold (friction63a 8, 63b 7), none beside it.
    assert box.count("<summary") == box.count(named) + box.count('class="if-stopped-fold"') + 2
    assert fold.count('<details class="dev-code"') == 2 and "<details open" not in fold
    assert fold.index(">The refused answer</h4>") < fold.index("refused-answer-") < fold.index(">For developers</h4>")
    assert "ARTIFACT_MISSING" in refusal and "The refused answer" in refusal
    assert "Open the refused step&#x27;s page" not in node and "Open the refused step's page" not in node
    assert 'id="step-state">Agent&#x27;s move · Retrying</span>' in node
    assert "Agent&#x27;s answer: none accepted yet." in node and "for the reason shown above" not in node
    assert "see above" not in node and "Nothing recorded on this node yet" not in node
    # One entry for the message on the page (friction16): "Resume here"'s, not also the refusal panel's.
    assert node.count("Copy the resume message</button>") == 1
    assert 'data-copy-target="blocked-message-1"' not in node and 'id="if-stopped-1"' not in node
    assert 'id="fork-details"' in node


def test_the_sessions_list_counts_branches_in_the_where_line_only_when_a_run_branched(client, service_catalog):
    # friction26a 8, 26b 9: a "Run branches" column read "1" on nearly every row and was jargon; the column is
    # gone, and a row's where-line says "2 branches" in its bracket only where a run branched, at every size
    # (overview.where_note: the phone card no longer says it apart).
    review = forked_review()
    blocked = blocked_review()
    html = html_of(client, "/sessions/")
    rows = {
        row.split('href="/sessions/', 1)[1].split("/", 1)[0]: row for row in html.split('<tr class="session-row')[1:]
    }
    forked, plain = rows[review.session_id], rows[blocked.session_id]
    assert '<span class="muted where-note">(2 branches)</span>' in forked
    # friction62b 16: and which of them the step it names is on, the branch its agent works on.
    where = forked.split('class="where-link', 1)[1].split("</a>", 1)[0]
    assert where.endswith(' · <span class="where-branch">branch 2</span>'), where
    assert "branch" not in plain.split('class="session-where', 1)[1]
    head = html.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert "ranches</th>" not in head and "Runs</th>" in head
    assert head.count("<th ") == plain.split("</tr>", 1)[0].count("<td")  # as many cells as headings


def test_the_run_fold_says_no_node_count_beside_the_timeline_s_step_count(client, service_catalog):
    # friction60a 8: "Nodes 11 (10 steps, 1 checkpoint; the 2 steps redone after branching are answered at their
    # first node)" beside the timeline's "12 steps reached (9 answered) and 1 checkpoint" and 12 graph cards read
    # as a miscount, in a word ("node") readers do not know: the developers' fold counts nothing; the ids stay.
    from tests.support.sample_session import two_runs_one_forked_twice

    built = two_runs_one_forked_twice()
    for run_id in (built.review_run, forked_review().run_id, blocked_review().run_id):
        page = html_of(client, f"/runs/{run_id}/")
        fold = page.split('id="run-details"', 1)[1].split("</details></li>", 1)[0]
        assert f'id="run-id-{run_id}"' in fold
        assert "Nodes" not in fold and "first node" not in fold and "run-nodes-parts" not in page
