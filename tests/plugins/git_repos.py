"""A workflow repository for the service layer: a local bare repository (file://) named in
WORKRAIL_WORKFLOW_REPOS, with the catalog service every door uses pointed at it."""

from __future__ import annotations

from pathlib import Path

import pytest

from runs.execution import catalog as catalog_service
from tests.support.git_repos import BareRepo
from workrail_site.workflow_repos import parse_workflow_repos


@pytest.fixture
def team_repo(settings, service_catalog: dict[str, Path], tmp_path: Path) -> BareRepo:
    """An empty repository 'team' of workflows under `workflows/`, in WORKRAIL_WORKFLOW_REPOS (branch
    main); commit to it, then sync (workflows_app.repos.sync) to pin it."""
    repo = BareRepo(tmp_path / "remotes", "team")
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(f"{repo.url}#main:workflows")
    catalog_service.catalog_loader.cache_clear()
    catalog_service.repo_store.cache_clear()
    yield repo
    catalog_service.catalog_loader.cache_clear()
    catalog_service.repo_store.cache_clear()
