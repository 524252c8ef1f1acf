"""Tags: a workflow's own `tags`, a tag file in WorkRail's format beside the workflow directory (a team's
own vocabulary too), example marks, former ids and same-job pointers, as the catalog reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.corpus import CORPUS, skip_without_corpus
from tests.support.workflow_files import workflow_doc, write_json
from workflows_app.catalog import CatalogLoader
from workflows_app.diagnostics import Code
from workflows_app.sources import Source, SourceKind, configured_sources
from workflows_app.tags import MAX_TAG_FILE_BYTES, load_tag_file

TEAM_TAGS = {
    "version": 1,
    "tags": [
        {"id": "release", "displayName": "Releases", "when": ["shipping a version"]},
        {"id": "ops", "displayName": "Operations", "when": ["keeping services up"]},
    ],
    "workflows": {
        "team.ship": {"tags": ["release"]},
        "team.smoke": {"tags": ["ops"], "hidden": True},
    },
}


def team_catalog(root: Path, tag_file: object = TEAM_TAGS) -> CatalogLoader:
    """A team directory laid out as WorkRail's repository: `root/workflows` and `root/spec/workflow-tags.json`."""
    workflows = root / "workflows"
    write_json(workflows / "ship.json", workflow_doc("team.ship", name="Ship"))
    write_json(workflows / "smoke.json", workflow_doc("team.smoke", name="Smoke test"))
    write_json(workflows / "own.json", workflow_doc("team.own", name="Own tags", tags=["ops", "release"]))
    if tag_file is not None:
        (root / "spec").mkdir(parents=True, exist_ok=True)
        text = tag_file if isinstance(tag_file, str) else json.dumps(tag_file)
        (root / "spec" / "workflow-tags.json").write_text(text, encoding="utf-8")
    empty = root / "empty"
    return CatalogLoader(configured_sources(workrail_home=empty, project_dir=empty, extra_paths=[workflows]))


def test_a_workflow_s_own_tags_are_kept_not_ignored(tmp_path):
    catalog = team_catalog(tmp_path, None).load()
    entry = catalog.get("team.own")
    assert entry.tags == ("ops", "release")
    assert not [d for d in entry.warnings if d.code is Code.IGNORED_FIELD]


def test_the_tag_file_beside_the_workflow_directory_gives_the_vocabulary_and_the_tags(tmp_path):
    catalog = team_catalog(tmp_path).load()
    assert catalog.get("team.ship").tags == ("release",)
    assert catalog.get("team.smoke").example  # the tag file's hidden mark: a test workflow
    assert not catalog.get("team.ship").example
    team = {tag.id: (tag.display_name, tag.when) for tag in catalog.vocabulary.values()}
    assert team["release"] == ("Releases", ("shipping a version",))
    assert "coding" in team  # the bundled vocabulary (workflows_app/spec/workflow-tags.json) is there too
    assert not [d for d in catalog.diagnostics if d.code is Code.INVALID_TAGS]


def test_the_bundled_workflows_are_all_tagged_from_the_bundled_vocabulary(tmp_path):
    empty = tmp_path / "empty"
    catalog = CatalogLoader(configured_sources(workrail_home=empty, project_dir=empty, extra_paths=[])).load()
    for entry in catalog.entries:
        assert entry.tags and set(entry.tags) <= set(catalog.vocabulary), entry.id


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "Invalid JSON at line 1"),
        ("[]", "It is not a JSON object"),
        (json.dumps({"tags": "coding"}), "'tags' is not a list"),
        (json.dumps({"tags": [{"id": "Bad Id"}]}), "Tag 1 has no valid 'id'"),
        (json.dumps({"workflows": {"team.ship": {"tags": "release"}}}), "'team.ship': 'tags' must be a list"),
        (json.dumps({"workflows": {"team.ship": {"tags": ["release"], "hidden": "yes"}}}), "'hidden' must be"),
        ("x" * (MAX_TAG_FILE_BYTES + 1), f"larger than {MAX_TAG_FILE_BYTES} bytes"),
    ],
)
def test_a_malformed_tag_file_is_a_warning_and_the_catalog_still_loads(tmp_path, content, expected):
    catalog = team_catalog(tmp_path, content).load()
    [problem] = [d for d in catalog.diagnostics if d.code is Code.INVALID_TAGS]
    assert expected in problem.message and problem.fix
    assert problem.file == str(tmp_path / "spec" / "workflow-tags.json")
    assert {"team.ship", "team.smoke", "team.own"} <= {entry.id for entry in catalog.entries}


def test_a_tag_file_that_is_a_directory_is_a_warning(tmp_path):
    (tmp_path / "spec" / "workflow-tags.json").mkdir(parents=True)
    assert load_tag_file(tmp_path / "spec" / "workflow-tags.json").diagnostics[0].code is Code.INVALID_TAGS


def test_a_changed_tag_file_is_read_again(tmp_path):
    loader = team_catalog(tmp_path)
    assert loader.load().get("team.ship").tags == ("release",)
    changed = {**TEAM_TAGS, "workflows": {"team.ship": {"tags": ["ops"]}}}
    (tmp_path / "spec" / "workflow-tags.json").write_text(json.dumps(changed) + "\n", encoding="utf-8")
    assert loader.load().get("team.ship").tags == ("ops",)


def test_examples_are_marked_by_data_first_then_by_name(tmp_path):
    workflows = tmp_path / "workflows"
    write_json(workflows / "examples" / "a.json", workflow_doc("team.loop_demo"))
    write_json(workflows / "b.json", workflow_doc("team.test-login"))
    write_json(workflows / "c.json", workflow_doc("team.polling_example"))
    write_json(workflows / "d.json", workflow_doc("team.tagged", tags=["example"]))
    write_json(workflows / "e.json", workflow_doc("team.test-plan"))  # the tag file says it is real
    write_json(workflows / "f.json", workflow_doc("team.release"))
    (tmp_path / "spec").mkdir()
    tags = {"tags": [], "workflows": {"team.test-plan": {"tags": ["planning"]}}}
    (tmp_path / "spec" / "workflow-tags.json").write_text(json.dumps(tags), encoding="utf-8")
    loader = CatalogLoader([Source(SourceKind.EXTRA, workflows, 3)])
    examples = {entry.id for entry in loader.load().entries if entry.example}
    assert examples == {"team.loop_demo", "team.test-login", "team.polling_example", "team.tagged"}


def test_a_former_id_resolves_to_the_renamed_workflow_and_is_never_listed(tmp_path):
    empty = tmp_path / "empty"
    catalog = CatalogLoader(configured_sources(workrail_home=empty, project_dir=empty, extra_paths=[])).load()
    assert catalog.aliases == {
        "wr.bug_investigation": "wr.evidence_first_bug_fix",
        "wr.coding_task": "wr.change_in_slices",
        "wr.mr_review": "wr.risk_scaled_mr_review",
    }
    assert catalog.resolve("wr.coding_task").id == "wr.change_in_slices"
    assert catalog.get("wr.coding_task") is None
    assert "wr.coding_task" not in {entry.id for entry in catalog.entries}


def test_the_corpus_tag_file_parses_whole():
    skip_without_corpus()
    parsed = load_tag_file(CORPUS / "spec" / "workflow-tags.json")
    assert parsed.diagnostics == ()
    assert len(parsed.vocabulary) == 9 and all(tag.when for tag in parsed.vocabulary)
    assert parsed.workflows["wr.bug-investigation"].tags == ("investigation",)
    assert parsed.workflows["test-session-persistence"].hidden
