"""Which directory a tool call works in: workspacePath, else the client's roots, else the setting."""

from __future__ import annotations

import pytest

from runs.contract.errors import WorkRailError
from runs.execution.workspace import WorkspaceSource, choose
from runs.mcp import tools
from runs.models import Observation, Session
from runs.store.actors import Actor, Door, acting_as
from tests.support.git_repos import git
from tests.support.mcp_calls import ack, call, start_workflow
from tests.support.workflow_files import workflow_doc, write_json


@pytest.fixture
def repo(tmp_path):
    """tmp_path as a git repository on branch main, with one commit."""
    git("init", "--quiet", "--initial-branch=main", str(tmp_path))
    (tmp_path / "f").write_text("x")
    git("add", "f", cwd=tmp_path)
    git("commit", "--quiet", "-m", "one", cwd=tmp_path)
    return tmp_path


def test_the_argument_comes_first(tmp_path, settings):
    settings.WORKRAIL_PROJECT_DIR = tmp_path / "configured"
    chosen = choose(str(tmp_path), [str(tmp_path / "configured")])
    assert (chosen.path, chosen.source) == (tmp_path, WorkspaceSource.ARGUMENT)


def test_a_root_inside_a_repository_comes_before_the_first_root(repo, tmp_path):
    plain = tmp_path.parent / f"{tmp_path.name}-plain"
    plain.mkdir()
    missing = tmp_path / "not-here"
    chosen = choose(None, [str(missing), str(plain), str(tmp_path / "deep")])
    assert chosen.source == WorkspaceSource.CLIENT_ROOT and chosen.path == plain  # tmp_path/deep does not exist
    (tmp_path / "deep").mkdir()
    assert choose(None, [str(missing), str(plain), str(tmp_path / "deep")]).path == tmp_path / "deep"


def test_without_argument_or_roots_the_setting_is_used(tmp_path, settings):
    settings.WORKRAIL_PROJECT_DIR = tmp_path
    chosen = choose(None, ["relative/root"])
    assert (chosen.path, chosen.source) == (tmp_path, WorkspaceSource.SETTING)


def test_over_http_the_clients_paths_are_not_read_here(repo, tmp_path, settings):
    """A remote agent's workspacePath and roots name its own machine: the server never reads them here."""
    settings.WORKRAIL_PROJECT_DIR = tmp_path / "configured"
    with acting_as(Actor("bob", Door.HTTP)):
        chosen = choose(str(repo), [str(repo)])
    assert chosen.path == tmp_path / "configured" and chosen.source == WorkspaceSource.SETTING


@pytest.mark.parametrize("bad", ["relative/path", "/no/such/directory/anywhere"])
def test_a_bad_workspace_path_is_refused_with_what_to_do(bad, service_catalog):
    with pytest.raises(WorkRailError) as refused:
        call("list_workflows", {"workspacePath": bad})
    error = refused.value.as_dict()
    assert error["code"] == "INVALID_INPUT" and error["details"]["pointer"] == "/workspacePath"
    assert bad in error["message"] and "leave workspacePath out" in error["suggestion"]


def test_a_file_is_not_a_workspace(tmp_path, service_catalog):
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(WorkRailError, match="not a directory"):
        call("list_workflows", {"workspacePath": str(tmp_path / "file.txt")})


@pytest.mark.django_db
def test_workspace_path_names_the_project_its_branch_and_its_workflows(repo, tmp_path, service_catalog):
    write_json(tmp_path / ".workrail" / "workflows" / "mine.json", workflow_doc("mine.flow"))
    listed = call("list_workflows", {"workspacePath": str(tmp_path)})
    assert "mine.flow" in {workflow["id"] for workflow in listed["workflows"]}
    assert "mine.flow" not in {workflow["id"] for workflow in call("list_workflows", {})["workflows"]}
    answer = start_workflow("mine.flow", workspacePath=str(tmp_path))
    session = Session.objects.get(public_id=answer["session"]["sessionId"])
    head = git("rev-parse", "HEAD", cwd=tmp_path)
    assert (session.workspace_path, session.git_branch, session.git_head_sha) == (str(tmp_path), "main", head)


@pytest.mark.django_db
def test_the_clients_root_is_the_workspace_when_no_argument_is_given(repo, tmp_path, service_catalog):
    write_json(tmp_path / ".workrail" / "workflows" / "mine.json", workflow_doc("mine.flow"))
    answer = tools.invoke("start_workflow", {"workflowId": "mine.flow"}, client_roots=[str(tmp_path)])
    session = Session.objects.get(public_id=answer["session"]["sessionId"])
    assert (session.git_branch, session.workspace_path) == ("main", str(tmp_path))


@pytest.mark.django_db
def test_a_call_told_nothing_stays_in_the_sessions_repository(repo, tmp_path, service_catalog, settings):
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    git("init", "--quiet", "--initial-branch=other", str(elsewhere))
    settings.WORKRAIL_PROJECT_DIR = elsewhere  # where the server happens to run: another repository
    started = start_workflow("wr.routine-focused_plan", workspacePath=str(tmp_path))
    ack(started)  # no workspacePath, no client roots
    session = Session.objects.get(public_id=started["session"]["sessionId"])
    assert (session.workspace_path, session.git_branch) == (str(tmp_path), "main")
    assert set(Observation.objects.values_list("workspace_path", flat=True)) == {str(tmp_path)}
