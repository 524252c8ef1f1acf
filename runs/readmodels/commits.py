"""Where in git a run started and ended, and the change between the two commits.

The commits are recorded (run_started and run_completed carry HEAD; Run.start_commit and end_commit
keep them). The change is counted here, when a page asks, by `git diff --shortstat` in the session's
repository if it is on this machine: bounded as every git call of WorkRail is (workflows_app/repos/
git.py: a timeout, an address-space and file-size limit, no user or system configuration), with no
external diff or text conversion a repository's own configuration could name, and never from a door.
Two commits never change, so a count is kept (LRU) and git runs once per pair.

A repository that is gone, a commit that is not in it (rewritten history, another clone), or git missing:
the commits are still shown, and `change_note` says why no change is.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from runs.contract.dashboard import DiffSummary, RunCommits
from runs.models import Observation, Run, RunStatus
from workflows_app.repos.git import RepoFailure, RepoLimits, run_git

DIFF_TIMEOUT_S = 10
# git diff of two commits reads two trees and their blobs: a fraction of what a fetch may use.
DIFF_LIMITS = RepoLimits(git_memory_bytes=512 * 1024 * 1024, git_file_bytes=1024 * 1024)
MAX_OUTPUT_CHARS = 400  # --shortstat prints one line; anything longer is not what was asked for
_HEX = re.compile(r"[0-9a-f]{7,64}")
# git's own summary line: " 3 files changed, 10 insertions(+), 2 deletions(-)" (either count may be missing).
_COUNT = re.compile(r"(\d+) (file|insertion|deletion)")
NOT_HERE = "the repository is not on this machine"
NO_START = "the commit the run started on was not recorded"


def of_run(run: Run) -> RunCommits | None:
    """The run's commits and their change; None when no commit was ever seen for it (outside git, or
    a run recorded before commits were)."""
    ended = run.status == RunStatus.COMPLETE and bool(run.end_commit)
    end = run.end_commit if ended else _last_observed(run)
    if not run.start_commit and not end:
        return None
    repository = run.session.workspace_path
    change, note = _change(repository, run.start_commit, end)
    return RunCommits(
        repository=repository,
        start_commit=run.start_commit,
        end_commit=end,
        ended=ended,
        change=change,
        change_note=note,
    )


def _last_observed(run: Run) -> str:
    found = (
        Observation.objects.filter(run=run).exclude(git_head_sha="").order_by("-pk").values_list("git_head_sha").first()
    )
    return found[0] if found else ""


def _change(repository: str, start: str, end: str) -> tuple[DiffSummary | None, str]:
    if not start:
        return None, NO_START
    if not end:
        return None, "no later commit was seen"
    if not (_HEX.fullmatch(start) and _HEX.fullmatch(end)):
        return None, "a recorded commit is not a commit id"
    if not repository or not Path(repository).is_dir():
        return None, NOT_HERE
    return diff_summary(repository, start, end)


@lru_cache(maxsize=512)
def diff_summary(repository: str, start: str, end: str) -> tuple[DiffSummary | None, str]:
    """git's count of what changed from `start` to `end` in `repository`, or why there is none."""
    args = [
        "-C",
        repository,
        "-c",
        "core.fsmonitor=false",
        "diff",
        "--shortstat",
        "--no-ext-diff",
        "--no-textconv",
        "--no-renames",
        start,
        end,
        "--",
    ]
    try:
        done = run_git(args, timeout=DIFF_TIMEOUT_S, limits=DIFF_LIMITS, local=True)
    except RepoFailure:
        return None, "git could not compare the two commits here (git missing, too slow or too large)"
    if done.returncode != 0:
        return None, "a commit is not in the repository on this machine (another clone, or history rewritten)"
    line = done.stdout.strip()[:MAX_OUTPUT_CHARS]
    counts = {kind: int(number) for number, kind in _COUNT.findall(line)}
    return DiffSummary(
        files_changed=counts.get("file", 0),
        insertions=counts.get("insertion", 0),
        deletions=counts.get("deletion", 0),
    ), ""
