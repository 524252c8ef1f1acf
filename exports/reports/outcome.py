"""What a branch came to, in the words a tech lead looks for first: its verdict, if it gave one.

Workflows state a verdict in one of two ways:

- an artifact: `wr.review_verdict` (clean, minor or blocking, with a summary) and `wr.gate_verdict`
  (with a rationale), WorkRail's own contracts; the one that stands on the branch counts;
- the notes: the bundled merge-request review asks for "a verdict: approve, approve with comments, or
  request changes" in the notes of its findings step, so agents write a line such as
  `**Verdict:** Request changes`. The last such line on the branch counts.

An artifact wins over a line of notes. Pure: it reads a branch's standing artifacts and its notes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from workflows_app.engine.jsontypes import JsonObject

VERDICT_KINDS = {"wr.review_verdict": "summary", "wr.gate_verdict": "rationale"}
MAX_CHARS = 160
# A line that starts (after list markers, quote marks and emphasis) with "Verdict" and a colon or dash.
_VERDICT_LINE = re.compile(
    r"^[\s>*_#\-+]*verdict[\s*_]*[:\-\u2013\u2014][\s*_]*(?P<text>\S.*)$", re.IGNORECASE | re.MULTILINE
)


@dataclass(frozen=True)
class Verdict:
    text: str  # "Request changes", "blocking: One SQL injection."
    source: str  # where it was read: "the wr.review_verdict artifact of step record-findings", "the notes of step ..."


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_CHARS else flat[: MAX_CHARS - 1] + "…"


def from_artifacts(standing: Iterable[tuple[str, JsonObject]]) -> Verdict | None:
    found = None
    for step_id, artifact in standing:
        key = VERDICT_KINDS.get(str(artifact.get("kind")))
        verdict = artifact.get("verdict")
        if key is None or not isinstance(verdict, str) or not verdict.strip():
            continue
        said = artifact.get(key)
        text = verdict.strip() + (f": {said.strip()}" if isinstance(said, str) and said.strip() else "")
        found = Verdict(_short(text), f"the {artifact['kind']} artifact of step {step_id}")
    return found


def from_notes(notes: Iterable[tuple[str, str]]) -> Verdict | None:
    """`notes` are (step title, notes) in path order."""
    found = None
    for title, text in notes:
        for match in _VERDICT_LINE.finditer(text or ""):
            said = match.group("text").strip().strip("*_ ").rstrip(".").strip()
            if said:
                found = Verdict(_short(said[:1].upper() + said[1:]), f"the notes of step “{title}”")
    return found


def verdict(standing: Iterable[tuple[str, JsonObject]], notes: Iterable[tuple[str, str]]) -> Verdict | None:
    return from_artifacts(standing) or from_notes(notes)
