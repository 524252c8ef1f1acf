"""Catalogs over temporary directories: an empty user home, project dir and extra dir, a loader over
them, the catalog service every door uses pointed at them, WorkRail's corpus, and workflows tests in
several folders install there."""

from __future__ import annotations

from pathlib import Path

import pytest

from runs.execution import catalog as catalog_service
from tests.support.corpus import CORPUS_WORKFLOWS, skip_without_corpus
from tests.support.workflow_files import parallel_doc, step_doc, workflow_doc, write_json
from workflows_app.catalog import CatalogLoader
from workflows_app.sources import configured_sources


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    """Empty user home, project dir and one extra dir, for building catalogs by hand."""
    paths = {name: tmp_path / name for name in ("home", "project", "extra")}
    for path in paths.values():
        path.mkdir()
    return paths


@pytest.fixture
def make_loader(dirs):
    def make(*extra: Path, bundled: Path | None = None) -> CatalogLoader:
        options = {"bundled_dir": bundled} if bundled is not None else {}
        sources = configured_sources(
            workrail_home=dirs["home"], project_dir=dirs["project"], extra_paths=list(extra), **options
        )
        return CatalogLoader(sources)

    return make


@pytest.fixture
def corpus_dir() -> Path:
    """WorkRail's workflow corpus; the test is skipped when it is absent (see tests/support/corpus.py)."""
    skip_without_corpus()
    return CORPUS_WORKFLOWS


@pytest.fixture
def service_catalog(settings, dirs):
    """Points the catalog service (used by every door) at the temporary directories."""
    settings.WORKRAIL_HOME = dirs["home"]
    settings.WORKRAIL_PROJECT_DIR = dirs["project"]
    settings.WORKRAIL_WORKFLOW_PATHS = [dirs["extra"]]
    catalog_service.catalog_loader.cache_clear()
    yield dirs
    catalog_service.catalog_loader.cache_clear()


@pytest.fixture
def fanout(service_catalog: dict[str, Path]) -> str:
    """A parallel step delegating to a workflow twice (once only on a condition) and to one this catalog
    lacks, installed with its child workflow; returns the parent's id."""
    child = workflow_doc(
        "team.check_module",
        steps=[
            step_doc("run-tests", "Run tests", "Run the tests of {{module}} at {{ref}}."),
            step_doc("report", "Report", "Report what failed."),
        ],
    )
    parent = workflow_doc(
        "team.upgrade",
        steps=[
            step_doc("scope", "Scope", "Name the module to upgrade."),
            parallel_doc(
                "fan-out",
                "Check in parallel",
                [
                    {
                        "workflowId": "team.check_module",
                        "goal": "Tests on the new version.",
                        "contextMapping": {"moduleName": "module"},
                        "args": {"ref": "upgrade-branch"},
                    },
                    {
                        "workflowId": "team.check_module",
                        "goal": "Nightly jobs.",
                        "runCondition": {"var": "nightly", "equals": True},
                    },
                    {"workflowId": "team.not_here", "goal": "Something this machine cannot run."},
                ],
                synthesis={"prompt": "Merge the results."},
            ),
            step_doc("decide", "Decide", "Ship or hold."),
        ],
    )
    write_json(service_catalog["extra"] / "child.json", child)
    write_json(service_catalog["extra"] / "parent.json", parent)
    return "team.upgrade"
