"""The JSON the read models build and pass on as it is: recaps and syntheses.

A recap is measured in bytes of its JSON and a synthesis is recorded as JSON (the RunFinalized event)
and read back as it was, so both are built as their JSON, typed here by their keys (camelCase, as an
agent reads them). runs/contract/execution.py's Recap validates a recap where an execution answer
carries it. Django-free, so the text renderings of runs/mcp can name these shapes before the apps load.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workflows_app.engine.jsontypes import JsonObject

# --- recaps (runs/readmodels/recap.py) ------------------------------------------------------------------


class RecapEntry(TypedDict):
    """One note on a path: a step's output or a checkpoint."""

    kind: Literal["step", "checkpoint"]
    stepId: str
    title: str
    notesMarkdown: str
    artifactKinds: list[str | None]
    position: NotRequired[int]  # its place on the path (1: the first entry after the start)
    keptBecause: NotRequired[str]  # kept over budget because the pending step works through what it set


class RecapGap(TypedDict):
    """The entries a recap left out, and the resource that pages through them."""

    fromPosition: int
    toPosition: int
    uri: str
    howToRead: str


class Recap(TypedDict):
    entries: list[RecapEntry]
    truncated: bool
    omittedEntries: int | None
    policy: str
    totalEntries: NotRequired[int]
    omitted: NotRequired[RecapGap]


# --- syntheses (runs/readmodels/synthesis.py) -----------------------------------------------------------


class SynthesisStep(TypedDict):
    stepId: str
    title: str
    kind: Literal["step", "checkpoint"]
    notesMarkdown: str
    artifacts: list[JsonObject]  # the agent's own artifacts, keys sorted


class SynthesisArtifact(TypedDict):
    kind: str
    stepId: str
    final: bool  # the last artifact of its kind on the path: the one that stands
    data: JsonObject


class Synthesis(TypedDict):
    runId: str
    workflowId: str
    workflowHash: str
    completedAt: str
    steps: list[SynthesisStep]
    artifacts: list[SynthesisArtifact]
    notesMarkdown: str
