"""A run's page leads with what it produced and says things in people's words (the fourth review's friction
items 5 and 6): a line of jump links under the run's header; the run, workflow and artifact kind ids, the
node count and the token wording in folds for developers, still there to copy."""

from __future__ import annotations

import re

import pytest

from runs.models import Node
from tests.support.mcp_calls import continue_workflow, start_workflow
from tests.support.pages import page, text_of
from tests.support.sample_session import REVIEW

pytestmark = pytest.mark.django_db


def between(html: str, start: str, end: str) -> str:
    first = html.index(start)
    return html[first : html.index(end, first)]


def test_the_run_header_names_what_the_branch_produced_with_links_to_its_sections(client, built):
    html = page(client, f"/runs/{built.review_run}/")
    line = between(html, 'id="run-produced"', "</p>")
    assert text_of("<p " + line) == "Produced on branch 1: findings · changed files"
    assert re.findall(r'href="#([\w-]+)"', line) == ["findings-title", "files-title"]
    assert 'id="findings-title"' in html and 'id="files-title"' in html
    # The line, then the sections it jumps to, come before the branch graph and the step list.
    order = [html.index(f'id="{i}"') for i in ("run-produced", "findings-title", "files-title", "graph-title")]
    assert order == sorted(order) and order[-1] < html.index('id="steps-title"')
    # Of a session's several runs, the shown run's own card names the branch its agent works on, once, in its
    # status line, not its facts line (friction11 item 1); its card in the runs column counts its branches as the
    # other runs' cards do, so the index keeps one shape whichever run is shown (friction19a 14), "1 branch" too,
    # and the session's head counts the runs only: the cards' counts add up (friction22a A2).
    assert re.findall(r'<span class="run-branches">([^<]+)</span>', html) == ["3 branches", "1 branch"]
    head = between(html, 'class="page-head"', "</ul>")
    assert '<li class="fact-runs">2 runs</li>' in head and "branches" not in head
    assert re.findall(r"<li>(\d+) branches</li>", html) == []
    status = text_of(between(html, 'id="run-where"', "</span>"))
    assert re.search(r" · step \d+ of \d+ · branch 1 · agent working ", status), status
    # That branches 2 and 3 were left behind, the list of the other branches right under it says, once each, as
    # their badges (friction12 item 2): not the line too.
    card = between(html, 'id="run-title"', 'id="run-facts"')
    assert re.findall(r'class="badge state-left_behind" data-move="nobody">([^<]+)<', card) == ["Left behind"] * 2, card


def test_the_runs_ids_wait_in_a_fold_and_the_facts_say_branches_not_nodes(client, built):
    html = page(client, f"/runs/{built.review_run}/")
    facts = between(html, 'id="run-facts"', "</ul>")
    shown = facts.split('<details class="run-details"', 1)[0]
    assert built.review_run not in shown and REVIEW not in shown and "node" not in shown
    assert "branches" not in text_of(shown)  # counted once, by the run's card in the runs column (friction11 1)
    fold = between(html, 'id="run-details"', "</details>")
    # Named by what it holds (friction25b 9); holding only a developer's things, it says so once, in its name.
    assert "<summary>For developers: the run&#x27;s ids</summary>" in fold, fold[:300]
    assert ">For developers</h4>" not in fold
    assert f'id="run-id-{built.review_run}">{built.review_run}</code>' in fold
    assert f'data-copy-target="run-id-{built.review_run}"' in fold  # copyable
    assert f'href="/workflows/{REVIEW}/"' in fold and "Nodes" not in fold
    # A step's artifacts are named by what they hold; their kinds stay in the JSON under them.
    assert "Artifacts: Changed files" in html and "Artifacts: mr_review" not in html
    # The run cards name the run by its workflow; its id only in the link's tooltip.
    runs = between(html, 'class="runs-nav"', "</nav>")
    assert f">{built.review_run}<" not in runs and f'title="run {built.review_run}"' in runs


def test_the_node_page_says_resume_and_fork_in_plain_words_with_tokens_for_the_api(client, built):
    review = Node.objects.filter(run__public_id=built.review_run)
    forked = next(n for n in review.order_by("depth") if n.children.count() > 1)
    html = page(client, f"/nodes/{forked.public_id}/")
    # A step the run went on from: "Branch from here", its two ways each folded.
    card = between(html, 'id="branch-title"', "</section>")
    said, api = card.split('<details class="raw-token fold-quiet">', 1)
    said = said.replace(between(said, 'id="node-message"', "</pre>"), "")  # the message itself names tokens
    assert said.startswith('id="branch-title">Branch from here</span>')
    # The two ways told apart by their outcome (friction15, friction24a 7), what each does in the one fold.
    assert ">Redo with the same inputs</summary>" in said
    assert "ackToken" not in said and "acknowledging" not in said and "node" not in text_of(said)
    assert "For developers</summary>" in api and "acknowledging it again starts a new branch" in api
    assert "Redo with new inputs</summary>" in api and "sets an agent going on the new branch" in api
    assert "answers this step again, and its answer starts the branch" in api
    assert "nothing is recorded until you confirm a preview of the change" in api
    assert ">Where it went</h2>" in html


def test_other_artifacts_share_one_closed_drawer_for_developers(client, service_catalog):
    start = start_workflow("wr.routine-focused_plan", context={"sessionKey": "OTHERS-1"})
    notes = [
        {"kind": "wr.review_verdict", "verdict": "clean", "confidence": "high", "findings": [], "summary": "Fine."},
        {"kind": "wr.gate_verdict", "version": 1, "verdict": "approved", "confidence": "high", "rationale": "R" * 20},
    ]
    continue_workflow(
        stateToken=start["stateToken"],
        ackToken=start["ackToken"],
        output={"notesMarkdown": "Clarified.", "artifacts": notes},
    )
    html = client.get(f"/runs/{start['session']['runId']}/").content.decode()
    card = between(html, 'id="artifacts-title"', "</section>")
    # Two artifacts, each said by its fields; their kinds wait in the card's one drawer, closed, after them.
    assert card.count('<article class="artifact"') == 2
    assert card.count("For developers") == 1 and "<details open" not in card
    drawer = card.split('<details class="artifact-ids for-developers">', 1)[1]
    assert "</article>" not in drawer and "wr.gate_verdict" in drawer.replace("<wbr>", "")


def test_a_long_branchs_earlier_steps_wait_in_one_fold_under_the_newest_three(client, built):
    # The graph above draws every step: the list shows the newest three, the rest under "Earlier steps (N)",
    # each still on the page with its anchor to jump to (friction24a 15, 24b 12).
    html = page(client, f"/runs/{built.review_run}/")
    steps = html[html.index('id="steps-title"') :]
    fold = between(steps, 'id="earlier-steps"', "</ol>\n  </details>")
    shown = steps[steps.index("</ol>\n  </details>") :]
    shown = shown[: shown.index("</section>")]
    count = re.search(r"<summary>Earlier steps \((\d+)\)</summary>", fold)
    assert count is not None and fold.count('class="step step-kind-') == int(count.group(1)) >= 2
    assert fold.count('id="step-fold-') == int(count.group(1))
    assert shown.count('class="step step-kind-') == 3
