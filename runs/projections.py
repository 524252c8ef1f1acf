"""From events to projection rows. The live write path and `rebuild_projections` both go through
`Projector.apply`, so a rebuilt store equals the one that was written, by construction and by test.

A projector lives for one transaction and remembers the rows it created or was shown, so applying
an event rarely needs to read anything back: the hot path of continue_workflow depends on that.
Run rows are written once, at `flush`, however many events touched them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import F, Value
from django.db.models.functions import Concat, Right

from runs.models import (
    Ack,
    Attempt,
    Checkpoint,
    Event,
    EventKind,
    Gap,
    Node,
    Observation,
    Output,
    PinnedWorkflow,
    Run,
    RunStatus,
    RunSynthesis,
    SearchEntry,
    Session,
    SessionKind,
)

SEARCH_NOTES_CHARS = 4000  # how much recent text per run resume_session searches in its second layer


@dataclass
class _SearchChange:
    """Changes to one search entry, written in one UPDATE at flush."""

    at: datetime
    tip: Node | None = None
    text: list[str] = field(default_factory=list)
    git: dict[str, str] = field(default_factory=dict)


def identity_text(*parts: Any) -> str:
    return " ".join(str(p) for p in parts if p).lower()


class Projector:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.runs: dict[str, Run] = {}
        self.nodes: dict[int, Node] = {}
        self.attempts: dict[int, Attempt] = {}
        self._dirty_runs: dict[str, Run] = {}
        self._search: dict[str | None, _SearchChange] = {}  # by run public id; None = the session's own entry

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
        for run_id, change in self._search.items():
            rows = (
                SearchEntry.objects.filter(run__public_id=run_id)
                if run_id
                else SearchEntry.objects.filter(session=self.session, run__isnull=True)
            )
            updates: dict[str, Any] = {"updated_at": change.at, **change.git}
            if change.tip is not None:
                updates["tip"] = change.tip
            if change.text:
                appended = Value("\n" + "\n".join(change.text).lower())
                updates["notes_text"] = Right(Concat(F("notes_text"), appended), SEARCH_NOTES_CHARS)
            rows.update(**updates)
        self._search.clear()

    def _search_change(self, run_id: str | None, at: datetime) -> _SearchChange:
        change = self._search.setdefault(run_id, _SearchChange(at))
        change.at = at
        return change

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
        self.session.kind = data.get("kind", SessionKind.WORKFLOW)
        self.session.tags = data.get("tags", [])
        self.session.preferences = data.get("preferences", {})
        self.session.created_at = at
        self.session.save(update_fields=["session_key", "title", "kind", "tags", "preferences", "created_at"])
        if self.session.kind == SessionKind.CHECKPOINT_ONLY:
            SearchEntry.objects.create(
                session=self.session,
                run=None,
                updated_at=at,
                identity_text=identity_text(self.session.session_key, self.session.title, *self.session.tags),
            )

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
        SearchEntry.objects.create(
            session=self.session,
            run=run,
            updated_at=at,
            identity_text=identity_text(
                self.session.session_key,
                self.session.title,
                *self.session.tags,
                data["workflowId"],
                data.get("workflowName"),
            ),
        )

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
        self._search_change(run.public_id, at).tip = node  # the latest node is the run's tip to resume

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
        self._search_text(data.get("runId"), data["notesMarkdown"], data["artifacts"], at)

    def _search_text(self, run_id: str | None, notes: str, artifacts: list[Any], at: datetime) -> None:
        kinds = " ".join(str(a.get("kind")) for a in artifacts if isinstance(a, dict))
        self._search_change(run_id, at).text.append(f"{notes} {kinds}".strip())

    def _checkpoint_recorded(self, data: dict[str, Any], at: datetime) -> None:
        node = self.node(data["nodeId"]) if data.get("nodeId") is not None else None
        child = self.node(data["childNodeId"]) if data.get("childNodeId") is not None else None
        Checkpoint.objects.create(
            session=self.session,
            node=node,
            child=child,
            output_digest=data["outputDigest"],
            notes_markdown=data["notesMarkdown"],
            artifacts=data["artifacts"],
            response_json=data["response"],
            created_at=at,
        )
        self._search_text(data.get("runId"), data["notesMarkdown"], data["artifacts"], at)

    def _preferences_changed(self, data: dict[str, Any], at: datetime) -> None:
        """The node created with the change carries the effective preferences; the event is the history."""

    def _observation_recorded(self, data: dict[str, Any], at: datetime) -> None:
        run = self.run(data["runId"]) if data.get("runId") else None
        Observation.objects.create(
            session=self.session,
            run=run,
            git_branch=data.get("gitBranch") or "",
            git_head_sha=data.get("gitHeadSha") or "",
            workspace_path=data.get("workspacePath") or "",
            created_at=at,
        )
        self._search_change(data.get("runId"), at).git = {
            "git_branch": data.get("gitBranch") or "",
            "git_head_sha": data.get("gitHeadSha") or "",
            "workspace_path": data.get("workspacePath") or "",
        }

    def _gap_recorded(self, data: dict[str, Any], at: datetime) -> None:
        Gap.objects.create(
            run=self.run(data["runId"]),
            node=self.node(data["nodeId"]),
            step_id=data["stepId"],
            reason=data["reason"],
            description=data.get("description", ""),
            created_at=at,
        )

    def _run_finalized(self, data: dict[str, Any], at: datetime) -> None:
        RunSynthesis.objects.create(
            run=self.run(data["runId"]), node=self.node(data["nodeId"]), synthesis=data["synthesis"], created_at=at
        )

    def _run_status_changed(self, data: dict[str, Any], at: datetime) -> None:
        self._touch(self.run(data["runId"]), at, status=data["to"])

    def _run_completed(self, data: dict[str, Any], at: datetime) -> None:
        self._touch(self.run(data["runId"]), at, status=data["to"])

    def _warning_recorded(self, data: dict[str, Any], at: datetime) -> None:
        """Warnings are read from the log itself; they have no projection."""


assert {f"_{kind.value}" for kind in EventKind} <= set(vars(Projector)), "every event kind needs an applier"
