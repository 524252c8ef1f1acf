"""How pages, messages and file names name a session: by the key people grouped the work under (MR-42,
the ticket REL-7), else by its title, else by its id."""

from __future__ import annotations

import re

NAME_CHARS = 60
TICKET_PREFIX = "ticket:"  # runs/execution/recording.py's key for a ticketId


def session_name(key: str | None, title: str, public_id: str) -> str:
    if key:
        return _shortened(key.removeprefix(TICKET_PREFIX))
    if title.strip():
        return _shortened(title)
    return public_id


def file_stem(key: str | None, title: str, public_id: str) -> str:
    """The session's name as safe characters for a file name: letters, digits, '.', '-', '_' (others become
    '-'); its id when nothing of the name is left."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", session_name(key, title, public_id)).strip(".-_")
    return stem[:NAME_CHARS] or public_id


def _shortened(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= NAME_CHARS else text[: NAME_CHARS - 1].rstrip() + "…"
