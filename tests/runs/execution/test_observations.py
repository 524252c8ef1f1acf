"""Where the work happened: git branch and HEAD recorded at start, and on advance when they change."""

import subprocess

import pytest

from runs.execution.observe import git_observation
from runs.models import Observation
from runs.store.actors import Actor, Door, acting_as
from tests.support.mcp_calls import continue_workflow, notes_for, start_workflow

pytestmark = pytest.mark.django_db


@pytest.fixture
def repo(tmp_path):
    def git(*args):
        subprocess.run(
            ["git", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
            env={
                "GIT_AUTHOR_NAME": "t",
                "GIT_AUTHOR_EMAIL": "t@t",
                "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@t",
                "HOME": str(tmp_path),
                "PATH": "/usr/bin:/bin",
            },
        )

    git("init", "-q", "-b", "main")
    (tmp_path / "f").write_text("x")
    git("add", "f")
    git("commit", "-q", "-m", "one")
    git.path = tmp_path  # type: ignore[attr-defined]
    return git


def head(path):
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True).stdout.strip()


def test_it_reads_branch_and_head_from_the_repository(repo, tmp_path):
    seen = git_observation(tmp_path)
    assert seen == {"gitBranch": "main", "gitHeadSha": head(tmp_path), "workspacePath": str(tmp_path)}
    (tmp_path / "deep" / "er").mkdir(parents=True)
    assert git_observation(tmp_path / "deep" / "er")["gitBranch"] == "main"
    repo("checkout", "-q", "--detach")
    assert git_observation(tmp_path)["gitBranch"] == ""
    repo("pack-refs", "--all")
    repo("checkout", "-q", "main")
    assert git_observation(tmp_path)["gitHeadSha"] == head(tmp_path)  # read from packed-refs


def test_outside_a_repository_nothing_is_observed(tmp_path):
    assert git_observation(tmp_path) is None


def test_runs_record_observations_at_start_and_when_they_change(repo, tmp_path, service_catalog, settings):
    settings.WORKRAIL_PROJECT_DIR = tmp_path
    start = start_workflow("wr.routine-focused_plan")
    assert list(Observation.objects.values_list("git_branch", flat=True)) == ["main"]
    second = continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"])
    )
    assert Observation.objects.count() == 1  # nothing changed: nothing recorded
    repo("checkout", "-q", "-b", "feature/x")
    continue_workflow(stateToken=second["stateToken"], ackToken=second["ackToken"], output=notes_for(second["pending"]))
    assert list(Observation.objects.order_by("pk").values_list("git_branch", flat=True)) == ["main", "feature/x"]


@pytest.mark.parametrize("door", [Door.HTTP, Door.API])
def test_a_request_from_another_machine_records_nothing_of_the_servers_directory(
    repo, tmp_path, service_catalog, settings, door
):
    """Over HTTP the server's working directory is not the client's project: its branch, HEAD and path
    would be shown to every token holder as where the client works."""
    settings.WORKRAIL_PROJECT_DIR = tmp_path
    with acting_as(Actor("alice", door)):
        start = start_workflow("wr.routine-focused_plan")
        continue_workflow(
            stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"])
        )
    assert Observation.objects.count() == 0
    start_workflow("wr.routine-focused_plan")  # a local process: its directory is its project
    assert Observation.objects.count() == 1
