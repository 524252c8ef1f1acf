"""The synthesis of a completed run: the notes and artifacts recorded on the way to its end, in order.

A run's tree can hold several branches (rewinds fork it); a synthesis covers one path only, from
the run's root to the completing node: the outputs of the steps acknowledged on that path and the
checkpoints recorded on it. Each artifact is listed once more in a flat list, where `final` marks
the last artifact of each kind: that is the one that stands (artifact finalization).

It is a pure read, computed once per completed run, so reading the path (branches.records_on_path:
O(depth), one recursive query per table) is fine; which artifact stands is branches.py's rule too.
The same path always gives byte-identical JSON: entries are ordered by their position on the path,
artifacts are copied with sorted keys, and the only timestamp is the completing node's.

It is recorded as JSON (the RunFinalized event) and read back as it was, so it is built as its JSON
(runs/readmodels/shapes.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Node, Output
from runs.readmodels import branches
from runs.readmodels.artifact_names import artifact_name
from runs.readmodels.shapes import Synthesis, SynthesisArtifact, SynthesisStep
from runs.store.pinned import compiled_workflow, steps_by_id
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.templating import without_context

STEP = branches.STEP
CHECKPOINT = branches.CHECKPOINT


def synthesize(node: Node) -> Synthesis:
    """The synthesis of the path from the run's root to `node`, a completed node."""
    if not node.is_complete:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"Node {node.public_id} is not the end of a run; only a completed run has a synthesis.",
            "Synthesize the node a run completed on (is_complete).",
        )
    run = node.run
    compiled = compiled_workflow(run.pinned_id)
    # a checkpoint has no recorded title: its step's, placeholders named (never raw `{{...}}`)
    titles = {
        step_id: without_context(str(step.get("title") or "")) for step_id, step in steps_by_id(run.pinned_id).items()
    }

    steps: list[SynthesisStep] = []
    artifacts: list[SynthesisArtifact] = []
    for entry in branches.records_on_path(node):
        step_artifacts = [_canonical(a) for a in entry.artifacts if isinstance(a, dict)]
        title = entry.record.step_title if isinstance(entry.record, Output) else ""
        steps.append(
            {
                "stepId": entry.step_id,
                "title": title or titles.get(entry.step_id, ""),
                "kind": entry.kind,
                "notesMarkdown": entry.notes_markdown,
                "artifacts": step_artifacts,
            }
        )
        artifacts += [
            {"kind": str(a.get("kind")), "stepId": entry.step_id, "final": False, "data": a} for a in step_artifacts
        ]
    for index in branches.last_of_each_kind([item["kind"] for item in artifacts]):
        artifacts[index]["final"] = True

    return {
        "runId": run.public_id,
        "workflowId": run.workflow_id,
        "workflowHash": run.pinned_id,
        "completedAt": node.created_at.isoformat(),
        "steps": steps,
        "artifacts": artifacts,
        "notesMarkdown": _document(str(compiled.get("name") or run.workflow_id), steps),
    }


def _canonical(artifact: JsonObject) -> JsonObject:
    """A copy with sorted keys, so the synthesis does not depend on how the backend stored the JSON."""
    copy: JsonObject = json.loads(json.dumps(artifact, sort_keys=True, ensure_ascii=False))
    return copy


def _document(workflow_name: str, steps: list[SynthesisStep]) -> str:
    """One Markdown document: a heading per step, its notes, the kinds of its artifacts."""
    parts = [f"# {workflow_name}"]
    if not steps:
        parts.append("_No notes or artifacts were recorded on this run._")
    for number, step in enumerate(steps, start=1):
        label = step["title"] or step["stepId"] or "Untitled step"
        if step["kind"] == CHECKPOINT:
            label = f"Checkpoint: {label}"
        heading = f"## {number}. {label}"
        if step["stepId"]:
            heading += f" (`{step['stepId']}`)"
        parts.append(heading)
        notes = step["notesMarkdown"].strip()
        parts.append(notes or "_No notes._")
        if step["artifacts"]:
            parts.append("Artifacts: " + ", ".join(f"`{a.get('kind')}`" for a in step["artifacts"]))
    return "\n\n".join(parts) + "\n"


@dataclass(frozen=True)
class EndedWith:
    """One artifact a completed branch ended with, as a person reads it: what it holds and the step that
    recorded it; its kind and the step's id for whoever fixes the agent's answer."""

    name: str  # "The list of changed files" (artifact_names.py)
    step_title: str  # the recording step's title, as the agent saw it ("" when not known)
    kind: str
    step_id: str


def ended_with(synthesis: Synthesis) -> list[EndedWith]:
    """The latest artifact of each kind on the branch (the synthesis's `final` ones), named for people."""
    titles = {step["stepId"]: step["title"] for step in synthesis["steps"]}
    return [
        EndedWith(_capitalised(artifact_name(a["kind"])), titles.get(a["stepId"], ""), a["kind"], a["stepId"])
        for a in synthesis["artifacts"]
        if a["final"]
    ]


def _capitalised(name: str) -> str:
    return name[:1].upper() + name[1:]
