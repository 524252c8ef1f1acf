"""Fetching a workflow repository, checking it and moving its pin: what `manage.py sync_workflows` does,
and what the MCP server does once for a repository never pinned.

The workflows at the fetched commit are checked by `file_checks.validate_with_catalog`, the checks of
`validate_workflow`, as a git source (a `wr.` id is accepted; a bundled workflow of the same id wins).
The pin moves unless that would lose something already loaded: when a file at the new commit has an
error it did not have at the pinned commit, the pin stays where it was and the report says why. A file
that was already broken at the pinned commit does not hold the repository back (it was not loaded
before either, and refusing would block every later update); a repository never pinned is pinned
whatever its files say (nothing of it was loaded), its broken files left out as in any source.
"""

from __future__ import annotations

import dataclasses
import logging
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from workflows_app.diagnostics import Code, error
from workflows_app.file_checks import FileReport, PathsProblem, validate_with_catalog
from workflows_app.repos import git
from workflows_app.repos.git import RepoFailure
from workflows_app.repos.store import Pin, RepoStore
from workflows_app.sources import SourceKind
from workrail_site.workflow_repos import WorkflowRepo, hide_credentials

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Changed:
    workflow_id: str
    old_hash: str
    new_hash: str


@dataclass
class SyncReport:
    repo: WorkflowRepo
    old_commit: str | None
    new_commit: str | None = None
    added: list[str] = field(default_factory=list)
    changed: list[Changed] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    files: list[FileReport] = field(default_factory=list)  # files with diagnostics, paths inside the repository
    failure: RepoFailure | None = None
    moved: bool = False
    checked_only: bool = False

    @property
    def invalid_files(self) -> list[FileReport]:
        return [report for report in self.files if report.errors]

    @property
    def ok(self) -> bool:
        return self.failure is None and not self.invalid_files


@dataclass(frozen=True)
class _Checked:
    files: list[FileReport]
    hashes: dict[str, str]  # workflow id -> workflowHash, of the repository's workflows that load


def sync(
    repo: WorkflowRepo, store: RepoStore, *, user_dir: Path, check: bool = False, unpinned_only: bool = False
) -> SyncReport:
    """Fetches `repo`'s ref, checks its workflows and moves its pin (not with `check`); never raises for
    what a repository or the network can do wrong: the report carries the failure. With `unpinned_only`,
    a repository another process pinned meanwhile is left as it is."""
    with store.locked():
        old = store.pin(repo)
        report = SyncReport(repo, old.commit if old else None, checked_only=check)
        if unpinned_only and old is not None:
            report.new_commit = old.commit
            return report
        try:
            return _sync(repo, store, report, old, user_dir=user_dir, check=check)
        except RepoFailure as failure:
            report.failure = hidden(failure, repo)
        except Exception as exc:  # one repository must never stop the others (a full disk, a path the OS refuses)
            logger.error(
                "Syncing workflow repository %s failed:\n%s",
                repo.name,
                hide_credentials("".join(traceback.format_exception(exc)), repo.url),
            )
            report.failure = hidden(
                RepoFailure(
                    Code.REPO_FETCH_FAILED,
                    f"Syncing {repo.display_url} failed: {type(exc).__name__}: {exc}",
                    f"{git.RETRY} The server log has the details.",
                ),
                repo,
            )
        if old is None:
            store.failures[repo.folder] = report.failure
        return report


def hidden(failure: RepoFailure, repo: WorkflowRepo) -> RepoFailure:
    """The failure with every credential of `repo`'s URL hidden: what git says may quote the URL."""
    return RepoFailure(
        failure.code, hide_credentials(failure.message, repo.url), hide_credentials(failure.fix, repo.url)
    )


def _sync(
    repo: WorkflowRepo, store: RepoStore, report: SyncReport, old: Pin | None, *, user_dir: Path, check: bool
) -> SyncReport:
    """sync()'s work with the lock held; raises RepoFailure (or anything the OS raises) for sync to report."""
    store.recover(repo)
    git.init_bare(store.git_dir(repo))
    commit = git.fetch(store.git_dir(repo), repo.url, repo.display_url, repo.ref, store.limits)
    report.new_commit = commit
    if not git.directory_exists(store.git_dir(repo), commit, repo.directory):
        raise RepoFailure(
            Code.REPO_DIR_NOT_FOUND,
            f"{repo.display_url} has no directory '{repo.directory}' at {commit[:7]} ({repo.ref_label}).",
            "Fix the directory after ':' in WORKRAIL_WORKFLOW_REPOS (URL#REF:DIR), relative to the "
            "repository's root; leave it out when the workflows are at the root.",
        )
    new = _check(repo, store, commit, user_dir, required=True)
    before = (
        _check(repo, store, old.commit, user_dir, required=False) if old is not None and old.commit != commit else new
    )
    report.files = new.files
    report.added = sorted(set(new.hashes) - set(before.hashes))
    report.removed = sorted(set(before.hashes) - set(new.hashes))
    report.changed = [
        Changed(workflow_id, before.hashes[workflow_id], new.hashes[workflow_id])
        for workflow_id in sorted(set(new.hashes) & set(before.hashes))
        if new.hashes[workflow_id] != before.hashes[workflow_id]
    ]
    broken_before = {report.path for report in before.files if report.errors}
    newly_broken = [file.path for file in report.invalid_files if file.path not in broken_before]
    if old is not None and old.commit != commit and newly_broken:
        report.failure = RepoFailure(
            Code.REPO_INVALID_WORKFLOW,
            f"At {commit[:7]}, {_count(newly_broken, 'workflow file')} of {repo.display_url} "
            f"{'has' if len(newly_broken) == 1 else 'have'} errors ({', '.join(newly_broken)}); the pin stays at "
            f"{old.commit[:7]}, so every workflow loaded from it still loads.",
            "Fix the errors listed (each says how) in the repository and run sync_workflows again, or pin a "
            "ref without them (URL#REF in WORKRAIL_WORKFLOW_REPOS). `manage.py validate_workflow --source git "
            "DIR` checks a clone the same way.",
        )
        return report
    if not check and (old is None or old.commit != commit):
        store.write_pin(repo, commit)
        store.prune(repo, keep={commit, *([old.commit] if old else [])})
        report.moved = True
    store.failures.pop(repo.folder, None)
    return report


def _check(repo: WorkflowRepo, store: RepoStore, commit: str, user_dir: Path, *, required: bool) -> _Checked:
    root = store.ensure_snapshot(repo, commit)
    inside = f"{repo.directory}/" if repo.directory else ""
    skipped = [
        FileReport(
            inside + item.path,
            None,
            (error(Code.REPO_FILE_SKIPPED, item.message, item.fix or "Nothing to do.", file=inside + item.path),),
        )
        for item in store.skipped(repo, commit)
    ]
    try:
        reports, catalog = validate_with_catalog([root], kind=SourceKind.GIT, user_dir=user_dir)
    except PathsProblem:
        if not required:
            return _Checked(skipped, {})
        where = f"'{repo.directory}'" if repo.directory else "its root"
        raise RepoFailure(
            Code.REPO_DIR_NOT_FOUND,
            f"{repo.display_url} has no *.json workflow file under {where}.",
            "Point WORKRAIL_WORKFLOW_REPOS at the directory of the workflows (URL#REF:DIR; WorkRail's own "
            "library keeps them under workflows).",
        ) from None
    prefix = str(root) + "/"

    def shown(path: str) -> str:
        return inside + path.removeprefix(prefix)

    files = [dataclasses.replace(r, path=shown(r.path)) for r in reports if r.diagnostics]
    hashes = {entry.id: entry.workflow_hash for entry in catalog.entries if str(entry.path).startswith(prefix)}
    return _Checked([*skipped, *files], hashes)


def fetch_unpinned(repos: list[WorkflowRepo], store: RepoStore, *, user_dir: Path) -> list[SyncReport]:
    """Fetches and pins each repository that has no pin yet (a server's first start with it); a
    repository already pinned is left alone: only sync_workflows moves a pin."""
    reports = []
    for repo in repos:
        if store.pin(repo) is not None:
            continue
        report = sync(repo, store, user_dir=user_dir, unpinned_only=True)
        if report.failure is not None:
            logger.warning("workflow repository %s not fetched: %s", repo.name, report.failure)
        elif report.moved:
            logger.info("workflow repository %s pinned at %s", repo.name, (report.new_commit or "")[:12])
        reports.append(report)
    return reports


def _count(items: list[str], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"
