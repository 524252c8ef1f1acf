"""What a branch produced, said in a few words for the line under a run's header: "verdict “Request changes”
· findings · coding hand-off · changed files". The sections that hold them follow the run's card, before its
graph and steps; each part of the line names one of them and the id of its heading to jump to. The findings
and the changed files are named, not counted: their folded sections say how many and of what kind
(fold_lines.py), once.

Also the people's words for the artifact kinds a step recorded ("Changed files" for
`mr_review.changed_files`): the kind itself is for developers and stays in the JSON shown under them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from runs.contract.dashboard import ArtifactTables
from runs.readmodels.artifact_fields import title_of

# The ids of the run page's section headings (dashboard/_run.html) each part of the line jumps to.
VERDICT_ANCHOR = "synthesis-verdict"
FINDINGS_ANCHOR = "findings-title"
FILES_ANCHOR = "files-title"
OTHERS_ANCHOR = "artifacts-title"
# A hand-off section's id is numbered in the order of `ArtifactTables.handoffs`: the first is "handoff-1".
FIRST_HANDOFF_ANCHOR = "handoff-1"


@dataclass(frozen=True)
class Produced:
    """One part of the line: its words and the id of the heading it jumps to."""

    words: str
    anchor: str


def of_tables(tables: ArtifactTables, verdict: str | None = None) -> list[Produced]:
    """The branch's verdict first (a completed branch's, runs/readmodels/outcomes.py), then the findings (what a
    reviewer acts on), the hand-off, the changed files and the rest."""
    parts: list[Produced] = []
    if verdict:
        parts.append(Produced(f"verdict “{verdict}”", VERDICT_ANCHOR))
    if tables.findings:
        parts.append(Produced("findings", FINDINGS_ANCHOR))
    handoffs = tables.handoffs
    if handoffs:
        title = _lower_first(handoffs[0].title)
        words = title if len(handoffs) == 1 else f"{len(handoffs)} {title}s"
        parts.append(Produced(words, FIRST_HANDOFF_ANCHOR))
    if tables.changed_files:
        parts.append(Produced("changed files", FILES_ANCHOR))
    others = tables.not_handoffs
    if others:
        words = _lower_first(others[0].title) if len(others) == 1 else _count(len(others), "other artifact")
        parts.append(Produced(words, OTHERS_ANCHOR))
    return parts


def kind_titles(artifacts: Iterable[Any]) -> list[str]:
    """The artifacts' kinds in words, in order, without repeats: ["Changed files", "Findings"]."""
    seen: list[str] = []
    for artifact in artifacts:
        kind = str(artifact.get("kind") or "") if isinstance(artifact, dict) else ""
        title = title_of(kind) if kind else "An artifact without a kind"
        if title not in seen:
            seen.append(title)
    return seen


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _lower_first(words: str) -> str:
    return words[:1].lower() + words[1:]
