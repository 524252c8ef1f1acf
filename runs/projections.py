"""From events to projection rows. The live write path and `rebuild_projections` both go through
`Projector.apply`, so a rebuilt store equals the one that was written, by construction and by test.

A projector lives for one transaction and remembers the rows it created or was shown, so applying
an event rarely needs to read anything back: the hot path of continue_workflow depends on that.
Run rows are written once, at `flush`, however many events touched them.
"""

from __future__ import annotations

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


class Projector:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.runs: dict[str, Run] = {}
        self.nodes: dict[int, Node] = {}
        self.attempts: dict[int, Attempt] = {}
        self._dirty_runs: dict[str, Run] = {}

    def know(self, *objects: Run | Node | Attempt) -> None:
        for obj in objects:
            if isinstance(obj, Run):
                self.runs[obj.public_id] = obj
            elif isinstance(obj, Node):
                self.nodes[obj.public_id] = obj
            else:
                self.attempts[obj.public_id] = obj

    def apply(self, event: Event) -> None:
        getattr(self, f"_{event.kind}")(event.data, event.created_at)

    def flush(self) -> None:
        for run in self._dirty_runs.values():
            Run.objects.filter(pk=run.pk).update(status=run.status, updated_at=run.updated_at)
        self._dirty_runs.clear()

    # --- lookups: remembered rows first ----------------------------------------------------------------

    def run(self, public_id: str) -> Run:
        if public_id not in self.runs:
            self.runs[public_id] = Run.objects.get(public_id=public_id)
        return self.runs[public_id]

    def node(self, public_id: int) -> Node:
        if public_id not in self.nodes:
            self.nodes[public_id] = Node.objects.get(public_id=public_id)
        return self.nodes[public_id]

    def attempt(self, public_id: int) -> Attempt:
        if public_id not in self.attempts:
            self.attempts[public_id] = Attempt.objects.get(public_id=public_id)
        return self.attempts[public_id]

    def _touch(self, run: Run, at: datetime, status: str | None = None) -> None:
        run.updated_at = at
        if status is not None:
            run.status = status
        self._dirty_runs[run.public_id] = run

    # --- one method per event kind (EventKind values) --------------------------------------------------

    def _session_created(self, data: dict[str, Any], at: datetime) -> None:
        self.session.session_key = data["sessionKey"]
        self.session.title = data["title"]
        self.session.created_at = at
        self.session.save(update_fields=["session_key", "title", "created_at"])

    def _run_started(self, data: dict[str, Any], at: datetime) -> None:
        run = Run.objects.create(
            public_id=data["runId"],
            session=self.session,
            workflow_id=data["workflowId"],
            pinned=PinnedWorkflow.objects.only("workflow_hash").get(workflow_hash=data["workflowHash"]),
            source_path=data["sourcePath"],
            source_stat=data["sourceStat"],
            status=RunStatus.IN_PROGRESS,
            created_at=at,
            updated_at=at,
        )
        self.know(run)

    def _node_created(self, data: dict[str, Any], at: datetime) -> None:
        run = self.run(data["runId"])
        parent = self.node(data["parentNodeId"]) if data["parentNodeId"] is not None else None
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
        self.know(node)
        if parent is not None:
            Node.objects.filter(pk=parent.pk).update(latest_child=node)
            parent.latest_child = node
        self._touch(run, at)

    def _attempt_issued(self, data: dict[str, Any], at: datetime) -> None:
        self.know(Attempt.objects.create(public_id=data["attemptId"], node=self.node(data["nodeId"]), created_at=at))

    def _step_acked(self, data: dict[str, Any], at: datetime) -> None:
        attempt = self.attempt(data["attemptId"])
        child = self.node(data["childNodeId"]) if data["childNodeId"] is not None else None
        Ack.objects.create(
            attempt=attempt,
            node=self.node(data["nodeId"]),
            child=child,
            outcome=data["outcome"],
            output_digest=data["outputDigest"],
            response_json=data["response"],
            created_at=at,
        )

    def _output_recorded(self, data: dict[str, Any], at: datetime) -> None:
        Output.objects.create(
            node=self.node(data["nodeId"]),
            child=self.node(data["childNodeId"]),
            step_id=data["stepId"],
            step_title=data["stepTitle"],
            notes_markdown=data["notesMarkdown"],
            artifacts=data["artifacts"],
            created_at=at,
        )

    def _run_status_changed(self, data: dict[str, Any], at: datetime) -> None:
        self._touch(self.run(data["runId"]), at, status=data["to"])

    def _run_completed(self, data: dict[str, Any], at: datetime) -> None:
        self._touch(self.run(data["runId"]), at, status=data["to"])

    def _warning_recorded(self, data: dict[str, Any], at: datetime) -> None:
        """Warnings are read from the log itself; they have no projection."""


assert {f"_{kind.value}" for kind in EventKind} <= set(vars(Projector)), "every event kind needs an applier"
