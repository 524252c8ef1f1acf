"""Who is acting: the owner a request runs for, and the door it came through, so that every event the
request records says who made it.

A door sets it once per request (`with acting_as(Actor(owner, door)):`) and everything below records
it without being told: the journal stamps each event with `current()`. It is a context variable, so a
thread started with the request's context (anyio's `to_thread.run_sync` copies it) sees the same actor,
and concurrent requests never see each other's.

The owner is the API token's owner for the HTTP transport and the HTTP API, the user name for the
dashboard, and empty for a local process (stdio, a management command): whoever runs the process on
this machine, as before owners existed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum


class Door(StrEnum):
    """How a request reached the store."""

    STDIO = "stdio"  # `manage.py mcp` over stdio: an agent on this machine
    HTTP = "http"  # `manage.py mcp --http`: an agent anywhere, with an API token
    API = "api"  # the HTTP API under /api/v1/
    DASHBOARD = "dashboard"  # a person in the dashboard
    COMMAND = "command"  # a management command (cleanup, import, rebuild)


OWNER_MAX_CHARS = 64
CLIENT_NAME_MAX_CHARS = 64


def client_name(declared: object) -> str:
    """An MCP client's declared name as recorded: the client chooses it, so it is only ever text (never
    markup: pages escape it), without control characters, and bounded."""
    if not isinstance(declared, str):
        return ""
    printable = "".join(c if c.isprintable() else " " for c in declared)
    return " ".join(printable.split())[:CLIENT_NAME_MAX_CHARS]


@dataclass(frozen=True, slots=True)
class Actor:
    owner: str  # "" for a local process: no token, no login
    door: Door | str  # a str for doors recorded by later versions (read back from the log as stored)
    # Whether this actor may use every session on the store, whoever owns it: a person of the dashboard (its
    # pages, or a staff login through the HTTP API), who sees and manages the whole store.
    sees_everything: bool = False
    # Where the request came from, as its transport saw it (a trusted proxy may vouch for another address):
    # what a recorded refusal names. Never stored in events.
    client: str = ""
    token: str = ""  # the name of the API token the request came with, if any (for the refusals' record)
    # The MCP client's own name, as it declared it when it connected (initialize's clientInfo.name, e.g.
    # "claude-code"): stamped on the events it makes (Event.client_name), so that the dashboard can say which
    # of a person's chats a message goes to (friction26b 6). Whatever the client said, cut to a printable
    # line (client_name above); "" for every other door.
    client_name: str = ""

    @property
    def remote(self) -> bool:
        """Whether the request came from another machine's point of view: over HTTP, this process's working
        directory is not the client's project, so nothing about it is recorded as the client's."""
        return self.door in (Door.HTTP, Door.API)


LOCAL = Actor(owner="", door="")  # nothing set: recorded as before owners existed

_current: ContextVar[Actor] = ContextVar("workrail_actor", default=LOCAL)


def current() -> Actor:
    return _current.get()


# What the current request asks for (a tool's name, a resource's URI, an API method and path), set by the
# door so that a refusal deep below (runs/store/ownership.py) can say it.
_asking: ContextVar[str] = ContextVar("workrail_asking", default="")


def asked() -> str:
    return _asking.get()


@contextmanager
def asking(what: str) -> Iterator[None]:
    token = _asking.set(what[:200])
    try:
        yield
    finally:
        _asking.reset(token)


@contextmanager
def acting_as(actor: Actor) -> Iterator[Actor]:
    token = _current.set(actor)
    try:
        yield actor
    finally:
        _current.reset(token)
