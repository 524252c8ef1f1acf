"""WorkRail's workflow library as a user adds it: a git repository laid out as WorkRail's own
(`workflows/` and, beside it, `spec/workflow-tags.json`), reached through a `file://` URL and named in
WORKRAIL_WORKFLOW_REPOS. The tests build it from the corpus, the benchmarks from any snapshot.

The corpus renamed WorkRail's top-level `wr.` ids to `workrail.` (its SOURCE.md says why); in a
repository they are WorkRail's again, so they are turned back into `wr.` here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

CORPUS_PREFIX = "workrail."

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Library",
    "GIT_AUTHOR_EMAIL": "library@example.invalid",
    "GIT_COMMITTER_NAME": "Library",
    "GIT_COMMITTER_EMAIL": "library@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


def library_repo(workflows: Path, root: Path, tag_file: Path | None = None) -> str:
    """A bare repository under `root` holding `workflows` as `workflows/` and `tag_file` (default: the
    `spec/workflow-tags.json` beside `workflows`, when there is one) as `spec/workflow-tags.json`, with
    `workrail.` ids turned back into `wr.`. Returns WORKRAIL_WORKFLOW_REPOS's entry for it."""
    work, bare = root / "library-work", root / "workrail.git"
    shutil.copytree(workflows, work / "workflows")
    for path in (work / "workflows").rglob("*.json"):
        _restore_id(path)
    tag_file = tag_file or workflows.parent / "spec" / "workflow-tags.json"
    if tag_file.is_file():
        (work / "spec").mkdir()
        shutil.copy(tag_file, work / "spec" / "workflow-tags.json")
    _git("init", "--quiet", "--initial-branch=main", str(work), cwd=root)
    _git("add", "--all", cwd=work)
    _git("commit", "--quiet", "-m", "WorkRail's library", cwd=work)
    _git("clone", "--quiet", "--bare", str(work), str(bare), cwd=root)
    return f"{bare.as_uri()}#main:workflows"


def _restore_id(path: Path) -> None:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # not ours to fix: the catalog reports it
    workflow_id = document.get("id") if isinstance(document, dict) else None
    if isinstance(workflow_id, str) and workflow_id.startswith(CORPUS_PREFIX):
        document["id"] = "wr." + workflow_id.removeprefix(CORPUS_PREFIX)
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")


def _git(*args: str, cwd: Path) -> None:
    env = {**os.environ, **_GIT_ENV, "HOME": str(cwd)}
    subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=True)
