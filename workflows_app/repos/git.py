"""The git command line, run safely: no shell, a timeout on every call, no prompt ever (a missing
password fails at once instead of hanging a server), only the transports WorkRail accepts (never
`ext::`, which runs a command), and `--` before every URL so that none is read as an option.

Every call is bounded: a timeout, an address-space limit (a hostile remote streaming refs without end
makes git fail instead of filling the memory) and a limit on the size of any file git writes (a pack);
local calls read no user or system configuration. What a repository holds is bounded too (RepoLimits):
files are read as blobs (`git cat-file`, no filter or attribute of any configuration applied), only
regular workflow files up to a size cap are written out, within a file count and a total size, at a
limited depth and path length.

A failure is a RepoFailure: a diagnostic code, what happened and what to do, in words a person can act on;
whatever git said is passed through workrail_site.workflow_repos.hide_credentials first.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from workflows_app.diagnostics import Code
from workflows_app.sources import MAX_FILE_BYTES
from workrail_site.workflow_repos import hide_credentials

# Network calls (ls-remote, fetch) may be slow on a large repository or a slow link; local ones are quick.
NETWORK_TIMEOUT_S = 300
LOCAL_TIMEOUT_S = 60
ALLOWED_PROTOCOLS = "https:http:ssh:git:file"
PIN_REF = "refs/workrail/fetched"
_COMMIT = re.compile(r"[0-9a-f]{40}")
_SHORT_HEX = re.compile(r"[0-9a-f]{7,39}")

# git's own memory and disk, per call: its address space (GIT_BOUNDED_CONFIG keeps git's pack windows
# and caches well inside it) and the largest file it may write (a fetched pack: WorkRail's library is
# well under a megabyte at depth 1).
GIT_MEMORY_BYTES = 1024 * 1024 * 1024
GIT_FILE_BYTES = 512 * 1024 * 1024
GIT_BOUNDED_CONFIG = (
    "core.packedGitWindowSize=32m",
    "core.packedGitLimit=256m",
    "core.deltaBaseCacheLimit=32m",
    "core.bigFileThreshold=16m",  # a larger blob is streamed by index-pack, never held whole in memory
    "pack.threads=1",
    "fetch.unpackLimit=1",  # a fetched pack is kept as it came (bounded by the file limit), never exploded
    "protocol.version=2",  # ls-remote and fetch ask only for the refs they need
)


@dataclass(frozen=True)
class RepoLimits:
    """What one repository may write out under WORKRAIL_HOME, and git's limits while fetching it
    (docs/security.md, "Bounds on expanded workflows and on repositories"). WorkRail's own library has
    about sixty workflow files, none over 100 KiB, 1.2 MB in all, at most two directories deep: the
    defaults leave room for eight times as many files and thirteen times as many bytes."""

    max_file_bytes: int = MAX_FILE_BYTES  # a larger workflow file is not written out (the loader's own cap)
    max_files: int = 500  # workflow files in the repository's directory; more and the repository is refused
    max_total_bytes: int = 16 * 1024 * 1024  # of those files together; more and the repository is refused
    max_depth: int = 8  # directories from the repository's directory down to a workflow file
    max_path_bytes: int = 512  # a workflow file's path inside the repository's directory
    max_entries: int = 100_000  # entries of any kind git may list under the directory (git's own work)
    git_memory_bytes: int = GIT_MEMORY_BYTES
    git_file_bytes: int = GIT_FILE_BYTES


@dataclass(frozen=True)
class Skipped:
    """A file of the repository's directory that was not written out, and why (sync reports it)."""

    path: str
    message: str
    fix: str


def shortened(path: str) -> str:
    """A path as a report shows it: a very long one (thousands of directories) by its two ends."""
    return path if len(path) <= 300 else f"{path[:150]}...{path[-100:]}"


@dataclass
class Extracted:
    files: int = 0
    bytes: int = 0
    skipped: list[Skipped] = field(default_factory=list)


@dataclass(frozen=True)
class RepoFailure(Exception):
    code: Code
    message: str
    fix: str

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message} {self.fix}"


def git_env(*, local: bool = False) -> dict[str, str]:
    """The environment of every git call; `local` ones (reading the objects already fetched) read no
    user or system configuration, so no configured filter, hook or helper can take part."""
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
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_PARAMETERS"):
        env.pop(name, None)  # a hook's environment must not redirect these calls to another repository
    if local:
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_ATTR_NOSYSTEM="1")
    return env


def _bounded(memory: int, file_size: int) -> Callable[[], None]:
    """Run in the child before git starts: its address space and the largest file it may write are
    limited (a process past them fails with ENOMEM, or is stopped by SIGXFSZ)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))

    return limit


def _command(args: list[str], git_dir: Path | None) -> list[str]:
    config = [part for setting in GIT_BOUNDED_CONFIG for part in ("-c", setting)]
    return ["git", *config, *(["--git-dir", str(git_dir)] if git_dir is not None else []), *args]


def run_git(
    args: list[str],
    *,
    timeout: float,
    git_dir: Path | None = None,
    limits: RepoLimits | None = None,
    local: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`git [--git-dir DIR] ARGS`, its output as text, within `limits`' memory and file size; raises
    RepoFailure when git is missing, is stopped by a limit or takes longer than `timeout`, never on a
    non-zero exit (the caller says what that means)."""
    limits = limits or RepoLimits()
    try:
        done = subprocess.run(
            _command(args, git_dir),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            env=git_env(local=local),
            check=False,
            preexec_fn=_bounded(limits.git_memory_bytes, limits.git_file_bytes),
        )
    except FileNotFoundError:
        raise _git_missing() from None
    except subprocess.TimeoutExpired:
        raise RepoFailure(
            Code.REPO_FETCH_FAILED,
            f"git {args[0]} did not finish within {timeout:.0f} seconds.",
            "Check the network and that the URL answers (git ls-remote URL), then run sync_workflows again.",
        ) from None
    _raise_if_stopped_by_a_limit(args[0], done.returncode, done.stderr, limits)
    return done


def _git_missing() -> RepoFailure:
    return RepoFailure(
        Code.REPO_FETCH_FAILED,
        "The git command was not found, so no workflow repository can be fetched.",
        "Install git (Debian: apt-get install git) and make sure it is on PATH.",
    )


_OUT_OF_MEMORY = ("out of memory", "cannot allocate memory", "mmap failed")


def _raise_if_stopped_by_a_limit(what: str, returncode: int, stderr: str, limits: RepoLimits) -> None:
    if returncode == -25 or returncode == 128 + 25:  # SIGXFSZ: a file past git_file_bytes
        raise RepoFailure(
            Code.REPO_TOO_LARGE,
            f"git {what} stopped: it had to write a file larger than {_size(limits.git_file_bytes)} "
            "(the largest WorkRail lets git write for one repository).",
            "Point WORKRAIL_WORKFLOW_REPOS at a repository that holds workflows, not large files.",
        )
    if returncode != 0 and any(sign in stderr.lower() for sign in _OUT_OF_MEMORY):
        raise RepoFailure(
            Code.REPO_TOO_LARGE,
            f"git {what} stopped: it needed more than {_size(limits.git_memory_bytes)} of memory, the most "
            "WorkRail lets git use for one repository (a remote that sends refs or objects without end does this).",
            "Check that the URL is the repository you meant and that it answers as a git server "
            "(git ls-remote URL); a repository of workflows needs far less.",
        )


def _size(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count // size} {unit}" if count % size == 0 else f"{count / size:.1f} {unit}"
    return f"{count:,} bytes"


def _last_line(stderr: str, url: str | None = None) -> str:
    """What git said that matters (its first fatal or error line), credentials hidden."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return hide_credentials((fatal or lines or ["(git said nothing)"])[0], url)


def init_bare(git_dir: Path) -> None:
    if (git_dir / "HEAD").exists():
        return
    done = run_git(["init", "--quiet", "--bare", "--", str(git_dir)], timeout=LOCAL_TIMEOUT_S, local=True)
    if done.returncode != 0:
        raise RepoFailure(
            Code.REPO_FETCH_FAILED,
            f"Cannot create the local copy at {git_dir}: {_last_line(done.stderr)}",
            "Check that WORKRAIL_HOME is writable.",
        )


def fetch(git_dir: Path, url: str, shown_url: str, ref: str | None, limits: RepoLimits | None = None) -> str:
    """Fetches `ref` (None: the remote's HEAD) of `url` into `git_dir`; the commit it names, 40 hex digits.

    Raises RepoFailure: REPO_FETCH_FAILED when the URL cannot be read as a repository (unreachable, not
    a repository, refused credentials), REPO_REF_NOT_FOUND when it can but has no such ref."""
    wanted = ref or "HEAD"
    is_commit = bool(_COMMIT.fullmatch(wanted))
    if not is_commit:
        # ls-remote first: it tells a missing ref (exit 2) from a repository that cannot be read.
        listed = run_git(["ls-remote", "--exit-code", "--", url, wanted], timeout=NETWORK_TIMEOUT_S, limits=limits)
        if listed.returncode == 2:
            raise _ref_missing(shown_url, ref)
        if listed.returncode != 0:
            raise _unreachable(url, shown_url, listed.stderr)
    # A branch or tag lands in a ref of our own (not FETCH_HEAD, which two fetches would share); a commit
    # is fetched by name.
    refspec = wanted if is_commit else f"+{wanted}:{PIN_REF}"
    fetched = run_git(
        ["fetch", "--quiet", "--no-tags", "--depth=1", "--", url, refspec],
        timeout=NETWORK_TIMEOUT_S,
        git_dir=git_dir,
        limits=limits,
    )
    if fetched.returncode != 0:
        answers = run_git(["ls-remote", "--", url, "HEAD"], timeout=NETWORK_TIMEOUT_S, limits=limits)
        if is_commit and answers.returncode == 0:
            raise _ref_missing(shown_url, ref)  # the repository answers; the commit is not in it
        raise _unreachable(url, shown_url, fetched.stderr)
    name = wanted if is_commit else PIN_REF
    resolved = run_git(
        ["rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"], timeout=LOCAL_TIMEOUT_S, git_dir=git_dir, local=True
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


def _unreachable(url: str, shown_url: str, stderr: str) -> RepoFailure:
    return RepoFailure(
        Code.REPO_FETCH_FAILED,
        f"Cannot fetch {shown_url}: {_last_line(stderr, url)}",
        "Check the URL (git ls-remote URL must list it), the network, and your access: git is never allowed "
        "to ask for a password here, so use a credential helper or an SSH key.",
    )


def has_commit(git_dir: Path, commit: str) -> bool:
    done = run_git(["cat-file", "-e", f"{commit}^{{commit}}"], timeout=LOCAL_TIMEOUT_S, git_dir=git_dir, local=True)
    return done.returncode == 0


def directory_exists(git_dir: Path, commit: str, directory: str) -> bool:
    if not directory:
        return True
    done = run_git(["cat-file", "-t", f"{commit}:{directory}"], timeout=LOCAL_TIMEOUT_S, git_dir=git_dir, local=True)
    return done.returncode == 0 and done.stdout.strip() == "tree"


def read_file_at(git_dir: Path, commit: str, path: str, limit: int) -> bytes | None:
    """The bytes of the regular file `path` at `commit`, or None when there is none (or it is larger than
    `limit`, or a link). `git cat-file` reads the object only (no filter, attribute or
    configuration applies); nothing is checked out."""
    listed = run_git(["ls-tree", "-l", commit, "--", path], timeout=LOCAL_TIMEOUT_S, git_dir=git_dir, local=True)
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
            env=git_env(local=True),
            check=False,
        )
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def extract(
    git_dir: Path, commit: str, directory: str, destination: Path, limits: RepoLimits | None = None
) -> Extracted:
    """The workflow files of `directory` at `commit` written under `destination` (which must not exist),
    read as blobs: no filter, attribute or configuration of anyone applies. Only regular `*.json` files
    outside hidden directories are written (what a source reads; a symbolic link is never followed),
    each within `limits`; a file past one (size, depth, path length) is skipped and listed. A directory
    past the file count or the total size is refused whole (RepoFailure REPO_TOO_LARGE)."""
    limits = limits or RepoLimits()
    tree = f"{commit}:{directory}" if directory else commit
    wanted, result = _workflow_blobs(git_dir, tree, commit, limits)
    destination.mkdir(parents=True, mode=0o700)
    _write_blobs(git_dir, wanted, destination, limits, result)
    return result


def _workflow_blobs(
    git_dir: Path, tree: str, commit: str, limits: RepoLimits
) -> tuple[list[tuple[str, str, int]], Extracted]:
    """(path, blob, size) of each workflow file to write out, listed by `git ls-tree`, and what was skipped."""
    wanted: list[tuple[str, str, int]] = []
    result = Extracted()
    for mode, kind, blob, size, path in _listing(git_dir, tree, commit, limits):
        parts = path.split("/")
        if kind != "blob" or not mode.startswith("100") or not path.endswith(".json"):
            continue  # a directory, a symbolic link (120000), a submodule, a file that is not a workflow
        if any(part.startswith(".") or part == "" for part in parts):
            continue  # hidden, as every source skips it (and never '.' or '..')
        if len(parts) - 1 > limits.max_depth:
            result.skipped.append(
                Skipped(
                    shortened(path),
                    f"It is {len(parts) - 1} directories deep; workflow files deeper than {limits.max_depth} are not "
                    "written out.",
                    "Move it closer to the repository's workflow directory.",
                )
            )
            continue
        if len(path.encode("utf-8", "surrogateescape")) > limits.max_path_bytes or any(
            len(part.encode("utf-8", "surrogateescape")) > 255 for part in parts
        ):
            result.skipped.append(
                Skipped(
                    shortened(path),
                    f"Its path is longer than {limits.max_path_bytes} bytes (or a name in it than 255): "
                    "not written out.",
                    "Give it a shorter path.",
                )
            )
            continue
        if size > limits.max_file_bytes:
            result.skipped.append(
                Skipped(
                    path,
                    f"It is {_size(size)} long; workflow files larger than {_size(limits.max_file_bytes)} are not "
                    "written out.",
                    "Make it smaller: split it into workflows, or move long text into routines.",
                )
            )
            continue
        wanted.append((path, blob, size))
        result.bytes += size
        if len(wanted) > limits.max_files or result.bytes > limits.max_total_bytes:
            raise RepoFailure(
                Code.REPO_TOO_LARGE,
                f"At {commit[:7]}, the repository's directory holds more than {limits.max_files:,} workflow files "
                f"or {_size(limits.max_total_bytes)} of them, the most WorkRail writes out for one repository; "
                "none of it is loaded.",
                "Point WORKRAIL_WORKFLOW_REPOS at the directory of the workflows (URL#REF:DIR), or split the "
                "library into repositories.",
            )
    return wanted, result


def _listing(git_dir: Path, tree: str, commit: str, limits: RepoLimits) -> Iterator[tuple[str, str, str, int, str]]:
    """(mode, type, object, size, path) of every entry under `tree`, read as git prints them (NUL-ended, so
    any name is read as it is); git is stopped past `limits.max_entries` entries or LOCAL_TIMEOUT_S."""
    args = ["ls-tree", "-r", "-l", "-z", tree]
    with _popen(args, git_dir, limits) as process:
        assert process.stdout is not None
        for count, record in enumerate(_records(process.stdout), start=1):
            if count > limits.max_entries:
                raise RepoFailure(
                    Code.REPO_TOO_LARGE,
                    f"At {commit[:7]}, the repository's directory has more than {limits.max_entries:,} entries, "
                    "the most WorkRail lists for one repository.",
                    "Point WORKRAIL_WORKFLOW_REPOS at the directory of the workflows (URL#REF:DIR).",
                )
            meta, _tab, path = record.partition(b"\t")
            mode, kind, blob, size = meta.decode("ascii", "replace").split()
            yield mode, kind, blob, int(size) if size.isdigit() else 0, path.decode("utf-8", "surrogateescape")


def _records(stream: IO[bytes]) -> Iterator[bytes]:
    pending = b""
    while chunk := stream.read(64 * 1024):
        pending += chunk
        *records, pending = pending.split(b"\0")
        yield from records
        if len(pending) > 64 * 1024:  # no entry of git's is that long: not ls-tree's output
            raise RepoFailure(Code.REPO_FETCH_FAILED, "git ls-tree printed an entry too long to read.", RETRY)


RETRY = (
    "Run sync_workflows again; if it persists, delete the repository's folder under $WORKRAIL_HOME/workflow-repos "
    "and sync again."
)


def _write_blobs(
    git_dir: Path, wanted: list[tuple[str, str, int]], destination: Path, limits: RepoLimits, result: Extracted
) -> None:
    """Each blob's bytes from one `git cat-file --batch`, written to a file of its own (never over another)."""
    if not wanted:
        return
    with _popen(["cat-file", "--batch"], git_dir, limits, stdin=True) as process:
        assert process.stdin is not None and process.stdout is not None
        for path, blob, size in wanted:
            process.stdin.write(blob.encode("ascii") + b"\n")
            process.stdin.flush()
            header = process.stdout.readline(200).split()
            if len(header) != 3 or header[1] != b"blob" or int(header[2]) != size:
                raise RepoFailure(Code.REPO_FETCH_FAILED, f"git cat-file could not read '{path}'.", RETRY)
            data = process.stdout.read(size + 1)[:size]  # the blob, then a newline
            target = destination.joinpath(*path.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            try:
                descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            except FileExistsError:
                result.skipped.append(Skipped(path, "The tree names this file twice; the first is written.", ""))
                continue
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
            result.files += 1


class _popen:
    """A bounded `git` process reading the fetched objects (local: no configuration), killed on leaving
    early; a non-zero exit or a timeout is a RepoFailure."""

    def __init__(self, args: list[str], git_dir: Path, limits: RepoLimits, *, stdin: bool = False) -> None:
        self.args, self.git_dir, self.limits, self.stdin = args, git_dir, limits, stdin

    def __enter__(self) -> subprocess.Popen[bytes]:
        try:
            self.process = subprocess.Popen(
                _command(self.args, self.git_dir),
                stdin=subprocess.PIPE if self.stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=git_env(local=True),
                preexec_fn=_bounded(self.limits.git_memory_bytes, self.limits.git_file_bytes),
            )
        except FileNotFoundError:
            raise _git_missing() from None
        self.timer = threading.Timer(LOCAL_TIMEOUT_S, self.process.kill)
        self.timer.start()
        return self.process

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        process = self.process
        if process.stdin is not None:
            process.stdin.close()
        if kind is not None:
            process.kill()
        stderr = process.stderr.read().decode(errors="replace") if process.stderr is not None else ""
        returncode = process.wait()
        timed_out = not self.timer.is_alive() and returncode < 0
        self.timer.cancel()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        if kind is not None:
            return
        if timed_out:
            raise RepoFailure(
                Code.REPO_FETCH_FAILED, f"git {self.args[0]} did not finish within {LOCAL_TIMEOUT_S} seconds.", RETRY
            )
        _raise_if_stopped_by_a_limit(self.args[0], returncode, stderr, self.limits)
        if returncode != 0:
            raise RepoFailure(Code.REPO_FETCH_FAILED, f"git {self.args[0]} failed: {_last_line(stderr)}", RETRY)
