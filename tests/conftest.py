from __future__ import annotations

from pathlib import Path

import pytest

from runs.execution import catalog as catalog_service
from tests.helpers import CORPUS_WORKFLOWS, skip_without_corpus
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
    """WorkRail's workflow corpus; the test is skipped when it is absent (see tests/helpers.py)."""
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
