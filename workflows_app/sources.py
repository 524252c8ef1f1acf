"""Where workflow files come from, in precedence order, and how files are found in each; and the
project's binding overrides (`.workrail/bindings.json` in the project directory)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from workflows_app.diagnostics import Code, Diagnostic, pointer_of, warning

BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"
# A repository's tag file, inside its snapshot (workflows_app/repos/store.py writes it there).
REPO_TAG_FILE = ".workrail-spec/workflow-tags.json"

# Bounds on what is read from a source (docs/workflows.md, "Loading"): a workflow file (and the
# project's bindings file) is at most MAX_FILE_BYTES long and nested at most MAX_JSON_DEPTH deep.
MAX_FILE_BYTES = 1024 * 1024
MAX_JSON_DEPTH = 64
_READ_CHUNK = 64 * 1024


class NotARegularFile(Exception):
    """The path names a FIFO, a device, a socket or a directory (possibly through a symlink)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class FileTooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than {limit} bytes")
        self.limit = limit


class NestedTooDeep(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"nested deeper than {limit} levels")
        self.limit = limit


def _what(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_bounded(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at `path` (symlinks to regular files are followed), at most
    `limit` of them, without trusting `stat`'s size: a file that grows, or a special file that reads
    without end, is cut at `limit + 1` bytes and refused.

    Raises NotARegularFile (nothing is read from a FIFO, device, socket or directory; the open cannot
    block, even when the path is swapped for a FIFO between the checks), FileTooLarge and OSError.
    """
    if not stat.S_ISREG(mode := os.stat(path).st_mode):  # follows symlinks; never opens a device
        raise NotARegularFile(_what(mode))
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(mode := os.fstat(fd).st_mode):  # what was opened, not what was looked at
            raise NotARegularFile(_what(mode))
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, _READ_CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    finally:
        os.close(fd)
    if remaining <= 0:
        raise FileTooLarge(limit)
    return b"".join(chunks)


# Everything but brackets and quotes, deleted in one C-speed pass before counting; then a string is
# a quote to the next quote (or to the end of the text when it is not closed).
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_STRING = re.compile(rb'"[^"]*"?')


def check_json_depth(data: bytes, limit: int = MAX_JSON_DEPTH) -> None:
    """Raises NestedTooDeep when the JSON text `data` opens more than `limit` arrays or objects inside
    each other, before any parser recurses into it. Linear in the size of `data`, in a few C-speed
    passes (a 30 MB session bundle takes a fraction of a second): escaped backslashes, then escaped
    quotes, are removed first (left to right, as a parser pairs them), so every quote left opens or
    closes a string; then everything but brackets and quotes is deleted, strings are dropped, and the
    brackets left are counted. On malformed text the count is exact up to the first error, which is
    as far as a parser gets."""
    kept = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    depth = 0
    for byte in _STRING.sub(b"", kept):
        if byte in b"[{":
            depth += 1
            if depth > limit:
                raise NestedTooDeep(limit)
        else:
            depth -= 1


def load_json_bounded(path: Path) -> Any:
    """The JSON document in the file at `path`, within MAX_FILE_BYTES and MAX_JSON_DEPTH.

    Raises NotARegularFile, FileTooLarge, NestedTooDeep, OSError, UnicodeDecodeError and
    json.JSONDecodeError."""
    data = read_bounded(path)
    check_json_depth(data)
    return json.loads(data.decode("utf-8"))


class SourceKind(StrEnum):
    BUNDLED = "bundled"
    USER = "user"
    PROJECT = "project"
    EXTRA = "extra"
    GIT = "git"  # a repository of WORKRAIL_WORKFLOW_REPOS, at its pinned commit (workflows_app/repos)


# Namespace suggested when a legacy (dot-less) id from this source should be renamed.
SUGGESTED_NAMESPACE = {
    SourceKind.BUNDLED: "wr",
    SourceKind.USER: "user",
    SourceKind.PROJECT: "project",
    SourceKind.EXTRA: "team",
    SourceKind.GIT: "team",
}


@dataclass(frozen=True)
class RepoOrigin:
    """Where a git source's files come from: shown beside each of its workflows."""

    name: str
    url: str  # without credentials
    ref: str | None
    commit: str  # the pinned commit, 40 hex digits
    directory: str  # inside the repository; "" for its root


@dataclass(frozen=True)
class Source:
    kind: SourceKind
    root: Path
    precedence: int  # lower wins when two sources define the same id
    origin: RepoOrigin | None = None  # for a git source

    @property
    def tag_file(self) -> Path:
        """Where this source's tag file is (workflows_app/tags): beside its directory, as in WorkRail's
        repository (`X/workflows` -> `X/spec/workflow-tags.json`). A repository's copy, taken from the
        same commit, is written inside its snapshot under a hidden directory the file walk skips."""
        if self.origin is not None:
            return self.root / REPO_TAG_FILE
        return self.root.parent / "spec" / "workflow-tags.json"

    @property
    def allows_reserved_namespace(self) -> bool:
        """WorkRail's own library, added as a repository, keeps its `wr.` ids: a bundled workflow of the
        same id still wins (precedence), and the repository's copy is reported as a DUPLICATE_ID."""
        return self.kind in (SourceKind.BUNDLED, SourceKind.GIT)

    @property
    def requires_reserved_namespace(self) -> bool:
        return self.kind is SourceKind.BUNDLED

    def files(self) -> list[Path]:
        """JSON files under the root (or the root itself when it is a file), sorted by relative path.

        Hidden files and directories are skipped. Symbolic links to directories are not followed, so
        a link cycle cannot make the walk loop; links to files are listed. Every `*.json` name is
        listed whatever it is (a FIFO, a device, a directory, a dangling link): the loader reads only
        regular files and reports the others, so a `*.json` directory is reported, not walked.
        os.walk (iterative since Python 3.12, so a deep tree cannot overflow the stack) with plain
        strings, because this runs on every listing and pathlib's per-path overhead dominated it.
        Unreadable directories are skipped (os.walk's default).
        """
        root = str(self.root)
        if os.path.isfile(root):
            return [self.root]
        found: list[tuple[str, str]] = []
        for directory, subdirs, names in os.walk(root, followlinks=False):
            relative_dir = os.path.relpath(directory, root)
            json_dirs = [d for d in subdirs if d.endswith(".json") and not d.startswith(".")]
            subdirs[:] = [d for d in subdirs if not d.startswith(".") and not d.endswith(".json")]
            for name in [*names, *json_dirs]:
                if name.endswith(".json") and not name.startswith("."):
                    relative = name if relative_dir == "." else f"{relative_dir}/{name}"
                    found.append((relative.replace(os.sep, "/"), os.path.join(directory, name)))
        return [Path(full) for _relative, full in sorted(found)]


def configured_sources(
    *, workrail_home: Path, project_dir: Path, extra_paths: list[Path], bundled_dir: Path = BUNDLED_DIR
) -> list[Source]:
    sources = [
        Source(SourceKind.BUNDLED, bundled_dir, 0),
        Source(SourceKind.USER, workrail_home / "workflows", 1),
        Source(SourceKind.PROJECT, project_dir / ".workrail" / "workflows", 2),
    ]
    sources += [Source(SourceKind.EXTRA, path, 3 + index) for index, path in enumerate(extra_paths)]
    return sources


# --- Project bindings: .workrail/bindings.json -------------------------------------------------------

BINDINGS_FILE = "bindings.json"


def project_bindings_path(sources: list[Source]) -> Path | None:
    """`.workrail/bindings.json` of the project directory, known from the project source
    (`<project>/.workrail/workflows`); None when no source is a project's workflow directory."""
    for source in sources:
        root = source.root
        if source.kind is SourceKind.PROJECT and root.name == "workflows" and root.parent.name == ".workrail":
            return root.parent / BINDINGS_FILE
    return None


@dataclass(frozen=True)
class ProjectBindings:
    """A project's overrides of workflows' extension points, read as WorkRail reads them.

    The file is a JSON object. A key naming a workflow id holds that workflow's overrides
    (`{"wr.change_in_slices": {"design_review": "team.routine-design-review"}}`); when the file has no
    section for a workflow and every value in it is a string, the whole file is one set of
    overrides for every workflow (`{"design_review": "team.routine-design-review"}`). A value that is
    not a string is skipped. A missing file is the normal case: no overrides. A file that cannot be
    read, is not JSON or not an object is ignored with an INVALID_BINDINGS warning, as are the
    entries skipped."""

    path: Path | None = None
    content: dict[str, Any] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()

    def for_workflow(self, workflow_id: str) -> dict[str, str]:
        section = self.content.get(workflow_id)
        if section is not None:
            if not isinstance(section, dict):
                return {}
            return {slot: value for slot, value in section.items() if isinstance(value, str)}
        values = list(self.content.values())
        if values and all(isinstance(value, str) for value in values):
            return dict(self.content)
        return {}


def load_project_bindings(path: Path | None) -> ProjectBindings:
    if path is None:
        return ProjectBindings()
    fix = 'Make .workrail/bindings.json a JSON object: {"<workflowId>": {"<slotId>": "<routine or workflow id>"}}.'
    try:
        content = load_json_bounded(path)
    except FileNotFoundError:
        return ProjectBindings(path)
    except json.JSONDecodeError as exc:
        message = f"Invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}."
        return ProjectBindings(path, diagnostics=(_bindings_warning(path, message, fix),))
    except NotARegularFile as exc:
        message = f"It is {exc.what}, not a regular file; not read."
        return ProjectBindings(path, diagnostics=(_bindings_warning(path, message, fix),))
    except (OSError, UnicodeDecodeError, FileTooLarge, NestedTooDeep, RecursionError, ValueError) as exc:
        return ProjectBindings(path, diagnostics=(_bindings_warning(path, f"Cannot read it ({exc}).", fix),))
    if not isinstance(content, dict):
        return ProjectBindings(path, diagnostics=(_bindings_warning(path, "It is not a JSON object.", fix),))
    return ProjectBindings(path, content, tuple(_shape_problems(path, content)))


def _shape_problems(path: Path, content: dict[str, Any]) -> list[Diagnostic]:
    found = []
    flat = [key for key, value in content.items() if isinstance(value, str)]
    sections = [key for key, value in content.items() if isinstance(value, dict)]
    for key, value in content.items():
        if isinstance(value, dict):
            for slot, bound in value.items():
                if not isinstance(bound, str):
                    found.append(
                        _bindings_warning(
                            path,
                            f"The binding of slot '{slot}' for workflow '{key}' is not a string; skipped.",
                            "Bind the slot to a routine or workflow id (a string).",
                            pointer=pointer_of([key, slot]),
                        )
                    )
        elif not isinstance(value, str):
            found.append(
                _bindings_warning(
                    path,
                    f"'{key}' is neither a workflow's section (an object) nor a binding (a string); skipped.",
                    "Give a workflow id an object of slot bindings, or a slot id a routine or workflow id.",
                    pointer=pointer_of([key]),
                )
            )
    if flat and len(flat) != len(content):
        others = "per-workflow sections" if sections else "other values"
        found.append(
            _bindings_warning(
                path,
                f"Bindings for every workflow ({', '.join(flat)}) are ignored: they apply only when every "
                f"value of the file is a string, and this one also has {others}.",
                "Put those bindings into the section of each workflow that uses them.",
                pointer=pointer_of([flat[0]]),
            )
        )
    return found


def _bindings_warning(path: Path, message: str, fix: str, *, pointer: str = "") -> Diagnostic:
    return dataclasses.replace(
        warning(Code.INVALID_BINDINGS, f".workrail/bindings.json: {message}", fix, pointer=pointer), file=str(path)
    )
