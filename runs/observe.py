"""What the working directory looks like to git: branch and HEAD, read from .git directly (no
subprocess on the hot path). Used to record where work happened and to rank resume candidates."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def git_observation(workspace: Path) -> dict[str, Any] | None:
    """{"gitBranch", "gitHeadSha", "workspacePath"} when `workspace` is inside a git repository."""
    root, git_dir = _find_git_dir(workspace)
    if git_dir is None or root is None:
        return None
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


def _common_dir(git_dir: Path) -> Path:
    try:
        return (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return git_dir
