"""Real workflows written by other people (WorkRail's library, MIT) must load, validate and compile.

Skipped when the corpus is absent (see tests/support/corpus.py); tests/workflows_app/test_fixture_coverage.py covers the
format with our own fixtures.
"""

import json

import pytest

from tests.support.corpus import CORPUS_WORKFLOWS, corpus_files, corpus_params, skip_without_corpus
from workflows_app.diagnostics import Severity

CORPUS_FILES = corpus_files()


def test_the_corpus_is_there():
    skip_without_corpus()
    assert len(CORPUS_FILES) >= 30


@pytest.fixture(scope="module")
def corpus_catalog(tmp_path_factory):
    from workflows_app.catalog import CatalogLoader
    from workflows_app.sources import configured_sources

    skip_without_corpus()
    empty = tmp_path_factory.mktemp("empty")
    sources = configured_sources(workrail_home=empty, project_dir=empty, extra_paths=[CORPUS_WORKFLOWS])
    return CatalogLoader(sources).load()


@pytest.mark.parametrize("path", corpus_params(CORPUS_FILES, lambda p: p.relative_to(CORPUS_WORKFLOWS).as_posix()))
def test_it_loads_every_corpus_workflow_with_id_kind_and_step_count(corpus_catalog, path):
    raw = json.loads(path.read_text())
    entry = corpus_catalog.get(raw["id"])
    assert entry is not None, [d.message for d in corpus_catalog.diagnostics if d.file == str(path)]
    assert entry.path == path
    assert entry.kind == ("routine" if path.parent.name == "routines" else "workflow")
    # Steps an agent can be given: loop bodies and routine steps count, the loop itself does not.
    assert entry.step_count >= sum(1 for step in raw["steps"] if step.get("type") != "loop")
    assert entry.workflow_hash.startswith("sha256:")
    assert not [d for d in entry.warnings if d.severity is Severity.ERROR]


def test_no_corpus_file_produces_an_error(corpus_catalog):
    errors = [d for d in corpus_catalog.diagnostics if d.severity is Severity.ERROR]
    assert errors == []


def test_routine_injection_expands_the_routine_inline(corpus_catalog):
    compiled = corpus_catalog.get("routine-injection-example").compiled
    ids = [step["id"] for step in compiled["steps"]]
    routine = corpus_catalog.get("workrail.routine-tension-driven-design").compiled
    assert ids == [
        "phase-0-gather",
        *[f"phase-1-design.{step['id']}" for step in routine["steps"]],
        "phase-2-implement",
    ]
    assert all(
        s["origin"]["templateId"] == "wr.templates.routine.tension-driven-design" for s in compiled["steps"][1:-1]
    )
