"""Workflows from a git repository through the service layer: listed with their repository and commit,
started like any other, and a run keeps the workflow it started with when the pin moves."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from runs.execution import catalog
from runs.mcp import tools
from tests.support.mcp_calls import ack, call, start_workflow
from tests.support.workflow_files import step_doc, workflow_doc

pytestmark = pytest.mark.django_db


def release(version: str):
    return workflow_doc(
        "team.release",
        name=f"Release {version}",
        steps=[
            step_doc("prepare", "Prepare", f"Prepare the release ({version})."),
            step_doc("ship", "Ship", f"Ship it ({version})."),
        ],
    )


def test_a_repository_never_fetched_is_reported_then_fetched_pinned_and_runs(team_repo):
    commit = team_repo.commit({"workflows/release.json": release("v1")})
    listing = catalog.list_workflows(for_people=True).dump()  # every problem in full: the dashboard's view
    assert "team.release" not in [w["id"] for w in listing["workflows"]]
    agent = call("list_workflows", {})  # an agent hears that the repository is not loaded yet, and what to do
    assert agent["problems"]["notLoaded"] == ["team"]
    assert "Repository team is not loaded yet" in tools.call("list_workflows", {}).text
    [note] = [w for w in listing["warnings"] if w["code"] == "REPO_NOT_SYNCED"]
    assert "sync_workflows --repo team" in note["fix"]

    catalog.fetch_workflow_repos()  # what the MCP server does once ready

    listing = call("list_workflows", {"namespace": "team"})
    [summary] = [w for w in listing["workflows"] if w["id"] == "team.release"]
    assert summary["source"]["kind"] == "git"
    assert summary["source"]["repository"] == {
        "name": "team",
        "url": team_repo.url,
        "ref": "main",
        "commit": commit,
        "directory": "workflows",
        "file": "workflows/release.json",
    }
    assert "problems" not in listing  # the REPO_NOT_SYNCED warning is gone
    inspected = call("inspect_workflow", {"workflowId": "team.release"})
    assert inspected["workflow"]["source"]["repository"]["commit"] == commit
    started = start_workflow("team.release")
    assert started["pending"]["stepId"] == "prepare" and "(v1)" in started["pending"]["prompt"]


def test_a_run_started_before_a_sync_continues_on_its_own_snapshot(team_repo, capsys):
    team_repo.commit({"workflows/release.json": release("v1")})
    catalog.fetch_workflow_repos()
    before = start_workflow("team.release")
    team_repo.commit({"workflows/release.json": release("v2")})

    call_command("sync_workflows")

    assert "changed: team.release" in capsys.readouterr().out
    after = ack(before)
    assert after["pending"]["stepId"] == "ship" and "(v1)" in after["pending"]["prompt"]
    fresh = start_workflow("team.release")
    assert "(v2)" in fresh["pending"]["prompt"]
