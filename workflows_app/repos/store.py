"""Where workflow repositories live on disk, and their pins.

    $WORKRAIL_HOME/workflow-repos/
      pins.json             each repository's pinned commit (written whole, atomically)
      .lock                 held while a repository is fetched and its pin moved (one process at a time)
      <name>-<key>/git/     the fetched objects (a bare repository, shallow)
      <name>-<key>/<commit>/  the repository's workflow files at that commit, written once, never changed
                            (.skipped.json inside lists the files not written out, and why)
      <name>-<key>/.writing-*/  a snapshot being written (locked while it is; a killed writer's is removed)

The catalog reads a repository only from the directory of its pinned commit, never from a branch as it
is now: a pin moves only through `sync_workflows` (or the first fetch of a repository never pinned).
The directory of the commit pinned before is kept until the next move, so a process still reading it
while the pin moves is never left with half a directory.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import posixpath
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workflows_app.diagnostics import Code, Diagnostic, warning
from workflows_app.repos import git
from workflows_app.repos.git import RepoFailure, RepoLimits, Skipped
from workflows_app.sources import REPO_TAG_FILE, RepoOrigin, Source, SourceKind
from workflows_app.tags import MAX_TAG_FILE_BYTES, TAG_FILE
from workrail_site.workflow_repos import WorkflowRepo

REPOS_DIR = "workflow-repos"
PINS_FILE = "pins.json"
PINS_VERSION = 1
SKIPPED_FILE = ".skipped.json"  # hidden: no source lists it as a workflow
WRITING_PREFIX = ".writing-"


@dataclass(frozen=True)
class Pin:
    commit: str
    pinned_at: str


class RepoStore:
    """The repositories under one WORKRAIL_HOME. Safe to share between threads; several processes
    share the files (the lock orders writers, readers need none)."""

    def __init__(self, home: Path, limits: RepoLimits | None = None) -> None:
        self.root = Path(home) / REPOS_DIR
        self.limits = limits or RepoLimits()
        self._cache_lock = threading.Lock()
        self._pins_cache: tuple[tuple[int, int], dict[str, Pin]] | None = None
        # Why the last fetch of a repository never pinned failed, in this process: the catalog says it.
        self.failures: dict[str, RepoFailure] = {}

    # --- pins ----------------------------------------------------------------------------------------

    @property
    def pins_path(self) -> Path:
        return self.root / PINS_FILE

    def pins(self) -> dict[str, Pin]:
        """Every pin, by repository folder; read again only when the file changed (one stat otherwise)."""
        try:
            stat = self.pins_path.stat()
        except FileNotFoundError:
            return {}
        signature = (stat.st_mtime_ns, stat.st_size)
        with self._cache_lock:
            if self._pins_cache is not None and self._pins_cache[0] == signature:
                return self._pins_cache[1]
        pins = self._read_pins()
        with self._cache_lock:
            self._pins_cache = (signature, pins)
        return pins

    def _read_pins(self) -> dict[str, Pin]:
        try:
            content = json.loads(self.pins_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # unreadable: every repository counts as not synced, and the catalog says so
        found = {}
        for folder, entry in (content.get("repositories") or {}).items() if isinstance(content, dict) else []:
            if isinstance(entry, dict) and isinstance(entry.get("commit"), str):
                found[folder] = Pin(entry["commit"], str(entry.get("pinnedAt", "")))
        return found

    def pin(self, repo: WorkflowRepo) -> Pin | None:
        return self.pins().get(repo.folder)

    def write_pin(self, repo: WorkflowRepo, commit: str) -> None:
        """Moves the pin of `repo` to `commit`; the whole file is replaced at once (written beside it,
        flushed, renamed), so a reader sees the old pins or the new ones, never half a file. Call with
        the lock held."""
        try:
            content = json.loads(self.pins_path.read_text(encoding="utf-8"))
            repositories = content["repositories"] if isinstance(content.get("repositories"), dict) else {}
        except (OSError, ValueError, AttributeError, KeyError):
            repositories = {}
        repositories[repo.folder] = {
            "name": repo.name,
            "url": repo.display_url,
            "ref": repo.ref,
            "directory": repo.directory,
            "commit": commit,
            "pinnedAt": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        document = {"version": PINS_VERSION, "repositories": dict(sorted(repositories.items()))}
        _write_atomically(self.pins_path, json.dumps(document, indent=2) + "\n")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(self.root / ".lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)  # closing releases the lock

    # --- files at a commit ---------------------------------------------------------------------------

    def git_dir(self, repo: WorkflowRepo) -> Path:
        return self.root / repo.folder / "git"

    def snapshot_dir(self, repo: WorkflowRepo, commit: str) -> Path:
        return self.root / repo.folder / commit

    def ensure_snapshot(self, repo: WorkflowRepo, commit: str) -> Path:
        """The directory of `repo`'s workflows at `commit`, written out of its objects when missing
        (written beside, then renamed into place: complete or absent). The writer holds a lock on the
        directory it writes in, so a writer that was killed leaves one that recover() knows to remove."""
        target = self.snapshot_dir(repo, commit)
        if target.is_dir():
            return target
        (self.root / repo.folder).mkdir(parents=True, exist_ok=True, mode=0o700)
        scratch = Path(tempfile.mkdtemp(prefix=WRITING_PREFIX, dir=self.root / repo.folder))
        held = os.open(scratch, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(held, fcntl.LOCK_EX)
            extracted = git.extract(self.git_dir(repo), commit, repo.directory, scratch / "tree", self.limits)
            skipped = [dataclasses.asdict(item) for item in extracted.skipped]
            (scratch / "tree" / SKIPPED_FILE).write_text(json.dumps(skipped, indent=2) + "\n", encoding="utf-8")
            self._write_tag_file(repo, commit, scratch / "tree")
            with contextlib.suppress(OSError):  # another process wrote it first: same commit, same files
                os.rename(scratch / "tree", target)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            os.close(held)
        return target

    def skipped(self, repo: WorkflowRepo, commit: str) -> list[Skipped]:
        """The files of `repo` at `commit` that were not written out (too large, too deep, path too long)."""
        try:
            listed = json.loads((self.snapshot_dir(repo, commit) / SKIPPED_FILE).read_text(encoding="utf-8"))
            return [Skipped(str(item["path"]), str(item["message"]), str(item["fix"])) for item in listed]
        except (OSError, ValueError, TypeError, KeyError):
            return []

    def recover(self, repo: WorkflowRepo) -> None:
        """Removes what a killed sync left behind: git's lock files in the repository's objects (with the
        repositories' lock held no git of ours runs there, so any is stale; a `shallow.lock` left there
        made every later fetch fail) and its temporary packs, and the snapshots being written that no
        live process holds any more. Call with the lock held."""
        git_dir = self.git_dir(repo)
        if git_dir.is_dir():
            for pattern in ("*.lock", "refs/**/*.lock", "objects/pack/tmp_*", "objects/incoming-*"):
                for leftover in git_dir.glob(pattern):
                    if leftover.is_dir() and not leftover.is_symlink():
                        shutil.rmtree(leftover, ignore_errors=True)
                    else:
                        with contextlib.suppress(OSError):
                            leftover.unlink()
        folder = self.root / repo.folder
        for scratch in folder.glob(f"{WRITING_PREFIX}*") if folder.is_dir() else []:
            try:
                held = os.open(scratch, os.O_RDONLY | os.O_CLOEXEC | os.O_DIRECTORY | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a live writer: raises
                shutil.rmtree(scratch, ignore_errors=True)
            except OSError:
                pass
            finally:
                os.close(held)

    def _write_tag_file(self, repo: WorkflowRepo, commit: str, tree: Path) -> None:
        """The repository's tag file at `commit`, found beside its workflow directory as in WorkRail's
        repository (`workflows` -> `spec/workflow-tags.json`), written into the snapshot (a hidden
        directory, which the file walk skips) so that the catalog reads the tags of the pinned commit."""
        parent = posixpath.dirname(repo.directory.rstrip("/"))
        content = git.read_file_at(
            self.git_dir(repo), commit, posixpath.join(parent, "spec", TAG_FILE), MAX_TAG_FILE_BYTES
        )
        if content is None:
            return
        target = tree / REPO_TAG_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)

    def prune(self, repo: WorkflowRepo, keep: set[str]) -> None:
        """Removes the directories of commits not in `keep` (the pin, and the one before it)."""
        folder = self.root / repo.folder
        for child in folder.iterdir() if folder.is_dir() else []:
            if child.name not in keep and child.name != "git" and len(child.name) == 40:
                shutil.rmtree(child, ignore_errors=True)

    # --- what the catalog reads ------------------------------------------------------------------------

    def sources(self, repos: list[WorkflowRepo], first_precedence: int) -> tuple[list[Source], list[Diagnostic]]:
        """A source for each pinned repository (its files at the pinned commit), after every other source
        in WORKRAIL_WORKFLOW_REPOS order; a REPO_NOT_SYNCED warning for each repository not pinned yet."""
        sources: list[Source] = []
        notes: list[Diagnostic] = []
        pins = self.pins() if repos else {}
        for index, repo in enumerate(repos):
            pin = pins.get(repo.folder)
            if pin is None:
                notes.append(not_synced(repo, self.failures.get(repo.folder)))
                continue
            try:
                root = self.ensure_snapshot(repo, pin.commit)
            except (RepoFailure, OSError) as exc:
                notes.append(not_synced(repo, exc))
                continue
            origin = RepoOrigin(repo.name, repo.display_url, repo.ref, pin.commit, repo.directory)
            sources.append(Source(SourceKind.GIT, root, first_precedence + index, origin))
        return sources, notes


def not_synced(repo: WorkflowRepo, why: BaseException | None) -> Diagnostic:
    reason = f" The last attempt failed: {why}" if why is not None else ""
    return warning(
        Code.REPO_NOT_SYNCED,
        f"Workflow repository '{repo.name}' ({repo.display_url}, {repo.ref_label}) has no pinned commit yet, "
        f"so none of its workflows are loaded.{reason}",
        f"Run `manage.py sync_workflows --repo {repo.name}`: it fetches the repository, checks its workflows and "
        "pins the commit (the MCP server also fetches a repository never pinned when it starts).",
        details=_details(repo),
    )


def _details(repo: WorkflowRepo) -> dict[str, Any]:
    return {"repository": repo.name, "url": repo.display_url, "ref": repo.ref, "directory": repo.directory}


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor, scratch = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(scratch, 0o600)
        os.replace(scratch, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(scratch)
        raise
