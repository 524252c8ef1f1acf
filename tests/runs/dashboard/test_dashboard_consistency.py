"""Issue 32's inconsistencies, each with its own test: the Mode panel and its history say the same thing."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

from tests.support.mcp_calls import continue_workflow, start_workflow
from tests.support.workflow_files import workflow_doc, write_json

pytestmark = pytest.mark.django_db

PLAN = "wr.routine-focused_plan"


def html_of(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_the_mode_panel_says_which_run_takes_the_preferences_its_history_shows(client, service_catalog):
    start = start_workflow(PLAN, context={"sessionKey": "MODE-1"})
    assert start["preferences"]["riskPolicy"] == "balanced"
    # The agent asks for a conservative risk policy on its run: recorded on the run's node, not the session.
    moved = continue_workflow(
        stateToken=start["stateToken"],
        ackToken=start["ackToken"],
        output={"notesMarkdown": "Clarified."},
        preferences={"riskPolicy": "conservative"},
    )
    assert moved["preferences"]["riskPolicy"] == "conservative"
    html = html_of(client, f"/sessions/{start['session']['sessionId']}/")
    panel = html.split('id="mode-title"', 1)[1].split("</section>", 1)[0]
    head = html.split('id="session-mode"', 1)[1].split("</li>", 1)[0]
    history = panel.split("<h3>History</h3>", 1)[1]
    assert "riskPolicy: balanced → conservative" in history
    now = re.sub(r"\s+", " ", head.split('id="mode-name"', 1)[1])
    # In words people use: the mode that sets the autonomy and the risk, not the stored keys and values; the
    # head's line says a run takes another, the fold which one.
    assert now.startswith(">Guided, balanced risk</strong> (1 run takes another)")
    assert "runs started from now on take <strong>Guided, balanced risk</strong>" in panel
    assert "riskPolicy" not in now and "autonomy" not in now
    runs = re.sub(r"\s+", " ", panel.split('id="mode-runs"', 1)[1].split("</ul>", 1)[0])
    assert start["session"]["runId"] in runs and "<strong>Custom: Guided, conservative risk</strong>" in runs
    assert "riskPolicy" not in runs
    # The form's choices are the baseline's: the same values the line above names.
    assert re.search(r'<option value="balanced" selected>', panel)


def test_the_mode_panel_says_now_when_every_open_run_takes_the_baseline(client, service_catalog, settings):
    start = start_workflow(PLAN, context={"sessionKey": "MODE-2"})
    # The server's default changed since: the session's mode is no longer the default, and is said.
    settings.WORKRAIL_DEFAULT_PREFERENCES = {"autonomy": "guided", "riskPolicy": "conservative"}
    html = html_of(client, f"/sessions/{start['session']['sessionId']}/")
    assert 'id="mode-runs"' not in html
    assert 'id="mode-name">Guided, balanced risk</strong> · <a' in html
    assert "runs started from now on take" not in html


def test_a_checkpoint_is_listed_once_and_not_numbered_as_a_step(client, service_catalog):
    from tests.exports.reports.support import small_complete_session

    small = small_complete_session("CHECK-1")
    html = html_of(client, f"/sessions/{small.session_id}/")
    outside_synthesis = html.split('id="synthesis-notes"', 1)[0] + html.split('id="steps-title"', 1)[1]
    assert outside_synthesis.count("Halfway: plan drafted.") == 1  # among the branch's steps, not again below
    steps = html.split('id="steps-title"', 1)[1].split("</section>", 1)[0]
    assert "Halfway: plan drafted." in steps
    headings = re.findall(r"<h3[^>]*>(.*?)</h3>", steps)
    # Ninth review item 5: the checkpoint is not a step of its own (it read as the step twice, before it): a
    # mark on the step it was saved during, after that step's answer, its notes folded under it.
    assert headings == [
        "Clarify Goal and Constraints · step 1 of 3",
        "Draft Plan with Risks · step 2 of 3",
        "Self-Check the Plan · step 3 of 3",
    ]
    draft = re.split(r"<h3[^>]*>Draft Plan with Risks", steps, maxsplit=1)[1].split("<h3", 1)[0]
    mark = draft.split('<details class="checkpoint-mark"', 1)[1].split(">", 1)[1]
    assert draft.index("three") < draft.index('<details class="checkpoint-mark"'), draft
    said = " ".join(re.sub(r"<[^>]+>", " ", mark).split())
    assert said.startswith("checkpoint saved ") and "before the step was answered" in said, said
    assert "Halfway: plan drafted." in mark and "the checkpoint's page" in mark
    # Nothing more to list: no empty "Session notes and checkpoints" card.
    assert 'id="notes-title"' not in html and "Session notes and checkpoints" not in html


def test_the_fork_points_answers_are_told_apart_by_branch_and_first_words(client, service_catalog):
    from tests.support.branched_review import forked_review, node_id_of

    review = forked_review("FORK-1")
    fork_point = node_id_of(review.answers[1])
    html = html_of(client, f"/nodes/{fork_point}/")
    nodes = html.split('class="steps next-nodes"', 1)[1].split("</ol>", 1)[0]
    items = nodes.split('<li class="step">')[1:]
    # Branch 2 answered this step again: the graph draws that as its own card, so the one next step is branch 1's
    # (friction61a 1), and branch 2's redo is the list's next row, its answer said whole there (friction65a 13).
    assert len(items) == 1
    said = " ".join(unescape(re.sub(r"<[^>]+>", " ", items[0].split("</li>")[0])).split())
    assert "Did list-changed-files." not in said and "This step's answer" not in said
    redo = " ".join(unescape(re.sub(r"<[^>]+>", " ", nodes.split('id="redos"', 1)[1])).split())
    assert redo.startswith("> Branch 2 · ") and "redid this step" in redo
    assert "This step's answer on branch 2: After the rewind: a second look" in redo
    recorded = html.split('id="recorded-title"', 1)[1].split("</section>", 1)[0]
    assert "Did list-changed-files." in recorded and "After the rewind" not in recorded


def test_the_catalog_names_a_problems_source_not_its_absolute_path(client, service_catalog):
    extra = service_catalog["extra"]
    (extra / "team").mkdir()
    (extra / "team" / "broken.json").write_text("{")
    html = html_of(client, "/workflows/")
    problems = html.split('id="catalog-problems"', 1)[1].split("</details>", 1)[0]
    assert "INVALID_JSON" in problems
    where = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", problems.split('class="where"', 1)[1].split("</div>", 1)[0]))
    assert where.split() == [">", "extra", "team/broken.json"]
    assert str(extra) not in problems
    rows = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert str(extra) not in re.sub(r'title="[^"]*"', "", rows)  # the path only on hover, the file shown
    # The catalog stays compact: descriptions in two lines at most, problems folded under their count.
    assert 'class="muted small markdown clamp"' in html
    assert re.search(r'<details id="catalog-problems">\s*<summary><h2 id="problems-title">', html)


def test_a_workflows_page_names_its_warnings_source_not_its_absolute_path(client, service_catalog):
    extra = service_catalog["extra"]
    (extra / "team").mkdir()
    write_json(extra / "team" / "odd.json", workflow_doc("team.odd", name="Odd", tags=[123]))
    html = html_of(client, "/workflows/team.odd/")
    assert "IGNORED_FIELD" in html
    where = re.sub(r"<[^>]+>", " ", html.split('class="where"', 1)[1].split("</div>", 1)[0])
    assert where.split()[:3] == [">", "extra", "team/odd.json"]
    assert str(extra) not in re.sub(r'title="[^"]*"', "", html)


def test_a_steps_id_is_in_its_headings_tooltip_and_a_quick_steps_time_nowhere(client, service_catalog):
    # friction15 3: each step showed its id chip and "took 6 ms" in the line; the id moves to the heading's
    # tooltip (as on the step page). friction16a 4: "took 6 ms" reads as the agent's work time, so a step
    # answered within a minute says no time at all, in its line or its tooltip.
    from tests.exports.reports.support import small_complete_session

    small = small_complete_session("CHIP-1")
    html = html_of(client, f"/sessions/{small.session_id}/")
    steps = html.split('id="steps-title"', 1)[1].split("</section>", 1)[0]
    head = re.search(r'<summary class="step-head">\s*<h3 title="([^"]*)">Clarify Goal and Constraints', steps)
    assert head is not None, steps
    assert "step clarify-goal in the workflow" in head.group(1) and "took " not in head.group(1)
    assert '<span class="tag">clarify-goal</span>' not in steps
    assert ">took " not in steps and " ms" not in steps  # every step of the sample took under a second


def test_a_step_pages_answer_says_its_time_as_a_person_counts_it_never_in_ms(client, service_catalog):
    # friction16a 4: "Clarify Goal took 63 ms" read as the agent's work time; the step page says the time
    # from the step being given to its answer in whole units ("under a minute"), on one line.
    from tests.support.branched_review import forked_review, node_id_of

    review = forked_review("TOOK-1")
    html = html_of(client, f"/nodes/{node_id_of(review.answers[1])}/")
    answers = html.split('id="recorded-title"', 1)[1].split("</section>", 1)[0]
    assert "took under\xa0a\xa0minute" in answers
    # One answer of the step itself is not headed by the step's name again: the page's title is (friction24a 20).
    single = html_of(client, f"/nodes/{node_id_of(review.answers[0])}/")
    alone = single.split('id="recorded-title"', 1)[1].split("</section>", 1)[0]
    assert alone.startswith(">Answer</h2>") and "took under\xa0a\xa0minute" in alone and "<h3>" not in alone
    assert not re.search(r"\d\s?ms\b", re.sub(r"<[^>]+>", "", answers))
