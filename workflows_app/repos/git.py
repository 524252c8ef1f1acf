"""The git command line, run safely: no shell, a timeout on every call, no prompt ever (a missing
password fails at once instead of hanging a server), only the transports WorkRail accepts (never
`ext::`, which runs a command), and `--` before every URL so that none is read as an option.

A failure is a RepoFailure: a diagnostic code, what happened and what to do, in words a person can act on.
"""

from __future__ import annotations

import os
import re
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from workflows_app.diagnostics import Code

# Network calls (ls-remote, fetch) may be slow on a large repository or a slow link; local ones are quick.
NETWORK_TIMEOUT_S = 300
LOCAL_TIMEOUT_S = 60
ALLOWED_PROTOCOLS = "https:http:ssh:git:file"
PIN_REF = "refs/workrail/fetched"
_COMMIT = re.compile(r"[0-9a-f]{40}")
_SHORT_HEX = re.compile(r"[0-9a-f]{7,39}")


@dataclass(frozen=True)
class RepoFailure(Exception):
    code: Code
    message: str
    fix: str

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message} {self.fix}"


def git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GIT_TERMINAL_PROMPT="0",  # never ask for a username or password on a terminal
        GIT_ALLOW_PROTOCOL=ALLOWED_PROTOCOLS,
        LC_ALL="C",  # git's messages in English, as they are classified and shown
    )
    env.pop("GIT_ASKPASS", None)
    env.pop("SSH_ASKPASS", None)
    # ssh asks nothing either (a new host key, a passphrase) unless the user chose their own ssh command.
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"):
        env.pop(name, None)  # a hook's environment must not redirect these calls to another repository
    return env


def run_git(args: list[str], *, timeout: float, git_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`git [--git-dir DIR] ARGS`, its output as text; raises RepoFailure when git is missing or the call
    takes longer than `timeout`, never on a non-zero exit (the caller says what that means)."""
    command = ["git", *(["--git-dir", str(git_dir)] if git_dir is not None else []), *args]
    try:
        return subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            env=git_env(),
            check=False,
        )
    except FileNotFoundError:
        raise RepoFailure(
            Code.REPO_FETCH_FAILED,
            "The git command was not found, so no workflow repository can be fetched.",
            "Install git (Debian: apt-get install git) and make sure it is on PATH.",
        ) from None
    except subprocess.TimeoutExpired:
        raise RepoFailure(
            Code.REPO_FETCH_FAILED,
            f"git {args[0]} did not finish within {timeout:.0f} seconds.",
            "Check the network and that the URL answers (git ls-remote URL), then run sync_workflows again.",
        ) from None


def _last_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines or ["(git said nothing)"])[0]


def init_bare(git_dir: Path) -> None:
    if (git_dir / "HEAD").exists():
        return
    done = run_git(["init", "--quiet", "--bare", "--", str(git_dir)], timeout=LOCAL_TIMEOUT_S)
    if done.returncode != 0:
        raise RepoFailure(
            Code.REPO_FETCH_FAILED,
            f"Cannot create the local copy at {git_dir}: {_last_line(done.stderr)}",
            "Check that WORKRAIL_HOME is writable.",
        )


def fetch(git_dir: Path, url: str, shown_url: str, ref: str | None) -> str:
    """Fetches `ref` (None: the remote's HEAD) of `url` into `git_dir`; the commit it names, 40 hex digits.

    Raises RepoFailure: REPO_FETCH_FAILED when the URL cannot be read as a repository (unreachable, not
    a repository, refused credentials), REPO_REF_NOT_FOUND when it can but has no such ref."""
    wanted = ref or "HEAD"
    is_commit = bool(_COMMIT.fullmatch(wanted))
    if not is_commit:
        # ls-remote first: it tells a missing ref (exit 2) from a repository that cannot be read.
        listed = run_git(["ls-remote", "--exit-code", "--", url, wanted], timeout=NETWORK_TIMEOUT_S)
        if listed.returncode == 2:
            raise _ref_missing(shown_url, ref)
        if listed.returncode != 0:
            raise _unreachable(shown_url, listed.stderr)
    # A branch or tag lands in a ref of our own (not FETCH_HEAD, which two fetches would share); a commit
    # is fetched by name.
    refspec = wanted if is_commit else f"+{wanted}:{PIN_REF}"
    fetched = run_git(
        ["fetch", "--quiet", "--no-tags", "--depth=1", "--", url, refspec], timeout=NETWORK_TIMEOUT_S, git_dir=git_dir
    )
    if fetched.returncode != 0:
        if is_commit and run_git(["ls-remote", "--", url, "HEAD"], timeout=NETWORK_TIMEOUT_S).returncode == 0:
            raise _ref_missing(shown_url, ref)  # the repository answers; the commit is not in it
        raise _unreachable(shown_url, fetched.stderr)
    name = wanted if is_commit else PIN_REF
    resolved = run_git(
        ["rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"], timeout=LOCAL_TIMEOUT_S, git_dir=git_dir
    )
    commit = resolved.stdout.strip()
    if resolved.returncode != 0 or not _COMMIT.fullmatch(commit):
        raise RepoFailure(
            Code.REPO_REF_NOT_FOUND,
            f"'{wanted}' of {shown_url} does not name a commit (a tag of a tree or a blob?).",
            "Name a branch, a tag of a commit, or a commit.",
        )
    return commit


def _ref_missing(shown_url: str, ref: str | None) -> RepoFailure:
    if ref is None:
        return RepoFailure(
            Code.REPO_REF_NOT_FOUND,
            f"{shown_url} has no default branch (its HEAD names no commit).",
            "Name a branch in WORKRAIL_WORKFLOW_REPOS: URL#main, or URL#main:DIR.",
        )
    hint = (
        " An abbreviated commit cannot be fetched: write all 40 characters."
        if _SHORT_HEX.fullmatch(ref)
        else " Check the spelling (git ls-remote URL lists the branches and tags)."
    )
    return RepoFailure(
        Code.REPO_REF_NOT_FOUND,
        f"{shown_url} has no branch, tag or commit '{ref}'.",
        f"Fix the ref after '#' in WORKRAIL_WORKFLOW_REPOS.{hint}",
    )


def _unreachable(shown_url: str, stderr: str) -> RepoFailure:
    return RepoFailure(
        Code.REPO_FETCH_FAILED,
        f"Cannot fetch {shown_url}: {_last_line(stderr)}",
        "Check the URL (git ls-remote URL must list it), the network, and your access: git is never allowed "
        "to ask for a password here, so use a credential helper or an SSH key.",
    )


def has_commit(git_dir: Path, commit: str) -> bool:
    done = run_git(["cat-file", "-e", f"{commit}^{{commit}}"], timeout=LOCAL_TIMEOUT_S, git_dir=git_dir)
    return done.returncode == 0


def directory_exists(git_dir: Path, commit: str, directory: str) -> bool:
    if not directory:
        return True
    done = run_git(["cat-file", "-t", f"{commit}:{directory}"], timeout=LOCAL_TIMEOUT_S, git_dir=git_dir)
    return done.returncode == 0 and done.stdout.strip() == "tree"


def read_file_at(git_dir: Path, commit: str, path: str, limit: int) -> bytes | None:
    """The bytes of the regular file `path` at `commit`, or None when there is none (or it is larger than
    `limit`, or a link). `git cat-file` reads the object only; nothing is checked out."""
    listed = run_git(["ls-tree", "-l", commit, "--", path], timeout=LOCAL_TIMEOUT_S, git_dir=git_dir)
    fields = listed.stdout.split() if listed.returncode == 0 else []
    # "<mode> blob <object> <size>\t<path>": a regular file (100644 or 100755) within the limit only.
    if len(fields) < 4 or fields[0] not in ("100644", "100755") or fields[1] != "blob" or int(fields[3]) > limit:
        return None
    try:
        done = subprocess.run(
            ["git", "--git-dir", str(git_dir), "cat-file", "blob", fields[2]],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=LOCAL_TIMEOUT_S,
            env=git_env(),
            check=False,
        )
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def extract(git_dir: Path, commit: str, directory: str, destination: Path) -> None:
    """The files of `directory` at `commit` written under `destination` (which must not exist): regular
    files and directories only. A symbolic link is skipped, so a repository cannot make WorkRail read a
    file outside it; tarfile's `data` filter refuses absolute and escaping names besides."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    tree = f"{commit}:{directory}" if directory else commit
    with tempfile.TemporaryFile(dir=destination.parent) as archive:
        try:
            done = subprocess.run(
                ["git", "--git-dir", str(git_dir), "archive", "--format=tar", tree],
                stdin=subprocess.DEVNULL,
                stdout=archive,
                stderr=subprocess.PIPE,
                timeout=LOCAL_TIMEOUT_S,
                env=git_env(),
                check=False,
            )
        except (FileNotFoundError, subprocess.TimeoutExpired) as exc:
            raise RepoFailure(
                Code.REPO_FETCH_FAILED, f"Cannot write out commit {commit[:12]}: {exc}.", "Run sync_workflows again."
            ) from None
        if done.returncode != 0:
            raise RepoFailure(
                Code.REPO_FETCH_FAILED,
                f"Cannot write out commit {commit[:12]}: {_last_line(done.stderr.decode(errors='replace'))}",
                "Run sync_workflows again; if it persists, delete the repository's folder under "
                "$WORKRAIL_HOME/workflow-repos and sync again.",
            )
        archive.seek(0)
        with tarfile.open(fileobj=archive, mode="r:") as tar:
            tar.extractall(destination, filter=_regular_files_only)


def _regular_files_only(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
    if not (member.isreg() or member.isdir()):
        return None
    return tarfile.data_filter(member, path)
