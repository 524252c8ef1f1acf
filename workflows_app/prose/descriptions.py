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
