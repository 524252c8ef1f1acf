"""Choosing a workflow with WorkRail's library added from git as a user adds it (built from the corpus,
harness/library.py) beside the bundled workflows: the overview first, filtered lists after, no
look-alikes, and nothing an agent cannot act on (problem lists, paths inside WORKRAIL_HOME)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.library import library_repo
from runs.execution import catalog as catalog_service
from runs.mcp import services, tools
from tests.support.corpus import CORPUS, corpus_files, skip_without_corpus
from tests.support.mcp_calls import start_workflow
from tests.support.workflow_files import workflow_doc, write_json
from workflows_app.sources import BUNDLED_DIR
from workrail_site.workflow_repos import parse_workflow_repos

pytestmark = pytest.mark.django_db

UNFILTERED_LIMIT = 4000
FILTERED_LIMIT = 3000
# WorkRail's library workflow our bundled wr.risk_scaled_mr_review names as doing the same job; the corpus
# lacks its file, so the library built here gets a small one under its real id.
LIBRARY_MR_REVIEW = workflow_doc(
    "wr.mr-review",
    name="MR Review Workflow",
    description="Use this to review a merge request with parallel reviewer families.",
)


@pytest.fixture
def library(settings, service_catalog: dict[str, Path], tmp_path: Path) -> dict[str, Path]:
    skip_without_corpus()
    workflows = tmp_path / "library-source" / "workflows"
    shutil.copytree(CORPUS / "workflows", workflows)
    write_json(workflows / "mr-review.json", LIBRARY_MR_REVIEW)
    entry = library_repo(workflows, tmp_path / "remotes", tag_file=CORPUS / "spec" / "workflow-tags.json")
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(entry)
    settings.WORKRAIL_WORKFLOW_PATHS = []
    catalog_service.catalog_loader.cache_clear()
    catalog_service.repo_store.cache_clear()
    catalog_service.fetch_workflow_repos()
    yield service_catalog
    catalog_service.catalog_loader.cache_clear()
    catalog_service.repo_store.cache_clear()


def listing(arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    outcome = tools.call("list_workflows", arguments)
    assert not outcome.is_error, outcome.text
    return outcome.structured, outcome.text


def test_without_a_filter_the_answer_is_an_overview_within_its_budget(library):
    answer, text = listing({})
    assert len(text) <= UNFILTERED_LIMIT, len(text)
    assert answer["workflows"] == []
    tags = {tag["id"]: tag for tag in answer["overview"]["tags"]}
    # WorkRail's vocabulary and ours, from the library's spec/workflow-tags.json (pinned commit) and the bundled one.
    assert {"coding", "review_audit", "investigation", "routines", "authoring", "documentation"} <= set(tags)
    assert tags["investigation"]["when"] and tags["investigation"]["count"] >= 1
    assert sum(tag["count"] for tag in tags.values()) >= answer["count"]
    sources = {item["source"]: item["count"] for item in answer["overview"]["sources"]}
    assert sources["bundled"] == len(list(BUNDLED_DIR.glob("*.json"))) and sources["git:workrail"] > 10
    assert '{"tags": ["<id>"]}' in text and '{"query": "<words>"}' in text
    assert "- investigation (Investigation & debugging)," in text
    assert not re.search(r"\bwr\.[a-z_-]+", text), "no workflow is listed without a filter"


def test_every_tag_and_a_few_queries_list_within_their_budget(library):
    overview, _ = listing({})
    asked: list[dict[str, Any]] = [{"tags": [tag["id"]]} for tag in overview["overview"]["tags"]]
    asked += [{"query": words} for words in ("bug investigation", "merge request review", "coding task", "review")]
    for arguments in asked:
        answer, text = listing(arguments)
        assert answer["count"] >= 1, arguments
        assert len(text) <= FILTERED_LIMIT, (arguments, len(text))
        listed = len([line for line in text.splitlines() if line.startswith("- ")])
        assert listed == answer["count"] or "more not shown here" in text


def test_untagged_workflows_stay_reachable(library):
    write_json(library["project"] / ".workrail" / "workflows" / "x.json", workflow_doc("project.one_off"))
    overview, _ = listing({})
    assert "untagged" in {tag["id"] for tag in overview["overview"]["tags"]}
    answer, _ = listing({"tags": ["untagged"]})
    assert "project.one_off" in {w["id"] for w in answer["workflows"]}


def test_a_query_ignores_case_and_punctuation(library):
    answer, _ = listing({"query": "Bug-Investigation"})
    assert "wr.bug-investigation" not in {w["id"] for w in answer["workflows"]}  # not in the corpus
    answer, _ = listing({"query": "EVIDENCE first"})
    assert [w["id"] for w in answer["workflows"]] == ["wr.evidence_first_bug_fix"]


def test_the_same_job_is_said_from_both_sides_in_one_line(library):
    ours = "wr.risk_scaled_mr_review"
    _, alone = listing({"query": "risk scaled"})
    assert "  Same job as wr.mr-review: take this for a review in one agent, as deep as the change" in alone
    answer, text = listing({"query": "MR Review Workflow"})
    assert f"  Same job as {ours}: take this for a big or risky merge request" in text
    [theirs] = answer["workflows"]
    assert {item["workflowId"] for item in theirs["sameJobAs"]} == {ours, "wr.code_review"}
    # Both listed: the pair is said once, under the first (wr.mr-review sorts before ours).
    _, both = listing({"tags": ["review_audit"]})
    assert both.count(f"Same job as {ours}:") == 1 and "Same job as wr.mr-review: take this for a review" not in both
    # Without the library's counterpart in the catalog, nothing is said.
    answer, _ = listing({"query": "evidence first"})
    assert "sameJobAs" not in answer["workflows"][0]


def test_examples_and_tests_are_left_out_unless_asked_for(library):
    overview, text = listing({})
    hidden = overview["overview"]["examplesHidden"]
    assert hidden >= 6 and f"{hidden} examples and tests left out" in text
    answer, _ = listing({"query": "simple"})
    assert not [w for w in answer["workflows"] if w["example"]]
    answer, text = listing({"query": "simple", "includeExamples": True})
    assert {"simple-polling-example", "simple-batch-example"} <= {w["id"] for w in answer["workflows"]}
    assert "; example]" in text
    answer, _ = listing({"query": "session persistence", "includeExamples": True})
    assert [w["example"] for w in answer["workflows"]] == [True]  # the tag file's hidden mark


def fold(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.casefold())


def test_no_two_workflows_look_alike_across_bundled_the_corpus_and_the_library():
    """The rule of docs/workflows.md ("Choosing ids and titles"): ids that differ only in case or
    punctuation, or share a title, are look-alikes. Checked over the bundled workflows, the corpus
    (WorkRail's ids) and every id WorkRail's tag file names."""
    skip_without_corpus()
    ids: dict[str, str] = {}
    titles: dict[str, str] = {}
    library = [json.loads(path.read_text(encoding="utf-8")) for path in corpus_files()]
    tagged = json.loads((CORPUS / "spec" / "workflow-tags.json").read_text(encoding="utf-8"))["workflows"]
    bundled = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(BUNDLED_DIR.glob("*.json"))]
    documents = [*bundled, *library]
    every_id = [document["id"].replace("workrail.", "wr.", 1) for document in documents] + list(tagged)
    for workflow_id in dict.fromkeys(every_id):
        other = ids.setdefault(fold(workflow_id), workflow_id)
        assert other == workflow_id, f"{workflow_id} looks like {other}"
    for document in documents:
        other = titles.setdefault(document["name"].casefold(), document["id"])
        assert other == document["id"], f"{document['id']} has the title of {other}"


def test_problems_are_a_count_with_the_command_that_shows_them(library):
    (library["home"] / "workflows").mkdir(exist_ok=True)
    (library["home"] / "workflows" / "broken.json").write_text("{nope")
    answer, text = listing({})
    problems = answer["problems"]
    assert problems["errors"] == 1 and problems["warnings"] >= 8  # the corpus's IGNORED_FIELD, LEGACY_ID...
    assert problems["command"] == "python manage.py validate_workflow --configured"
    assert "warnings" not in answer and "IGNORED_FIELD" not in text and "LEGACY_ID" not in text
    assert f"Problems: 1 file failed to load, {problems['warnings']} authoring warnings;" in text
    _, filtered = listing({"tags": ["coding"]})
    assert "Problems" not in filtered  # said once, with the overview


def test_no_answer_about_the_catalog_carries_a_path_inside_workrail_home(library):
    home = str(library["home"])
    (library["home"] / "workflows").mkdir(exist_ok=True)
    write_json(library["home"] / "workflows" / "mine.json", workflow_doc("user.mine", tips=["old field"]))
    overview, _ = listing({"includeExamples": True})
    texts = [json.dumps(overview), tools.call("list_workflows", {}).text, json.dumps(services.read_workflows())]
    for tag in overview["overview"]["tags"]:
        outcome = tools.call("list_workflows", {"tags": [tag["id"]], "includeExamples": True})
        texts += [outcome.text, json.dumps(outcome.structured)]
        for workflow in outcome.structured["workflows"]:
            for mode in ("metadata", "preview"):
                inspected = tools.call("inspect_workflow", {"workflowId": workflow["id"], "mode": mode})
                texts += [inspected.text, json.dumps(inspected.structured)]
            texts.append(json.dumps(services.read_workflow(workflow["id"])))
    assert len(texts) > 60
    leaking = [text for text in texts if home in text or "workflow-repos" in text]
    assert not leaking, leaking[0][:500]
    mine = tools.call("inspect_workflow", {"workflowId": "user.mine"})
    assert mine.structured["workflow"]["source"] == {"kind": "user", "file": "mine.json"}
    assert "`python manage.py validate_workflow --configured --workflow user.mine` shows them" in mine.text


def test_a_former_id_still_starts_and_inspects_and_says_the_new_one(service_catalog):
    inspected = tools.call("inspect_workflow", {"workflowId": "wr.coding_task"})
    assert inspected.structured["renamedFrom"] == "wr.coding_task"
    assert inspected.structured["workflow"]["id"] == "wr.change_in_slices"
    assert inspected.text.startswith("'wr.coding_task' is the former id of wr.change_in_slices: use the new id.")
    started = start_workflow("wr.mr_review")
    assert started["workflow"]["id"] == "wr.risk_scaled_mr_review"
    [note] = [w for w in started["warnings"] if w["code"] == "WORKFLOW_RENAMED"]
    assert "'wr.mr_review' is the former id of wr.risk_scaled_mr_review" in note["message"]
    answer, _ = listing({"query": "coding task"})
    assert "wr.coding_task" not in {w["id"] for w in answer["workflows"]}


def test_a_former_id_like_a_library_id_names_the_library_one_too(library):
    """Our former ids (wr.mr_review) look like WorkRail's (wr.mr-review): an agent that meant the library's
    is told, since the former id keeps starting ours."""
    started = start_workflow("wr.mr_review")
    [note] = [w for w in started["warnings"] if w["code"] == "WORKFLOW_RENAMED"]
    assert "wr.mr-review (MR Review Workflow) is another workflow" in note["message"]
    inspected = tools.call("inspect_workflow", {"workflowId": "wr.mr_review"})
    assert "wr.mr-review (MR Review Workflow) is another workflow" in inspected.text


def test_a_long_filtered_list_stays_within_its_budget_and_says_how_many_are_left_out(service_catalog):
    for index in range(40):
        name = f"Release checklist number {index} for the payments service and its many satellites"
        write_json(service_catalog["extra"] / f"r{index}.json", workflow_doc(f"team.release_{index}", name=name))
    answer, text = listing({"query": "release checklist"})
    assert answer["count"] == 40 and len(answer["workflows"]) == 40  # the structured answer has every one
    assert len(text) <= FILTERED_LIMIT, len(text)
    listed = len([line for line in text.splitlines() if line.startswith("- ")])
    assert f"{40 - listed} more not shown here (the structured answer has every one)" in text


def test_free_form_filters_are_not_kept_per_value(service_catalog):
    """The catalog keeps its few fixed listings; a query or tags an agent invents are not kept one by one."""
    catalog = catalog_service.current_catalog()
    for index in range(50):
        listing({"query": f"word{index}", "tags": [f"tag{index}"]})
    assert len(catalog.views) <= 4
