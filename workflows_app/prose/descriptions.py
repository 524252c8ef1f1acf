"""HEURISTICS (part of workflows_app/prose): what a list line shows of a workflow's description, written by
its author. WorkRail's descriptions open with what the workflow is for, so the first sentence is that."""

from __future__ import annotations

import re

WHEN_TO_USE_CHARS = 120
# A sentence ends at a period followed by a capital, unless the period closes "e.g", "i.e" or "etc".
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)\.\s+(?=[A-Z])")


def when_to_use(description: str) -> str:
    """The description's first sentence, cut at WHEN_TO_USE_CHARS; the whole description is in the
    structured answer and in inspect_workflow."""
    first = _SENTENCE_END.split(description.strip(), maxsplit=1)[0].rstrip(".")
    if len(first) > WHEN_TO_USE_CHARS:
        first = first[: WHEN_TO_USE_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return first + ("." if not first.endswith("…") else "")


# A markdown heading line ("## Title", "### Title ###") and its text.
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<text>.*?)[\s#]*$")
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def about_below_the_name(about: str, name: str, description: str) -> str:
    """A workflow's `about` text as a page shows it below the workflow's name and description: without an
    opening heading that is the name again (WorkRail's open with "## <name>" or "## <name> Workflow") and
    without an opening paragraph that is the description again. Anything else is kept as written."""
    lines = about.strip().splitlines()
    heading = _HEADING.match(lines[0]) if lines else None
    if heading and _words(heading["text"]) in (_words(name), [*_words(name), "workflow"]):
        lines = lines[1:]
    blocks = re.split(r"\n\s*\n", "\n".join(lines).strip())
    if blocks and _words(blocks[0]) == _words(description) and _words(description):
        blocks = blocks[1:]
    return "\n\n".join(blocks).strip()
