"""Fetching, checking and pinning workflow repositories (local bare repositories, file:// URLs)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tests.support.git_repos import BareRepo
from tests.support.workflow_files import step_doc, workflow_doc
from workflows_app.catalog import CatalogLoader
from workflows_app.diagnostics import Code, Severity
from workflows_app.repos.store import RepoStore
from workflows_app.repos.sync import fetch_unpinned, sync
from workflows_app.sources import SourceKind, configured_sources
from workrail_site.workflow_repos import parse_workflow_repos


def one(entry: str):
    [repo] = parse_workflow_repos(entry)
    return repo


def run_sync(repo, home: Path, **options):
    return sync(repo, RepoStore(home), user_dir=home / "workflows", **options)


def catalog_of(home: Path, *entries):
    repos = [one(entry) for entry in entries]
    store = RepoStore(home)
    sources = configured_sources(workrail_home=home, project_dir=home, extra_paths=[])
    return CatalogLoader(sources, lambda: store.sources(repos, first_precedence=len(sources))).load()


def test_a_first_sync_clones_pins_and_the_catalog_reads_that_commit(home, origin):
    commit = origin.commit({"workflows/alpha.json": workflow_doc("team.alpha"), "README.md": "not a workflow"})
    repo = one(f"{origin.url}#main:workflows")

    report = run_sync(repo, home)

    assert report.ok and report.moved and (report.old_commit, report.new_commit) == (None, commit)
    pins = json.loads((home / "workflow-repos" / "pins.json").read_text())
    [pin] = pins["repositories"].values()
    assert pin["commit"] == commit and pin["url"] == origin.url and pin["directory"] == "workflows"
    assert stat.S_IMODE(os.stat(home / "workflow-repos" / "pins.json").st_mode) == 0o600
    entry = catalog_of(home, f"{origin.url}#main:workflows").get("team.alpha")
    assert entry.source.kind is SourceKind.GIT
    assert entry.source.origin.commit == commit and entry.source.origin.url == origin.url
    assert commit in str(entry.path)


def test_the_catalog_stays_on_the_pin_when_the_branch_moves(home, origin):
    first = origin.commit({"alpha.json": workflow_doc("team.alpha", name="First")})
    run_sync(one(origin.url), home)
    origin.commit({"alpha.json": workflow_doc("team.alpha", name="Second")})

    entry = catalog_of(home, origin.url).get("team.alpha")

    assert entry.compiled["name"] == "First" and entry.source.origin.commit == first


def test_sync_moves_the_pin_and_says_what_was_added_changed_and_removed(home, origin):
    old = origin.commit(
        {
            "keep.json": workflow_doc("team.keep"),
            "edit.json": workflow_doc("team.edit"),
            "gone.json": workflow_doc("team.gone"),
        }
    )
    repo = one(origin.url)
    run_sync(repo, home)
    before = catalog_of(home, origin.url).get("team.edit").workflow_hash
    new = origin.commit(
        {
            "edit.json": workflow_doc("team.edit", steps=[step_doc("only", "Only", "Do it all.")]),
            "gone.json": None,
            "fresh.json": workflow_doc("team.fresh"),
        }
    )

    report = run_sync(repo, home)

    assert (report.old_commit, report.new_commit, report.moved) == (old, new, True)
    assert report.added == ["team.fresh"] and report.removed == ["team.gone"]
    [changed] = report.changed
    after = catalog_of(home, origin.url).get("team.edit").workflow_hash
    assert (changed.workflow_id, changed.old_hash, changed.new_hash) == ("team.edit", before, after)
    catalog = catalog_of(home, origin.url)
    assert catalog.get("team.gone") is None and catalog.get("team.fresh") is not None


def test_an_invalid_workflow_at_the_new_commit_keeps_the_old_pin(home, origin):
    good = origin.commit({"alpha.json": workflow_doc("team.alpha")})
    repo = one(origin.url)
    run_sync(repo, home)
    origin.commit({"alpha.json": workflow_doc("team.alpha", steps=[{"id": "x1", "titel": "typo"}])})

    report = run_sync(repo, home)

    assert not report.ok and not report.moved
    assert report.failure.code is Code.REPO_INVALID_WORKFLOW
    assert "alpha.json" in report.failure.message and good[:7] in report.failure.message
    [broken] = report.invalid_files
    assert broken.path == "alpha.json" and {d.code for d in broken.diagnostics} == {Code.SCHEMA_VIOLATION}
    assert catalog_of(home, origin.url).get("team.alpha").source.origin.commit == good


def test_a_file_already_broken_at_the_pin_does_not_hold_the_repository_back(home, origin):
    origin.commit({"alpha.json": workflow_doc("team.alpha"), "broken.json": "{not json"})
    repo = one(origin.url)
    first = run_sync(repo, home)
    assert first.moved and not first.ok  # never pinned: pinned, the broken file left out and reported
    new = origin.commit({"beta.json": workflow_doc("team.beta")})

    report = run_sync(repo, home)

    assert report.moved and report.failure is None and report.added == ["team.beta"]
    assert [file.path for file in report.invalid_files] == ["broken.json"]
    assert catalog_of(home, origin.url).get("team.beta").source.origin.commit == new


def test_check_reports_without_moving_the_pin(home, origin):
    old = origin.commit({"alpha.json": workflow_doc("team.alpha")})
    repo = one(origin.url)
    run_sync(repo, home)
    new = origin.commit({"beta.json": workflow_doc("team.beta")})

    report = run_sync(repo, home, check=True)

    assert (report.old_commit, report.new_commit, report.added, report.moved) == (old, new, ["team.beta"], False)
    assert RepoStore(home).pin(repo).commit == old


def test_an_unreachable_url_is_a_fetch_failure_with_a_fix(home, tmp_path):
    repo = one((tmp_path / "nowhere.git").as_uri())

    report = run_sync(repo, home)

    assert report.failure.code is Code.REPO_FETCH_FAILED and not report.moved
    assert "does not appear to be a git repository" in report.failure.message
    assert "git ls-remote" in report.failure.fix
    catalog = catalog_of(home, repo.url)
    [note] = [d for d in catalog.diagnostics if d.code is Code.REPO_NOT_SYNCED]
    assert note.severity is Severity.WARNING and "sync_workflows --repo nowhere" in note.fix


def test_a_missing_ref_is_named_with_the_fix(home, origin):
    origin.commit({"alpha.json": workflow_doc("team.alpha")})

    branch = run_sync(one(f"{origin.url}#no-such-branch"), home)
    abbreviated = run_sync(one(f"{origin.url}#0123abc"), home)
    commit = run_sync(one(f"{origin.url}#{'0' * 40}"), home)

    assert branch.failure.code is Code.REPO_REF_NOT_FOUND and "'no-such-branch'" in branch.failure.message
    assert "40 characters" in abbreviated.failure.fix
    assert commit.failure.code is Code.REPO_REF_NOT_FOUND


def test_a_tag_and_a_commit_can_be_pinned(home, origin):
    tagged = origin.commit({"alpha.json": workflow_doc("team.alpha", name="Tagged")})
    origin.tag("v1")
    origin.commit({"alpha.json": workflow_doc("team.alpha", name="Later")})

    by_tag = run_sync(one(f"bytag={origin.url}#v1"), home)
    by_commit = run_sync(one(f"bycommit={origin.url}#{tagged}"), home)

    assert by_tag.new_commit == tagged and by_commit.new_commit == tagged


def test_a_missing_directory_is_named(home, origin):
    origin.commit({"alpha.json": workflow_doc("team.alpha")})

    report = run_sync(one(f"{origin.url}#main:workflows"), home)

    assert report.failure.code is Code.REPO_DIR_NOT_FOUND and "'workflows'" in report.failure.message


def test_two_repositories_load_side_by_side_in_setting_order(home, tmp_path):
    first, second = BareRepo(tmp_path, "first"), BareRepo(tmp_path, "second")
    first.commit({"shared.json": workflow_doc("team.shared", name="From first"), "a.json": workflow_doc("team.aaa")})
    second.commit({"shared.json": workflow_doc("team.shared", name="From second"), "b.json": workflow_doc("team.bbb")})
    repos = parse_workflow_repos(f"{first.url} {second.url}")

    reports = fetch_unpinned(repos, RepoStore(home), user_dir=home / "workflows")

    assert [r.moved for r in reports] == [True, True]
    catalog = catalog_of(home, first.url, second.url)
    assert catalog.get("team.aaa") and catalog.get("team.bbb")
    assert catalog.get("team.shared").compiled["name"] == "From first"
    [clash] = [d for d in catalog.diagnostics if d.code is Code.DUPLICATE_ID]
    assert "repository first" in clash.message and "repository second" in clash.message


def test_fetch_unpinned_leaves_a_pinned_repository_alone(home, origin):
    pinned = origin.commit({"alpha.json": workflow_doc("team.alpha")})
    repo = one(origin.url)
    run_sync(repo, home)
    origin.commit({"beta.json": workflow_doc("team.beta")})

    assert fetch_unpinned([repo], RepoStore(home), user_dir=home / "workflows") == []
    assert RepoStore(home).pin(repo).commit == pinned


def test_a_symbolic_link_in_a_repository_is_not_followed(home, origin, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(workflow_doc("team.secret")))
    (origin.work / "link.json").symlink_to(secret)
    origin.commit({"alpha.json": workflow_doc("team.alpha")})

    run_sync(one(origin.url), home)

    catalog = catalog_of(home, origin.url)
    assert catalog.get("team.alpha") is not None and catalog.get("team.secret") is None


def test_a_deleted_snapshot_is_written_again_from_the_fetched_objects(home, origin):
    commit = origin.commit({"alpha.json": workflow_doc("team.alpha")})
    repo = one(origin.url)
    run_sync(repo, home)
    snapshot = RepoStore(home).snapshot_dir(repo, commit)
    for child in snapshot.iterdir():
        child.unlink()
    snapshot.rmdir()

    assert catalog_of(home, origin.url).get("team.alpha") is not None


def workrail_library(root: Path, corpus: Path) -> BareRepo:
    """WorkRail's own library as its repository holds it: the corpus files under workflows/, their
    ids back in the `wr.` namespace (SOURCE.md: the corpus renamed them to `workrail.`)."""
    library = BareRepo(root, "workrail")
    files = {}
    for path in sorted(corpus.rglob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if document["id"].startswith("workrail."):
            document["id"] = "wr." + document["id"].removeprefix("workrail.")
        files[f"workflows/{path.relative_to(corpus).as_posix()}"] = document
    files["README.md"] = "WorkRail"
    library.commit(files)
    return library


def test_workrail_s_own_library_loads_with_its_wr_ids(home, tmp_path, corpus_dir):
    library = workrail_library(tmp_path, corpus_dir)
    entry = f"{library.url}#main:workflows"

    report = run_sync(one(entry), home)

    assert report.ok and report.moved, [f.path for f in report.invalid_files]
    catalog = catalog_of(home, entry)
    assert [d for d in catalog.diagnostics if d.severity is Severity.ERROR] == []
    routine = catalog.get("wr.routine-design-review")
    assert routine is not None and routine.kind == "routine" and routine.source.kind is SourceKind.GIT
    assert catalog.get("wr.classify-task") is not None
    assert catalog.get("wr.evidence_first_bug_fix").source.kind is SourceKind.BUNDLED


def test_a_repository_s_copy_of_a_bundled_wr_id_loses_to_the_bundled_one_and_says_so(home, origin):
    copy = origin.commit({"bug.json": workflow_doc("wr.evidence_first_bug_fix", name="Repository copy")})

    report = run_sync(one(origin.url), home)

    assert report.ok and report.moved
    [note] = [d for f in report.files for d in f.diagnostics]
    assert note.code is Code.DUPLICATE_ID and note.severity is Severity.WARNING
    catalog = catalog_of(home, origin.url)
    assert catalog.get("wr.evidence_first_bug_fix").source.kind is SourceKind.BUNDLED
    [clash] = [d for d in catalog.diagnostics if d.code is Code.DUPLICATE_ID]
    assert f"repository flows at {copy[:7]}" in clash.message and "bundled" in clash.fix
