"""HEURISTICS over what agents write in their own words: the one place the read models guess at the
meaning of an agent's prose.

An agent's notes and the free-text fields of its artifacts are prose no schema holds. Where WorkRail's
workflows ask for something in words only (the bundled merge-request review asks its findings step for
"a verdict: approve, approve with comments, or request changes", and agents write it as a "Verdict:"
line), a page still wants to show it. The guesses live here, labelled as guesses, so that everything
else in runs/readmodels reads structure (artifacts, contracts, the journal) and never text: a verdict
declared in an artifact (runs/readmodels/outcomes.py) always wins over one read here.

- `noted_verdict`: the last line of a path's notes (newest step first) that starts with "Verdict:" or
  "Recommendation:" (bold, italics or a heading around the label are fine; a dash between words works
  as the colon).
- `short_verdict`: a verdict cut to a few words, at the first sentence end or dash, at most VERDICT_CHARS.
- `statement`: a verdict's whole statement on one line, at most STATEMENT_CHARS characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

VERDICT_CHARS = 60
STATEMENT_CHARS = 160
# "Verdict:", "**Recommendation:**", "## Verdict: ...", "- verdict - approve" (a colon, or a dash between words).
_LABEL = re.compile(
    r"^[\s>#*_`-]*(?:verdict|recommendation)[*_`\s]*(?::|\s[\-\u2013\u2014]\s)[*_`\s]*(?P<text>.+)$", re.IGNORECASE
)
_CUT = re.compile(r"\s+[\u2014\u2013-]\s+|[.;:(]\s|[.;]$|\s\(")  # a dash (em, en, hyphen) between words ends it


@dataclass(frozen=True)
class NotedVerdict:
    words: str  # the verdict alone, short: "Request changes"
    title: str  # the title of the step whose notes say it ("" when unknown)
    said: str  # the whole statement: "Request changes: the permission check is bypassed"


def noted_verdict(notes: Iterable[tuple[str, str]]) -> NotedVerdict | None:
    """The verdict an agent wrote in its notes; `notes` are (step title, notes) in path order."""
    for title, text in reversed(list(notes)):
        for line in reversed(text.splitlines()):
            found = _LABEL.match(line.strip())
            if found:
                plain = found.group("text").replace("*", "").replace("`", "").replace("_", " ")
                words = short_verdict(plain)
                if words:
                    return NotedVerdict(words, title, statement(plain))
    return None


def statement(text: str) -> str:
    """A verdict's whole statement on one line, at most STATEMENT_CHARS characters."""
    text = " ".join(text.split()).rstrip(" .")
    text = text[:1].upper() + text[1:]
    return text if len(text) <= STATEMENT_CHARS else text[: STATEMENT_CHARS - 1].rsplit(" ", 1)[0] + "…"


def short_verdict(text: str) -> str:
    """A verdict in a few words: cut at its first sentence end or dash, at most VERDICT_CHARS characters."""
    text = " ".join(text.split())
    cut = _CUT.search(text)
    if cut and cut.start() > 0:
        text = text[: cut.start()]
    text = text.strip(" .,;:")
    if len(text) > VERDICT_CHARS:
        text = text[: VERDICT_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return text[:1].upper() + text[1:]
