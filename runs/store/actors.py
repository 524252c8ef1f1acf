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


@dataclass(frozen=True, slots=True)
class Actor:
    owner: str  # "" for a local process: no token, no login
    door: Door | str  # a str for doors recorded by later versions (read back from the log as stored)


LOCAL = Actor(owner="", door="")  # nothing set: recorded as before owners existed

_current: ContextVar[Actor] = ContextVar("workrail_actor", default=LOCAL)


def current() -> Actor:
    return _current.get()


@contextmanager
def acting_as(actor: Actor) -> Iterator[Actor]:
    token = _current.set(actor)
    try:
        yield actor
    finally:
        _current.reset(token)
