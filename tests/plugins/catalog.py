"""Catalogs over temporary directories: an empty user home, project dir and extra dir, a loader over
them, the catalog service every door uses pointed at them, WorkRail's corpus, and workflows tests in
several folders install there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import workflows_app.catalog
from runs.execution import catalog as catalog_service
from tests.support.corpus import CORPUS_WORKFLOWS, skip_without_corpus
from tests.support.workflow_files import parallel_doc, step_doc, workflow_doc, write_json
from workflows_app.catalog import CatalogLoader
from workflows_app.loader import LoadedFile, load_file
from workflows_app.sources import BUNDLED_DIR, Source, SourceKind, configured_sources

# The bundled workflows as read and checked, by file, source and bytes (see _bundled_files_read_once).
_bundled_read: dict[tuple[Path, Source, bytes], LoadedFile] = {}


def load_file_once_if_bundled(path: Path, source: Source) -> LoadedFile:
    """workflows_app.loader.load_file, the bundled workflows' files read and checked once per process."""
    if source.kind is not SourceKind.BUNDLED or source.root != BUNDLED_DIR or not path.is_file():
        return load_file(path, source)
    key = (path, source, path.read_bytes())
    loaded = _bundled_read.get(key)
    if loaded is None:
        loaded = _bundled_read[key] = load_file(path, source)
    return loaded


@pytest.fixture(autouse=True, scope="session")
def _bundled_files_read_once() -> Iterator[None]:
    """Most tests point the catalog service at directories of their own (service_catalog below), which
    starts a new CatalogLoader, and each new loader read and checked every bundled workflow against the
    schema again (a tenth of a second or more, for every such test). The bundled files never change
    during a run; what a loader makes of the same bytes from the same source is the same LoadedFile (the
    loader itself keeps them between loads), so the test process keeps them for every loader. Other
    sources' files are read as always."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(workflows_app.catalog, "load_file", load_file_once_if_bundled)
        yield


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
