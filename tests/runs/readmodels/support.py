"""Runs the read-model tests record and read: the routine they run, its artifacts, the node an
answer is at, and a checkpoint written through the journal."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from runs.execution.replay import output_digest
from runs.models import Node
from runs.store import events, tokens
from runs.store.journal import Journal, random_id
from runs.store.tokens import TokenKind

PLAN = "wr.routine-focused_plan"
STEPS = ["clarify-goal", "draft-plan", "self-check-plan"]
FILES = "mr_review.changed_files"
FINDINGS = "mr_review.findings"
A_FINDING = {
    "kind": FINDINGS,
    "findings": [
        {"severity": "Minor", "title": "Naming", "location": {"file": "a.py"}, "rationale": "r", "suggestion": "s"}
    ],
}


def changed_files(path: str) -> dict[str, Any]:
    return {"kind": FILES, "changedFiles": [{"path": path, "summary": "s", "risk": "L"}]}


def record_checkpoint(response: dict[str, Any], notes: str, artifacts: list[dict[str, Any]]) -> dict[str, Any]:
    """What a checkpoint does to a run (runs.models.Checkpoint): a checkpoint node below the current one,
    same pending step, reached by the checkpoint, with an ackToken to carry on from there."""
    node = Node.objects.select_related("run__session").get(
        public_id=tokens.parse(settings.WORKRAIL_HOME, response["stateToken"], TokenKind.STATE).id
    )
    output = {"notesMarkdown": notes, "artifacts": artifacts}
    child_id, attempt_id = random_id(), random_id()
    with transaction.atomic():
        journal = Journal(node.run.session, timezone.now())
        run_id = node.run.public_id
        journal.record(
            events.NodeCreated(
                run_id=run_id,
                node_id=child_id,
                parent_node_id=node.public_id,
                depth=node.depth + 1,
                notes_on_path=node.notes_on_path + 1,
                engine_state=node.engine_state,
                preferences=node.preferences,
                pending_step_id=node.pending_step_id,
                is_complete=False,
            )
        )
        journal.record(
            events.CheckpointRecorded(
                run_id=run_id,
                node_id=node.public_id,
                child_node_id=child_id,
                output_digest=output_digest(output),
                response="{}",
                notes_markdown=output.get("notesMarkdown", ""),
                artifacts=output.get("artifacts", []),
            )
        )
        journal.record(events.AttemptIssued(run_id=run_id, node_id=child_id, attempt_id=attempt_id))
        journal.flush()
    return {
        "stateToken": tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, child_id),
        "ackToken": tokens.mint(settings.WORKRAIL_HOME, TokenKind.ACK, attempt_id),
    }


def node_of(response: dict[str, Any]) -> Node:
    return Node.objects.select_related("run").get(
        public_id=tokens.parse(settings.WORKRAIL_HOME, response["stateToken"], TokenKind.STATE).id
    )
