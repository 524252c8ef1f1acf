"""The dashboard's catalog pages say which repository and commit a workflow from git comes from."""

from __future__ import annotations

import pytest

from runs.dashboard.connect import connection_instructions
from runs.execution import catalog
from tests.support.workflow_files import workflow_doc
from workrail_site.workflow_repos import parse_workflow_repos

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


def test_the_connect_instructions_pass_the_repositories_with_credentials_only_when_asked(settings):
    flows = "https://oauth2:s3cret@git.example.com/team/flows.git#main:workflows"
    more = "ops=git@host.example:ops/more.git"
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(f"{flows} {more}")
    written = f"flows={flows} {more}"

    assert connection_instructions(reveal_password=True).env["WORKRAIL_WORKFLOW_REPOS"] == written
    hidden = connection_instructions()
    assert hidden.password_hidden and "s3cret" not in hidden.claude_code and "s3cret" not in hidden.json_config
    assert parse_workflow_repos(written) == list(settings.WORKRAIL_WORKFLOW_REPOS)
