"""What one MCP tool call was about and how it failed, noted for its row on the timings page.

The tool door opens a note around each call (`noting`); below it, the store notes the run a token named
(runs/execution/loading.py) or the session a journal writes to (journal.py), and the boundary notes the
kind of an unexpected exception (runs/mcp/boundary.py), whose message stays in the server log. None of
it changes the call's answer: the note goes only to the call's timing row (runs/mcp/timings.py), so the
dashboard can say what failed and link to the session or run. Outside a call (a command, a dashboard
page) nothing is noted.

A context variable holding a mutable note: the call runs in one thread from start to end, and whatever
sets the note below sees the same object.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

EXCEPTION_CHARS = 64  # ToolCall.exception's length


@dataclass
class CallNote:
    run_id: str = ""  # the public id of the run a token named ("" when none did)
    session_id: str = ""  # the public id of its session, or of the session a journal wrote to
    exception: str = ""  # the class name of an unexpected exception ("KeyError"), never its message


_note: ContextVar[CallNote | None] = ContextVar("workrail_call_note", default=None)


@contextmanager
def noting() -> Iterator[CallNote]:
    """A fresh note for the call run inside the block."""
    note = CallNote()
    token = _note.set(note)
    try:
        yield note
    finally:
        _note.reset(token)


def saw_run(run_id: str, session_id: str) -> None:
    """The call is about this run (the first one named wins: an ack names its node's run first)."""
    note = _note.get()
    if note is not None and not note.run_id:
        note.run_id, note.session_id = run_id, session_id


def saw_session(session_id: str) -> None:
    """The call writes to this session (kept only when no run was named)."""
    note = _note.get()
    if note is not None and not note.session_id:
        note.session_id = session_id


def failed_with(exception: BaseException) -> None:
    """The call failed on an unexpected exception: its kind is noted, its message is not (it may hold data)."""
    note = _note.get()
    if note is not None:
        note.exception = type(exception).__name__[:EXCEPTION_CHARS]
