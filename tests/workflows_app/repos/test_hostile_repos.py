"""A workflow repository is bounded like any untrusted input (issue 29): what the red team's hostile
repositories did, rebuilt small, each with what must hold instead."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from harness import git_servers
from runs.execution import catalog as catalog_service
from runs.mcp.services import read_workflows
from tests.support.git_repos import BareRepo
from tests.support.mcp_calls import call
from tests.support.workflow_files import workflow_doc
from workflows_app.diagnostics import Code
from workflows_app.repos.git import RepoLimits
from workflows_app.repos.store import RepoStore
from workflows_app.repos.sync import fetch_unpinned, sync
from workrail_site.workflow_repos import parse_workflow_repos

SECRET = "glpat-SECRETVALUE123"


def one(entry: str):
    [repo] = parse_workflow_repos(entry)
    return repo


def run_sync(repo, home: Path, limits: RepoLimits | None = None):
    return sync(repo, RepoStore(home, limits), user_dir=home / "workflows")


def workflow_bytes(workflow_id: str) -> bytes:
    return json.dumps(workflow_doc(workflow_id)).encode()


def written(home: Path) -> list[str]:
    """Every file written in the repositories' snapshots (<folder>/<commit>/...), relative to its snapshot."""
    root = home / "workflow-repos"
    found = []
    for path in root.glob("*/*/**/*"):
        _folder, snapshot, *inside = path.relative_to(root).parts
        if len(snapshot) == 40 and path.is_file() and not path.name.startswith("."):
            found.append("/".join(inside))
    return sorted(found)


def skipped(report) -> dict[str, str]:
    return {file.path: d.message for file in report.files for d in file.diagnostics if d.code is Code.REPO_FILE_SKIPPED}


# --- size: a huge blob referenced twice, too many files, too many bytes ---------------------------------------


def test_a_blob_past_the_size_cap_is_never_written_even_when_referenced_twice(home, origin):
    """The red team's 2 GiB blob at two paths wrote 4 GiB; here 2 MiB (past the 1 MiB cap) at two paths."""
    huge = b'{"id": "team.huge", "padding": "' + b"0" * (2 * 1024 * 1024) + b'"}'
    origin.commit_raw({"a.json": huge, "copy/b.json": huge, "fine.json": workflow_bytes("team.fine")})

    report = run_sync(one(origin.url), home)

    assert report.moved
    assert set(skipped(report)) == {"a.json", "copy/b.json"}
    assert "2.0 MiB" in skipped(report)["a.json"] and "1 MiB" in skipped(report)["a.json"]
    assert written(home) == ["fine.json"]


def test_more_workflow_files_than_the_budget_refuses_the_repository_whole(home, origin):
    """20,000 files cost each server 30-46 s; past the file count nothing of the repository is written."""
    origin.commit_raw({f"w{i}.json": workflow_bytes(f"team.w{i}") for i in range(6)})

    report = run_sync(one(origin.url), home, RepoLimits(max_files=5))

    assert report.failure.code is Code.REPO_TOO_LARGE and not report.moved
    assert "more than 5 workflow files" in report.failure.message
    assert written(home) == []


def test_more_bytes_than_the_budget_refuses_the_repository_whole(home, origin):
    origin.commit_raw({"a.json": workflow_bytes("team.aaa"), "b.json": workflow_bytes("team.bbb")})

    report = run_sync(one(origin.url), home, RepoLimits(max_total_bytes=300))

    assert report.failure.code is Code.REPO_TOO_LARGE and written(home) == []


def test_only_regular_workflow_files_are_written(home, origin):
    origin.commit_raw(
        {
            "flow.json": workflow_bytes("team.flow"),
            "README.md": b"not a workflow",
            ".hidden/secret.json": workflow_bytes("team.hidden"),
            "big.bin": b"0" * 10_000,
        }
    )

    run_sync(one(origin.url), home)

    assert written(home) == ["flow.json"]


# --- depth and path length ------------------------------------------------------------------------------------


def test_a_tree_nested_deep_is_not_written_past_the_depth_limit(home, origin):
    """The red team's tree 3,000 levels deep held the repositories' lock past 300 s; 300 levels here."""
    deep = "d/" * 300 + "deep.json"
    origin.commit_raw({deep: workflow_bytes("team.deep"), "fine.json": workflow_bytes("team.fine")})

    report = run_sync(one(origin.url), home)

    assert report.moved and written(home) == ["fine.json"]
    [(path, message)] = skipped(report).items()
    assert path.startswith("d/d/") and path.endswith("d/deep.json") and len(path) < 300  # shown by its ends
    assert "300 directories deep" in message


def test_an_over_long_path_in_one_repository_does_not_stop_the_next(settings, tmp_path, capsys):
    settings.WORKRAIL_HOME = tmp_path / "home"
    long_name = "x" * 300 + ".json"  # longer than a file name may be (255 bytes): the OS refuses to write it
    first, second = BareRepo(tmp_path, "first"), BareRepo(tmp_path, "second")
    first.commit_raw({long_name: workflow_bytes("team.long"), "fine.json": workflow_bytes("team.fine")})
    second.commit({"other.json": workflow_doc("team.other")})
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(f"{first.url} {second.url}")

    with pytest.raises(SystemExit):  # exit 1: a file of the first was skipped
        call_command("sync_workflows")

    out = capsys.readouterr().out
    assert "REPO_FILE_SKIPPED" in out and "2 repositories synced: 2 pins moved" in out
    pins = json.loads((settings.WORKRAIL_HOME / "workflow-repos" / "pins.json").read_text())
    assert {entry["name"] for entry in pins["repositories"].values()} == {"first", "second"}


def test_a_failure_the_os_raises_becomes_that_repository_s_report(home, origin, monkeypatch):
    origin.commit({"alpha.json": workflow_doc("team.alpha")})

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(RepoStore, "ensure_snapshot", full_disk)

    report = run_sync(one(origin.url), home)

    assert report.failure.code is Code.REPO_FETCH_FAILED and "No space left on device" in report.failure.message


# --- no filter, no attribute --------------------------------------------------------------------------------


def test_no_configured_filter_runs_on_a_repository_s_files(home, origin, tmp_path, monkeypatch):
    """A repository's .gitattributes naming a filter the user configured must not run it, nor change a byte."""
    marker = tmp_path / "filter-ran"
    user_home = tmp_path / "user"
    user_home.mkdir()
    (user_home / ".gitconfig").write_text(
        f"[filter \"evil\"]\n\tsmudge = sh -c 'touch {marker} && sed s/Sample/Changed/'\n\tclean = cat\n"
    )
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    origin.commit_raw({".gitattributes": b"*.json filter=evil\n", "flow.json": workflow_bytes("team.flow")})

    report = run_sync(one(origin.url), home)

    assert report.moved and not marker.exists()
    [path] = (home / "workflow-repos").glob(f"*/{report.new_commit}/flow.json")
    assert path.read_bytes() == workflow_bytes("team.flow")


# --- git's memory ---------------------------------------------------------------------------------------------


@pytest.fixture
def endless_refs() -> Iterator[str]:
    """An http:// 'git server' whose ref advertisement goes on and on (60 MB here, without end for real)."""
    with git_servers.endless_refs(chunks=60) as url:
        yield url


def test_a_remote_streaming_refs_stops_git_at_its_memory_limit(home, endless_refs):
    report = run_sync(one(endless_refs), home, RepoLimits(git_memory_bytes=128 * 1024 * 1024))

    assert report.failure.code is Code.REPO_TOO_LARGE and not report.moved
    assert "128 MiB of memory" in report.failure.message


# --- credentials ----------------------------------------------------------------------------------------------


def leaky_entry() -> str:
    return f"team=http://127.0.0.1:9/team.git?private_token={SECRET}#main"  # port 9: refused at once


def test_a_query_string_credential_never_appears_in_a_failure(home):
    repo = one(leaky_entry())

    report = run_sync(repo, home)

    assert report.failure.code is Code.REPO_FETCH_FAILED
    assert "127.0.0.1" in report.failure.message  # git's words are still shown...
    assert SECRET not in str(report.failure)  # ...without the token


def test_a_query_string_credential_never_appears_in_answers_pages_logs_or_output(
    settings, service_catalog, caplog, capsys, db
):
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(leaky_entry())
    catalog_service.repo_store.cache_clear()
    catalog_service.catalog_loader.cache_clear()
    try:
        with caplog.at_level(logging.INFO):
            catalog_service.fetch_workflow_repos()  # a server's first start: the failure is kept and logged
        listing = call("list_workflows", {})
        people = catalog_service.list_workflows(for_people=True).dump()  # the dashboard's, problems in full
        resource = read_workflows()
        out = io.StringIO()
        with pytest.raises(SystemExit):
            call_command("sync_workflows", stdout=out)
    finally:
        catalog_service.repo_store.cache_clear()
        catalog_service.catalog_loader.cache_clear()

    assert listing["problems"]["notLoaded"] == ["team"]  # an agent hears which repository is missing
    [note] = [w for w in people["warnings"] if w["code"] == "REPO_NOT_SYNCED"]
    assert "The last attempt failed" in note["message"]
    everything = (json.dumps(listing), json.dumps(people), json.dumps(resource), out.getvalue(), caplog.text)
    for shown in (*everything, capsys.readouterr().err):
        assert SECRET not in shown
    assert "127.0.0.1" in out.getvalue()


def test_a_malformed_entry_s_message_hides_its_query_string():
    with pytest.raises(ImproperlyConfigured) as refused:
        parse_workflow_repos(f"https://host/x.git?private_token={SECRET}#ma..in")
    assert SECRET not in str(refused.value)


# --- a killed sync --------------------------------------------------------------------------------------------


def test_a_killed_sync_s_leftovers_are_cleaned_up_by_the_next(home, origin):
    origin.commit({"alpha.json": workflow_doc("team.alpha")})
    repo = one(origin.url)
    store = RepoStore(home)
    run_sync(repo, home)
    # What a sync killed during its fetch and while writing a snapshot leaves behind.
    (store.git_dir(repo) / "shallow.lock").write_text("")
    leftover = store.root / repo.folder / ".writing-killed"
    (leftover / "tree").mkdir(parents=True)
    (leftover / "tree" / "half.json").write_text("{")
    new = origin.commit({"beta.json": workflow_doc("team.beta")})

    report = run_sync(repo, home)

    assert report.ok and report.moved and report.new_commit == new
    assert not (store.git_dir(repo) / "shallow.lock").exists() and not leftover.exists()


# --- names printed on a terminal ------------------------------------------------------------------------------


ESCAPED_NAMES = {"evil\x1b[2J.json": "evil\\x1b[2J.json", "two\nlines.json": "two\\nlines.json"}


def test_sync_workflows_prints_names_with_terminal_escapes_escaped(settings, tmp_path, capsys):
    settings.WORKRAIL_HOME = tmp_path / "home"
    origin = BareRepo(tmp_path)
    origin.commit_raw({name: b"{not json" for name in ESCAPED_NAMES} | {"fine.json": workflow_bytes("team.fine")})
    settings.WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(origin.url)

    with pytest.raises(SystemExit):
        call_command("sync_workflows")

    out = capsys.readouterr().out
    assert "\x1b" not in out and "two\nlines" not in out
    assert all(shown in out for shown in ESCAPED_NAMES.values())


def test_validate_workflow_prints_names_with_terminal_escapes_escaped(tmp_path, capsys):
    for name in ESCAPED_NAMES:
        (tmp_path / name).write_text("{not json")

    with pytest.raises(SystemExit):
        call_command("validate_workflow", str(tmp_path))

    out = capsys.readouterr().out
    assert "\x1b" not in out and "two\nlines" not in out
    assert all(shown in out for shown in ESCAPED_NAMES.values())


def test_fetch_unpinned_keeps_going_after_a_repository_that_fails(home, tmp_path):
    good = BareRepo(tmp_path, "good")
    good.commit({"g.json": workflow_doc("team.good")})
    repos = parse_workflow_repos(f"{leaky_entry()} {good.url}")

    reports = fetch_unpinned(repos, RepoStore(home), user_dir=home / "workflows")

    assert [report.moved for report in reports] == [False, True]
