"""The synthesis of a completed run: the notes and artifacts recorded on the way to its end, in order.

A run's tree can hold several branches (rewinds fork it); a synthesis covers one path only, from
the run's root to the completing node: the outputs of the steps acknowledged on that path and the
checkpoints recorded on it. Each artifact is listed once more in a flat list, where `final` marks
the last artifact of each kind: that is the one that stands (artifact finalization).

It is a pure read, computed once per completed run, so walking the path (O(depth), one recursive
query per table) is fine. The same path always gives byte-identical JSON: entries are ordered by
their position on the path, artifacts are copied with sorted keys, and the only timestamp is the
completing node's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Checkpoint, Node, Output
from runs.store.pinned import compiled_workflow

STEP = "step"
CHECKPOINT = "checkpoint"

# The nodes from `node` up to the run's root, with their distance from `node` (the root has the
# largest). Bounded by the node's depth, so a damaged parent chain cannot loop forever.
_PATH = """
WITH RECURSIVE path(id, parent_id, hops) AS (
    SELECT id, parent_id, 0 FROM {node} WHERE id = %s
    UNION ALL
    SELECT n.id, n.parent_id, p.hops + 1 FROM {node} n JOIN path p ON n.id = p.parent_id
    WHERE p.hops < %s
)
"""

_OUTPUTS = _PATH + "SELECT o.*, p.hops AS path_hops FROM {output} o JOIN path p ON o.child_id = p.id"

_CHECKPOINTS = (
    _PATH + "SELECT c.*, p.hops AS path_hops, cn.pending_step_id AS path_step_id "
    "FROM {checkpoint} c JOIN path p ON c.child_id = p.id LEFT JOIN {node} cn ON cn.id = c.node_id"
)


@dataclass(frozen=True)
class _Entry:
    hops: int  # distance from the completing node: larger is earlier on the path
    order: int  # a step output before a checkpoint at the same place (never both, in practice)
    created_at: datetime
    pk: int
    step_id: str
    title: str
    kind: str
    notes: str
    artifacts: list[dict[str, Any]]

    def sort_key(self) -> tuple[int, int, datetime, int]:
        return (-self.hops, self.order, self.created_at, self.pk)


def synthesize(node: Node) -> dict[str, Any]:
    """The synthesis of the path from the run's root to `node`, a completed node."""
    if not node.is_complete:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"Node {node.public_id} is not the end of a run; only a completed run has a synthesis.",
            "Synthesize the node a run completed on (is_complete).",
        )
    run = node.run
    compiled = compiled_workflow(run.pinned_id)
    entries = sorted(_path_entries(node, _step_titles(compiled.get("steps", []))), key=_Entry.sort_key)

    steps: list[dict[str, Any]] = []
    artifacts: list[dict[str, Any]] = []
    for entry in entries:
        step_artifacts = [_canonical(a) for a in entry.artifacts if isinstance(a, dict)]
        steps.append(
            {
                "stepId": entry.step_id,
                "title": entry.title,
                "kind": entry.kind,
                "notesMarkdown": entry.notes,
                "artifacts": step_artifacts,
            }
        )
        artifacts += [
            {"kind": str(a.get("kind")), "stepId": entry.step_id, "final": False, "data": a} for a in step_artifacts
        ]
    last_of_kind = {item["kind"]: index for index, item in enumerate(artifacts)}
    for index in last_of_kind.values():
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


def _path_entries(node: Node, titles: dict[str, str]) -> list[_Entry]:
    tables = {
        "node": Node._meta.db_table,
        "output": Output._meta.db_table,
        "checkpoint": Checkpoint._meta.db_table,
    }
    params = [node.pk, node.depth + 1]
    entries = [
        _Entry(
            hops=getattr(output, "path_hops"),  # noqa: B009 - a column of the raw query, unknown to the model
            order=0,
            created_at=output.created_at,
            pk=output.pk,
            step_id=output.step_id,
            title=output.step_title or titles.get(output.step_id, ""),
            kind=STEP,
            notes=output.notes_markdown,
            artifacts=list(output.artifacts or []),
        )
        for output in Output.objects.raw(_OUTPUTS.format(**tables), params)
    ]
    for checkpoint in Checkpoint.objects.raw(_CHECKPOINTS.format(**tables), params):
        step_id = getattr(checkpoint, "path_step_id") or ""  # noqa: B009 - as above
        entries.append(
            _Entry(
                hops=getattr(checkpoint, "path_hops"),  # noqa: B009 - as above
                order=1,
                created_at=checkpoint.created_at,
                pk=checkpoint.pk,
                step_id=step_id,
                title=titles.get(step_id, ""),
                kind=CHECKPOINT,
                notes=checkpoint.notes_markdown,
                artifacts=list(checkpoint.artifacts or []),
            )
        )
    return entries


def _step_titles(steps: list[dict[str, Any]]) -> dict[str, str]:
    """Step id -> title, loop bodies included."""
    titles: dict[str, str] = {}
    for step in steps:
        titles.setdefault(str(step.get("id")), str(step.get("title") or ""))
        body = step.get("body")
        if isinstance(body, list):
            for step_id, title in _step_titles(body).items():
                titles.setdefault(step_id, title)
    return titles


def _canonical(artifact: dict[str, Any]) -> dict[str, Any]:
    """A copy with sorted keys, so the synthesis does not depend on how the backend stored the JSON."""
    copy: dict[str, Any] = json.loads(json.dumps(artifact, sort_keys=True, ensure_ascii=False))
    return copy


def _document(workflow_name: str, steps: list[dict[str, Any]]) -> str:
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
