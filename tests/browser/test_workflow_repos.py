"""The catalog pages in a real browser with a workflow from git: the repository and the pinned commit
(full commit on hover) beside it. Screenshots: workflows-from-git.png, workflow-from-git.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from runs.execution import catalog
from tests.browser import screenshot
from tests.support.workflow_files import workflow_doc

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_catalog_shows_a_git_workflow_s_repository_and_commit(page, console_log, live_server, team_repo):
    commit = team_repo.commit(
        {"workflows/release.json": workflow_doc("team.release", name="Release", description="Ship a release.")}
    )
    catalog.fetch_workflow_repos()

    page.goto(f"{live_server.url}/workflows/")
    row = page.locator("tr", has_text="team.release")
    expect(row.locator(f'code[title="{commit}"]')).to_have_text(commit[:7])
    expect(row).to_contain_text(team_repo.url)
    screenshot(page, "workflows-from-git")
    page.goto(f"{live_server.url}/workflows/team.release/")
    expect(page.locator(f'code[title="{commit}"]')).to_be_visible()
    screenshot(page, "workflow-from-git")
    console_log.assert_clean()
