"""Which directory a tool call works in: the project whose git branch is recorded and whose
`.workrail/workflows` the catalog reads.

A desktop client often starts the server in `/` or the home directory, so the server's own working
directory says little about where the agent works. The call's workspace is, first to last:
1. the tool's `workspacePath` argument (an absolute path to a directory that exists);
2. the client's MCP roots (runs/mcp/roots.py asks for them): the first that is inside a git
   repository, else the first that is a directory here;
3. WORKRAIL_PROJECT_DIR, which defaults to the server's working directory.

The MCP door chooses it once per call (`working_in`, in runs/mcp/tools.py); the use cases below read
it with `current()`, so a call's catalog, references and git observation all agree on one directory.
Outside a tool call (the dashboard, the HTTP API, commands), and for a call over HTTP (whose paths
are the client's, not this machine's), it is WORKRAIL_PROJECT_DIR.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from django.conf import settings

from runs.contract.errors import ErrorCode, WorkRailError
from runs.execution.observe import git_observation
from runs.store import actors


class WorkspaceSource(StrEnum):
    ARGUMENT = "workspacePath"
    CLIENT_ROOT = "client root"
    SETTING = "WORKRAIL_PROJECT_DIR"
    SERVER_DIRECTORY = "server's working directory"


@dataclass(frozen=True)
class Workspace:
    path: Path
    source: WorkspaceSource


_current: ContextVar[Workspace | None] = ContextVar("workrail_workspace", default=None)


def current() -> Workspace:
    """The workspace of the tool call being run, or the configured one outside a call."""
    chosen = _current.get()
    return chosen if chosen is not None else configured()


def of_session(recorded: str) -> Path:
    """Where to observe git for a session whose repository was recorded as `recorded`: the call's
    workspace when the agent or its client named one; else that repository, if it is still here, so
    that a call without either never moves the session to the server's own directory."""
    chosen = current()
    if chosen.source in (WorkspaceSource.ARGUMENT, WorkspaceSource.CLIENT_ROOT) or not recorded:
        return chosen.path
    return Path(recorded) if Path(recorded).is_dir() else chosen.path


def configured() -> Workspace:
    """WORKRAIL_PROJECT_DIR; named as the server's own directory when that is what it is (its default)."""
    path = Path(settings.WORKRAIL_PROJECT_DIR)
    same_as_cwd = os.path.normpath(path) == os.path.normpath(Path.cwd())
    return Workspace(path, WorkspaceSource.SERVER_DIRECTORY if same_as_cwd else WorkspaceSource.SETTING)


def choose(argument: str | None, client_roots: Sequence[str] = ()) -> Workspace:
    """The workspace for a call whose `workspacePath` is `argument` from a client with `client_roots`
    (local paths). A bad argument is the caller's mistake: INVALID_INPUT, never a silent fallback.
    Over HTTP both name directories on the client's machine, not this one: reading them here would
    let a token holder point the server at any directory it can read, so the configured one is used."""
    if actors.current().remote:
        return configured()
    if argument is not None:
        return Workspace(_checked_argument(argument), WorkspaceSource.ARGUMENT)
    directories = [Path(root) for root in client_roots if Path(root).is_absolute() and Path(root).is_dir()]
    for directory in directories:
        if git_observation(directory) is not None:
            return Workspace(directory, WorkspaceSource.CLIENT_ROOT)
    if directories:
        return Workspace(directories[0], WorkspaceSource.CLIENT_ROOT)
    return configured()


@contextmanager
def working_in(argument: str | None, client_roots: Sequence[str] = ()) -> Iterator[Workspace]:
    """Runs the enclosed tool call in the workspace `choose` picks."""
    token = _current.set(choose(argument, client_roots))
    try:
        yield _current.get() or configured()
    finally:
        _current.reset(token)


def _checked_argument(argument: str) -> Path:
    path = Path(argument)
    if not path.is_absolute():
        problem = "is not an absolute path"
    elif not path.is_dir():
        problem = "is not a directory on the machine the WorkRail server runs on"
    else:
        return path
    raise WorkRailError(
        ErrorCode.INVALID_INPUT,
        f"workspacePath {argument[:200]!r} {problem}.",
        "Send the absolute path of the directory the agent works in (the project's root), or leave "
        "workspacePath out: the server then uses the client's root, else WORKRAIL_PROJECT_DIR.",
        details={"pointer": "/workspacePath"},
    )
