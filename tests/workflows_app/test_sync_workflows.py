"""`manage.py sync_workflows`: what it prints per repository, its exit status, --repo and --check."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.support.git_repos import BareRepo
from tests.support.workflow_files import workflow_doc
from workrail_site.workflow_repos import parse_workflow_repos


@pytest.fixture
def home(settings, tmp_path: Path) -> Path:
    settings.WORKRAIL_HOME = tmp_path / "home"
    settings.WORKRAIL_HOME.mkdir()
    return settings.WORKRAIL_HOME


def sync_workflows(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("sync_workflows", *args, stdout=out)
    except SystemExit as exit_:
        return int(exit_.code or 0), out.getvalue()
    return 0, out.getvalue()


def pinned(home: Path) -> dict[str, str]:
    pins = json.loads((home / "workflow-repos" / "pins.json").read_text())
    return {entry["name"]: entry["commit"] for entry in pins["repositories"].values()}


def test_it_prints_old_and_new_commit_and_what_changed(settings, home, tmp_path):
    origin = BareRepo(tmp_path)
    first = origin.commit({"a.json": workflow_doc("team.aaa"), "b.json": workflow_doc("team.bbb")})
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(origin.url)
    status, out = sync_workflows()
    assert status == 0 and f"(not pinned) -> {first[:7]}" in out and f"pinned at {first[:7]}" in out
    second = origin.commit(
        {"a.json": workflow_doc("team.aaa", name="Renamed"), "b.json": None, "c.json": workflow_doc("team.ccc")}
    )

    status, out = sync_workflows()

    assert status == 0, out
    assert f"{first[:7]} -> {second[:7]}" in out
    assert "added: team.ccc" in out and "removed: team.bbb" in out and "changed: team.aaa (" in out
    assert "1 repository synced: 1 pin moved." in out
    status, out = sync_workflows()
    assert status == 0 and f"{second[:7]}: up to date" in out and "0 pins moved" in out


def test_a_failure_in_one_repository_exits_1_and_the_others_still_move(settings, home, tmp_path):
    good = BareRepo(tmp_path, "good")
    commit = good.commit({"a.json": workflow_doc("team.aaa")})
    missing = (tmp_path / "missing.git").as_uri()
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(f"{missing} {good.url}#main")

    status, out = sync_workflows()

    assert status == 1
    assert "REPO_FETCH_FAILED: Cannot fetch" in out and "fix: Check the URL" in out
    assert "not pinned: none of its workflows are loaded" in out
    assert "2 repositories synced: 1 pin moved, 1 with problems." in out
    assert pinned(home) == {"good": commit}


def test_an_invalid_workflow_keeps_the_pin_and_prints_the_diagnostics_and_the_fix(settings, home, tmp_path):
    origin = BareRepo(tmp_path)
    good = origin.commit({"workflows/a.json": workflow_doc("team.aaa")})
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(f"{origin.url}#main:workflows")
    sync_workflows()
    origin.commit({"workflows/a.json": "{ broken"})

    status, out = sync_workflows()

    assert status == 1
    assert "workflows/a.json: 1 error" in out and "error INVALID_JSON" in out
    assert "REPO_INVALID_WORKFLOW" in out and f"pin kept at {good[:7]}" in out
    assert pinned(home) == {"flows": good}


def test_check_moves_nothing_and_repo_picks_one(settings, home, tmp_path):
    one, two = BareRepo(tmp_path, "one"), BareRepo(tmp_path, "two")
    first = one.commit({"a.json": workflow_doc("team.aaa")})
    two.commit({"b.json": workflow_doc("team.bbb")})
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(f"{one.url} {two.url}")
    assert sync_workflows("--repo", "one")[0] == 0
    assert pinned(home) == {"one": first}
    later = one.commit({"c.json": workflow_doc("team.ccc")})

    status, out = sync_workflows("--check")

    assert status == 0 and f"--check: the pin would move to {later[:7]}" in out and "added: team.ccc" in out
    assert "2 repositories checked (--check: no pin moved)." in out
    assert pinned(home) == {"one": first}


def test_bad_usage_is_status_2(settings, home):
    settings.WORKRAIL_WORKFLOW_REPOS = []
    with pytest.raises(CommandError) as raised:
        call_command("sync_workflows")
    assert raised.value.returncode == 2 and "WORKRAIL_WORKFLOW_REPOS is empty" in str(raised.value)
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos("https://example.com/team/flows.git")
    with pytest.raises(CommandError) as raised:
        call_command("sync_workflows", "--repo", "other")
    assert raised.value.returncode == 2 and "Known: flows" in str(raised.value)
