"""The dashboard's catalog pages say which repository and commit a workflow from git comes from."""

from __future__ import annotations

import pytest

from runs.execution import catalog
from tests.support.workflow_files import workflow_doc

pytestmark = pytest.mark.django_db


def test_the_catalog_pages_show_the_repository_and_the_pinned_commit(client, team_repo):
    commit = team_repo.commit({"workflows/release.json": workflow_doc("team.release", name="Release")})
    before = client.get("/workflows/").content.decode()
    assert "REPO_NOT_SYNCED" in before and "sync_workflows --repo team" in before

    catalog.fetch_workflow_repos()

    for url in ("/workflows/", "/workflows/team.release/"):
        html = client.get(url).content.decode()
        assert team_repo.url in html and "workflows/release.json" in html
        assert f'title="{commit}">{commit[:7]}</code>' in html
