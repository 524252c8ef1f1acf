"""From events to projection rows. The live write path and `rebuild_projections` both go through
`apply`, so a rebuilt store equals the one that was written, by construction and by test."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from runs.models import (
    Ack,
    Attempt,
    Event,
    EventKind,
    Node,
    Output,
    PinnedWorkflow,
    Run,
    RunStatus,
    Session,
)


def apply(event: Event) -> None:
    APPLIERS[EventKind(event.kind)](event.session, event.data, event.created_at)


def _session_created(session: Session, data: dict[str, Any], at: datetime) -> None:
    session.session_key = data["sessionKey"]
    session.title = data["title"]
    session.created_at = at
    session.save(update_fields=["session_key", "title", "created_at"])


def _run_started(session: Session, data: dict[str, Any], at: datetime) -> None:
    Run.objects.create(
        public_id=data["runId"],
        session=session,
        workflow_id=data["workflowId"],
        pinned=PinnedWorkflow.objects.get(workflow_hash=data["workflowHash"]),
        source_path=data["sourcePath"],
        source_stat=data["sourceStat"],
        status=RunStatus.IN_PROGRESS,
        created_at=at,
        updated_at=at,
    )


def _node_created(session: Session, data: dict[str, Any], at: datetime) -> None:
    run = Run.objects.get(public_id=data["runId"])
    parent = Node.objects.get(public_id=data["parentNodeId"]) if data["parentNodeId"] is not None else None
    node = Node.objects.create(
        public_id=data["nodeId"],
        run=run,
        parent=parent,
        depth=data["depth"],
        notes_on_path=data["notesOnPath"],
        engine_state=data["engineState"],
        preferences=data["preferences"],
        pending_step_id=data["pendingStepId"] or "",
        is_complete=data["isComplete"],
        created_at=at,
    )
    if parent is not None:
        Node.objects.filter(pk=parent.pk).update(latest_child=node)
    Run.objects.filter(pk=run.pk).update(updated_at=at)


def _attempt_issued(session: Session, data: dict[str, Any], at: datetime) -> None:
    Attempt.objects.create(public_id=data["attemptId"], node=Node.objects.get(public_id=data["nodeId"]), created_at=at)


def _step_acked(session: Session, data: dict[str, Any], at: datetime) -> None:
    attempt = Attempt.objects.select_related("node").get(public_id=data["attemptId"])
    child = Node.objects.get(public_id=data["childNodeId"]) if data["childNodeId"] is not None else None
    Ack.objects.create(
        attempt=attempt,
        node=attempt.node,
        child=child,
        outcome=data["outcome"],
        output_digest=data["outputDigest"],
        response_json=data["response"],
        created_at=at,
    )


def _output_recorded(session: Session, data: dict[str, Any], at: datetime) -> None:
    Output.objects.create(
        node=Node.objects.get(public_id=data["nodeId"]),
        child=Node.objects.get(public_id=data["childNodeId"]),
        step_id=data["stepId"],
        step_title=data["stepTitle"],
        notes_markdown=data["notesMarkdown"],
        artifacts=data["artifacts"],
        created_at=at,
    )


def _status(session: Session, data: dict[str, Any], at: datetime) -> None:
    Run.objects.filter(public_id=data["runId"]).update(status=data["to"], updated_at=at)


def _nothing(session: Session, data: dict[str, Any], at: datetime) -> None:
    """Warnings are read from the log itself; they have no projection."""


APPLIERS: dict[EventKind, Callable[[Session, dict[str, Any], datetime], None]] = {
    EventKind.SESSION_CREATED: _session_created,
    EventKind.RUN_STARTED: _run_started,
    EventKind.NODE_CREATED: _node_created,
    EventKind.ATTEMPT_ISSUED: _attempt_issued,
    EventKind.STEP_ACKED: _step_acked,
    EventKind.OUTPUT_RECORDED: _output_recorded,
    EventKind.RUN_STATUS_CHANGED: _status,
    EventKind.RUN_COMPLETED: _status,
    EventKind.WARNING_RECORDED: _nothing,
}
