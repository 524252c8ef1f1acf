"""Local git repositories of workflows for the tests: a bare repository in a temporary directory,
reached through a `file://` URL (never the network), and commits made through a work clone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


def git(*args: str, cwd: Path | None = None) -> str:
    env = {**os.environ, **_ENV, "HOME": str(cwd or Path.cwd())}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip()


class BareRepo:
    """A bare repository at `<root>/<name>.git` whose branch `main` the tests commit to."""

    def __init__(self, root: Path, name: str = "flows") -> None:
        self.path = root / f"{name}.git"
        self.work = root / f"{name}-work"
        git("init", "--quiet", "--bare", "--initial-branch=main", str(self.path))
        git("init", "--quiet", "--initial-branch=main", str(self.work))
        git("remote", "add", "origin", str(self.path), cwd=self.work)

    @property
    def url(self) -> str:
        return self.path.as_uri()

    def commit(
        self, files: dict[str, Any], message: str = "Change workflows", *, branch: str = "main", replace: bool = False
    ) -> str:
        """Writes `files` (path -> JSON document, raw text, or None to delete), commits and pushes them to
        `branch`; with `replace`, every other file is deleted first. Returns the new commit."""
        if replace:
            for child in self.work.iterdir():
                if child.name != ".git":
                    shutil.rmtree(child) if child.is_dir() else child.unlink()
        for relative, content in files.items():
            path = self.work / relative
            if content is None:
                path.unlink(missing_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2), encoding="utf-8")
        git("add", "--all", cwd=self.work)
        git("commit", "--quiet", "--allow-empty", "-m", message, cwd=self.work)
        git("push", "--quiet", "--force", "origin", f"HEAD:refs/heads/{branch}", cwd=self.work)
        return git("rev-parse", "HEAD", cwd=self.work)

    def tag(self, name: str) -> None:
        git("tag", name, cwd=self.work)
        git("push", "--quiet", "origin", f"refs/tags/{name}", cwd=self.work)

    def commit_raw(self, files: dict[str, bytes], message: str = "Raw tree", *, branch: str = "main") -> str:
        """Commits `files` (path -> bytes) as the whole tree of a new commit, straight into the bare
        repository (git fast-import, no work tree): names a file system refuses (a name longer than 255
        bytes, thousands of directories deep) are stored as git stores any. Returns the new commit."""
        stream = [f"commit refs/heads/{branch}\n".encode(), b"committer Test <test@example.invalid> 1700000000 +0000\n"]
        stream += [f"data {len(message.encode())}\n{message}\n".encode(), b"deleteall\n"]
        for path, content in files.items():
            stream += [b'M 100644 inline "' + _quoted(path) + b'"\n', f"data {len(content)}\n".encode(), content, b"\n"]
        env = {**os.environ, **_ENV}
        subprocess.run(
            ["git", "--git-dir", str(self.path), "fast-import", "--quiet", "--force"],
            input=b"".join(stream),
            env=env,
            capture_output=True,
            timeout=120,
            check=True,
        )
        return git("--git-dir", str(self.path), "rev-parse", f"refs/heads/{branch}")


def _quoted(path: str) -> bytes:
    """A path in fast-import's C-style quotes."""
    escaped = {ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n"}
    return path.translate(escaped).encode("utf-8")
