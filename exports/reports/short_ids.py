"""Ids as a report shows them: short in the text, in full in an appendix for developers.

Session and run ids (`ses_` or `run_` and 16 hex digits) are too long to read in a sentence. A report
writes each one shortened to its first 8 characters after the prefix (so `run_1a2b3c4d5e6f7a8b` reads
`run_1a2b3c4d`), the same length everywhere in the report; and lists every full id once, in an
appendix, for copying. Should two ids of one report share their first 8 characters, every id of the
report is written one character longer until none do, so a short id always names one thing.

Node ids (up to 19 digits) name nothing a person reads by: the text says a branch's number and a step's
place instead. They are in the appendix alone (`in_text=False`), for a developer to open a node with.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SHORT_CHARS = 8
PREFIXES = ("ses_", "run_")


def _split(full: str) -> tuple[str, str]:
    for prefix in PREFIXES:
        if full.startswith(prefix):
            return prefix, full[len(prefix) :]
    return "", full


def _cut(full: str, chars: int) -> str:
    prefix, rest = _split(full)
    return prefix + rest[:chars]


@dataclass(frozen=True)
class Named:
    full: str
    what: str  # what the id names, in words ("session", "run of Code review", "node: branch 2, step 3")
    in_text: bool = True  # written (shortened) in the report's text; else in the appendix alone


class ShortIds:
    """The ids of one report, added in the order they are first named (the appendix's order)."""

    def __init__(self) -> None:
        self._named: dict[str, Named] = {}
        self._chars: int | None = None

    def add(self, full: str | None, what: str, *, in_text: bool = True) -> None:
        if full and full not in self._named:
            self._named[full] = Named(full, what, in_text)
            self._chars = None

    def add_all(self, items: Iterable[tuple[str | None, str]]) -> None:
        for full, what in items:
            self.add(full, what)

    @property
    def chars(self) -> int:
        """The length every id of this report is cut to: 8, or more when two would read the same."""
        if self._chars is None:
            chars = SHORT_CHARS
            fulls = [named.full for named in self._named.values() if named.in_text]
            longest = max((len(_split(full)[1]) for full in fulls), default=SHORT_CHARS)
            while chars < longest and len({_cut(full, chars) for full in fulls}) < len(fulls):
                chars += 1
            self._chars = chars
        return self._chars

    def short(self, full: str | int | None) -> str:
        if full is None or full == "":
            return ""
        return _cut(str(full), self.chars)

    def appendix(self) -> list[tuple[str, str, str]]:
        """(short, full, what) for every id named, in the order they were added; short is "" for an id the
        text does not write."""
        return [
            (self.short(named.full) if named.in_text else "", named.full, named.what) for named in self._named.values()
        ]
