"""What the working directory looks like to git: branch and HEAD, read from .git directly (no
subprocess on the hot path). Used to record where work happened and to rank resume candidates."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TypedDict


class GitObservation(TypedDict):
    gitBranch: str  # "" when HEAD is detached
    gitHeadSha: str  # "" on a branch with no commit yet
    workspacePath: str  # the repository's root


# Observations are read on every advance; the files they come from change rarely. So each result is
# kept with the stat of the files it was read from (HEAD, the branch's ref file, packed-refs) and read
# again only when one of those changed: a checkout rewrites HEAD, a commit the ref file.
_cache: dict[Path, tuple[tuple[object, ...], GitObservation | None]] = {}


def git_observation(workspace: Path) -> GitObservation | None:
    """Where `workspace` is to git, when it is inside a git repository."""
    root, git_dir = _find_git_dir(workspace)
    if git_dir is None or root is None:
        return None
    cached = _cache.get(git_dir)
    if cached is not None and cached[0] == _stamp(git_dir, root, cached[1]):
        return GitObservation(**cached[1]) if cached[1] is not None else None
    seen = _read(git_dir, root)
    _cache[git_dir] = (_stamp(git_dir, root, seen), seen)
    return GitObservation(**seen) if seen is not None else None


def _stamp(git_dir: Path, root: Path, seen: GitObservation | None) -> tuple[object, ...]:
    """The stat of every file `seen` was read from, in the worktree's git dir and the common one."""
    places = [git_dir / "HEAD"]
    for base in dict.fromkeys((git_dir, _common_dir(git_dir))):
        if seen and seen["gitBranch"]:
            places.append(base / "refs" / "heads" / seen["gitBranch"])
        places.append(base / "packed-refs")
    return (str(root), *(_stat(place) for place in places))


def _stat(path: Path | None) -> tuple[int, int] | None:
    if path is None:
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_mtime_ns, found.st_size)


def _read(git_dir: Path, root: Path) -> GitObservation | None:
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    branch = ""
    sha = head
    if head.startswith("ref:"):
        ref = head[4:].strip()
        branch = ref.removeprefix("refs/heads/")
        sha = _resolve_ref(git_dir, ref)
    return {"gitBranch": branch, "gitHeadSha": sha, "workspacePath": str(root)}


def _find_git_dir(start: Path) -> tuple[Path | None, Path | None]:
    for directory in [start, *start.parents]:
        candidate = directory / ".git"
        if candidate.is_dir():
            return directory, candidate
        if candidate.is_file():  # a worktree or submodule: "gitdir: <path>"
            try:
                text = candidate.read_text(encoding="utf-8").strip()
            except OSError:
                return None, None
            if text.startswith("gitdir:"):
                target = Path(text[7:].strip())
                return directory, target if target.is_absolute() else (directory / target).resolve()
    return None, None


def _resolve_ref(git_dir: Path, ref: str) -> str:
    for base in (git_dir, _common_dir(git_dir)):
        try:
            return (base / ref).read_text(encoding="utf-8").strip()
        except OSError:
            pass
        try:
            for line in (base / "packed-refs").read_text(encoding="utf-8").splitlines():
                if line.endswith(" " + ref):
                    return line.split(" ", 1)[0]
        except OSError:
            pass
    return ""  # a branch with no commit yet


@functools.cache
def _common_dir(git_dir: Path) -> Path:
    try:
        return (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return git_dir
