"""From events to projection rows. The live write path and `rebuild_projections` both go through
`Projector.apply`, so a rebuilt store equals the one that was written, by construction and by test.

A projector lives for one transaction and remembers the rows it created or was shown, so applying
an event rarely needs to read anything back: the hot path of continue_workflow depends on that.
Run rows are written once, at `flush`, however many events touched them.

Replaying a whole log (`rebuild_projections`, importing a bundle) uses a deferred projector: the rows
of the large tables (nodes, attempts, acks, outputs, checkpoints, gaps, syntheses, observations) are
kept in memory and inserted in bulk at `flush` (runs/store/bulk_rows.py), parents before children, instead
of one INSERT per event. The same methods decide every value either way; only when the rows reach the database differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from django.db.models import F, Model, Value
from django.db.models.functions import Concat, Right

from runs.models import (
    Ack,
    Attempt,
    Checkpoint,
    EventKind,
    Gap,
    Node,
    Observation,
    Output,
    Run,
    RunStatus,
    RunSynthesis,
    SearchEntry,
    Session,
    SessionKind,
    SessionStatus,
)
from runs.store import events, statements
from runs.store.bulk_rows import insert_rows
from runs.store.statements import Select
from runs.store.waiting import waits_for_user

if TYPE_CHECKING:
    from workflows_app.engine.model import EngineState

SEARCH_NOTES_CHARS = 4000  # how much recent text per run resume_session searches in its second layer


@dataclass
class _SearchChange:
    """Changes to one search entry, written in one UPDATE at flush."""

    at: datetime
    tip: Node | None = None
    text: list[str] = field(default_factory=list)
    git: dict[str, str] = field(default_factory=dict)


def session_status(kind: str, run_statuses: list[str]) -> SessionStatus:
    """Any run in progress makes the session in progress; else any blocked, blocked; else complete when
    a run completed; canceled when every run was canceled. A checkpoint-only session holds notes."""
    if kind == SessionKind.CHECKPOINT_ONLY:
        return SessionStatus.NOTES
    for status in (RunStatus.IN_PROGRESS, RunStatus.BLOCKED, RunStatus.COMPLETE, RunStatus.CANCELED):
        if status in run_statuses:
            return SessionStatus(status.value)
    return SessionStatus.IN_PROGRESS  # created, its first run not yet started


def _append_notes(text: Value) -> Right:
    """A search entry's notes with `text` appended, keeping the newest SEARCH_NOTES_CHARS."""
    return Right(Concat(F("notes_text"), text), SEARCH_NOTES_CHARS)


# The session's own runs (not delegations), oldest first: what its summary counts.
_own_runs = Select(
    lambda pk: (
        Run.objects.filter(session_id=pk, parent_run__isnull=True)
        .order_by("created_at", "pk")
        .only("workflow_id", "status", "branch_count", "waits_for_user")
    )
)


def identity_text(*parts: Any) -> str:
    return " ".join(str(p) for p in parts if p).lower()


# The deferred tables, in the order their rows are inserted at flush: each after those it points at.
_DEFERRED_ORDER: tuple[type[Model], ...] = (
    Node,
    Attempt,
    Ack,
    Output,
    Checkpoint,
    Gap,
    RunSynthesis,
    Observation,
)


STEP_TEXT_CHARS = 200  # Output.step_id and step_title


def _shortened(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Projector:
    def __init__(self, session: Session, *, deferred: bool = False) -> None:
        self.session = session
        self.deferred = deferred
        self._pending: dict[type[Model], list[Model]] = {model: [] for model in _DEFERRED_ORDER}
        self._parents: dict[int, Node] = {}  # deferred: a pending node's parent, by the node's public id
        self._latest: dict[int, Node] = {}  # deferred: a node's newest child, by the parent's public id
        self.runs: dict[str, Run] = {}
        self.nodes: dict[int, Node] = {}
        self.attempts: dict[int, Attempt] = {}
        self._dirty_runs: dict[str, Run] = {}
        self._search: dict[str | None, _SearchChange] = {}  # by run public id; None = the session's own entry
        self._summary_changed = False  # the session's summary (status, runs, branches, git) needs writing
        self._session_values: dict[str, object] = {}  # columns of the session row to write at flush
        self._started: set[str] = set()  # public ids of the runs this projector started
        # A session this projector created saw every run of it start: its summary needs no reading back.
        self._knows_every_run = False
        self._by = ""  # the owner who made the event being applied
        self._client = ""  # the MCP client that made it, by its declared name (Event.client_name)

    def know(self, *objects: Run | Node | Attempt) -> None:
        for obj in objects:
            if isinstance(obj, Run):
                self.runs[obj.public_id] = obj
            elif isinstance(obj, Node):
                self.nodes[obj.public_id] = obj
            else:
                self.attempts[obj.public_id] = obj

    def apply(self, payload: events.EventPayload, at: datetime, by: str = "", client: str = "") -> None:
        """`by` is the owner who made the event (its `actor` column): a session's owner is its creator's;
        `client`, the MCP client that made it (its `client_name` column): a run's is its starter's."""
        self._by, self._client = by, client
        getattr(self, f"_{payload.kind.value}")(payload, at)

    @staticmethod
    def clear(session: Session | None = None) -> None:
        """Empties what this projector wrote, for one session or for all, so a rebuild starts from
        nothing but the log. Sessions stay (their events hang on them); their projected fields are reset."""
        scoped = {} if session is None else {"session": session}
        through_run = {} if session is None else {"run__session": session}
        through_node = {} if session is None else {"node__run__session": session}
        SearchEntry.objects.filter(**scoped).delete()
        Checkpoint.objects.filter(**scoped).delete()
        Observation.objects.filter(**scoped).delete()
        Gap.objects.filter(**through_run).delete()
        RunSynthesis.objects.filter(**through_run).delete()
        for model in (Output, Ack, Attempt):
            model.objects.filter(**through_node).delete()
        Node.objects.filter(**through_run).delete()
        Run.objects.filter(**scoped).delete()
        sessions = Session.objects.all() if session is None else Session.objects.filter(pk=session.pk)
        sessions.update(
            session_key=None,
            title="",
            tags=[],
            preferences={},
            status=SessionStatus.IN_PROGRESS,
            workflow_ids="",
            run_count=0,
            branch_count=0,
            waiting_for_user=False,
            git_branch="",
            git_head_sha="",
            workspace_path="",
            owner="",
        )

    def started(self, run: Run) -> bool:
        """Whether `run` started in this projector's transaction (so nothing about it was stored before)."""
        return run.public_id in self._started

    def flush(self, **session_values: object) -> None:
        """Writes what the events applied since the last flush changed. `session_values` are more columns
        of the session row (the journal's last_seq), written in the one UPDATE of that row."""
        self._insert_pending()
        for run in self._dirty_runs.values():
            statements.update(
                Run,
                run.pk,
                status=run.status,
                updated_at=run.updated_at,
                announced=run.announced,
                node_count=run.node_count,
                branch_count=run.branch_count,
                start_commit=run.start_commit,
                end_commit=run.end_commit,
                waits_for_user=run.waits_for_user,
            )
        self._dirty_runs.clear()
        if self._summary_changed:
            self._summarize()
        session_row = {**self._session_values, **session_values}
        if session_row:
            statements.update(Session, self.session.pk, **session_row)
        self._session_values.clear()
        for run_id, change in self._search.items():
            where: dict[str, int | bool] = (
                {"run_id": self.run(run_id).pk} if run_id else {"session_id": self.session.pk, "run__isnull": True}
            )
            values: dict[str, object] = {"updated_at": change.at, **change.git}
            if change.tip is not None:
                values["tip_id"] = change.tip.pk
            appended = {"notes_text": (_append_notes, "\n" + "\n".join(change.text).lower())} if change.text else {}
            statements.update_where(SearchEntry, where, values, appended)
        self._search.clear()

    def _insert(self, row: Model) -> None:
        """A new projection row: saved now, or (deferred) at flush with the others of its table."""
        if self.deferred:
            self._pending[type(row)].append(row)
        else:
            statements.insert(row)

    def _insert_pending(self) -> None:
        """Deferred rows, table by table in dependency order; nodes first, then the links between nodes
        (a node's parent and newest child), which need the primary keys the insert gave them."""
        if not any(self._pending.values()):
            return
        for model in _DEFERRED_ORDER:
            insert_rows(model, self._pending[model])
            self._pending[model].clear()
        linked: dict[int, Node] = {}
        for child_id, parent in self._parents.items():
            child = self.nodes[child_id]
            child.parent_id = parent.pk
            linked[child.pk] = child
        for parent_id, child in self._latest.items():
            parent = self.nodes[parent_id]
            parent.latest_child_id = child.pk
            linked[parent.pk] = parent
        statements.update_many(Node, ["parent_id", "latest_child_id"], list(linked.values()))
        self._parents.clear()
        self._latest.clear()

    def _summarize(self) -> None:
        """The session's status, workflows, run and branch counts, from its own runs (delegations are
        part of the run that handed them out). Written only when something in it may have changed."""
        self._summary_changed = False
        if self._knows_every_run:
            own = [r for r in self.runs.values() if r.session_id == self.session.pk and r.parent_run_id is None]
            runs = sorted(own, key=lambda run: (run.created_at, run.pk))
        else:
            runs = _own_runs.all(self.session.pk)
        session = self.session
        session.status = session_status(session.kind, [run.status for run in runs])
        session.workflow_ids = " ".join(dict.fromkeys(run.workflow_id for run in runs))[:1000]
        session.run_count = len(runs)
        session.branch_count = sum(run.branch_count for run in runs)
        session.waiting_for_user = any(run.waits_for_user and run.status == RunStatus.IN_PROGRESS for run in runs)
        self._session_values.update(
            status=session.status,
            workflow_ids=session.workflow_ids,
            run_count=session.run_count,
            branch_count=session.branch_count,
            waiting_for_user=session.waiting_for_user,
            git_branch=session.git_branch,
            git_head_sha=session.git_head_sha,
            workspace_path=session.workspace_path,
        )

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
            self._summary_changed = True
        self._dirty_runs[run.public_id] = run

    # --- one method per event kind (EventKind values) --------------------------------------------------

    def _session_created(self, data: events.SessionCreated, at: datetime) -> None:
        self.session.session_key = data.session_key
        self.session.title = data.title
        self.session.kind = data.session_kind
        self.session.tags = data.tags
        self.session.preferences = data.preferences
        self.session.created_at = at
        self.session.owner = self._by
        self._session_values.update(
            session_key=data.session_key,
            title=data.title,
            kind=data.session_kind,
            tags=data.tags,
            preferences=data.preferences,
            created_at=at,
            owner=self._by,
        )
        self._knows_every_run = True
        if self.session.kind == SessionKind.CHECKPOINT_ONLY:
            self._summary_changed = True
            statements.insert(
                SearchEntry(
                    session=self.session,
                    run=None,
                    updated_at=at,
                    identity_text=identity_text(self.session.session_key, self.session.title, *self.session.tags),
                )
            )

    def _run_started(self, data: events.RunStarted, at: datetime) -> None:
        if data.parent_node_id is not None:
            self._insert_pending()  # a delegation points at its parent's node: that row must exist
        # The snapshot is stored before its run starts (runs/store/pinned.py); the foreign key checks it at commit.
        run = Run(
            public_id=data.run_id,
            session=self.session,
            workflow_id=data.workflow_id,
            pinned_id=data.workflow_hash,
            source_path=data.source_path,
            source_stat=data.source_stat,
            parent_run=self.run(data.parent_run_id) if data.parent_run_id else None,
            parent_node=self.node(data.parent_node_id) if data.parent_node_id is not None else None,
            delegation_index=data.delegation_index,
            start_commit=data.head_commit or "",
            client_name=self._client,
            status=RunStatus.IN_PROGRESS,
            created_at=at,
            updated_at=at,
        )
        statements.insert(run)
        self.know(run)
        self._started.add(run.public_id)
        self._summary_changed = True
        statements.insert(
            SearchEntry(
                session=self.session,
                run=run,
                updated_at=at,
                identity_text=identity_text(
                    self.session.session_key,
                    self.session.title,
                    *self.session.tags,
                    data.workflow_id,
                    data.workflow_name,
                ),
            )
        )

    def _node_created(self, data: events.NodeCreated, at: datetime) -> None:
        run = self.run(data.run_id)
        parent = self.node(data.parent_node_id) if data.parent_node_id is not None else None
        node = Node(
            public_id=data.node_id,
            run=run,
            parent=None if self.deferred else parent,
            depth=data.depth,
            notes_on_path=data.notes_on_path,
            engine_state=data.engine_state,
            preferences=data.preferences,
            pending_step_id=data.pending_step_id or "",
            is_complete=data.is_complete,
            trace=data.trace,
            created_at=at,
        )
        self._insert(node)
        self.know(node)
        if parent is not None:
            if parent.latest_child_id is not None or parent.public_id in self._latest:  # a second child: a fork
                run.branch_count += 1
                self._summary_changed = True
            if self.deferred:
                self._parents[node.public_id] = parent
                self._latest[parent.public_id] = node
            else:
                statements.update(Node, parent.pk, latest_child_id=node.pk)
                parent.latest_child = node
        run.node_count += 1
        # The stored state is one the engine wrote (NodeCreated keeps it as the JSON it is).
        waits = waits_for_user(
            run.pinned_id, data.pending_step_id, cast("EngineState", data.engine_state), data.preferences
        )
        if waits != run.waits_for_user:
            run.waits_for_user = waits
            self._summary_changed = True
        self._touch(run, at)
        self._search_change(run.public_id, at).tip = node  # the latest node is the run's tip to resume

    def _attempt_issued(self, data: events.AttemptIssued, at: datetime) -> None:
        attempt = Attempt(public_id=data.attempt_id, node=self.node(data.node_id), created_at=at)
        self._insert(attempt)
        self.know(attempt)

    def _step_acked(self, data: events.StepAcked, at: datetime) -> None:
        attempt = self.attempt(data.attempt_id)
        child = self.node(data.child_node_id) if data.child_node_id is not None else None
        self._insert(
            Ack(
                attempt=attempt,
                node=self.node(data.node_id),
                child=child,
                outcome=data.outcome,
                output_digest=data.output_digest,
                response_json=data.response,
                refused=data.refused,
                created_at=at,
            )
        )

    def _output_recorded(self, data: events.OutputRecorded, at: datetime) -> None:
        self._insert(
            Output(
                node=self.node(data.node_id),
                child=self.node(data.child_node_id),
                # A title rendered from a loop's item ("Implement {{slice}}") is as long as the agent's item:
                # the row keeps what a page shows (the event keeps it whole), on every backend.
                step_id=data.step_id[:STEP_TEXT_CHARS],
                step_title=_shortened(data.step_title, STEP_TEXT_CHARS),
                notes_markdown=data.notes_markdown,
                artifacts=data.artifacts,
                created_at=at,
            )
        )
        self._search_text(data.run_id, data.notes_markdown, data.artifacts, at)

    def _search_text(self, run_id: str | None, notes: str, artifacts: list[Any], at: datetime) -> None:
        kinds = " ".join(str(a.get("kind")) for a in artifacts if isinstance(a, dict))
        self._search_change(run_id, at).text.append(f"{notes} {kinds}".strip())

    def _checkpoint_recorded(self, data: events.CheckpointRecorded, at: datetime) -> None:
        node = self.node(data.node_id) if data.node_id is not None else None
        child = self.node(data.child_node_id) if data.child_node_id is not None else None
        self._insert(
            Checkpoint(
                session=self.session,
                node=node,
                child=child,
                output_digest=data.output_digest,
                notes_markdown=data.notes_markdown,
                artifacts=data.artifacts,
                response_json=data.response,
                created_at=at,
            )
        )
        self._search_text(data.run_id, data.notes_markdown, data.artifacts, at)

    def _preferences_changed(self, data: events.PreferencesChanged, at: datetime) -> None:
        """A node created with a change already carries it; a change from the dashboard is applied to
        the open tip it names (its next step takes it) or to the session's baseline."""
        if data.node_id is not None:
            node = self.node(data.node_id)
            if node.preferences != data.preferences:
                node.preferences = data.preferences
                if node.pk is not None:  # else it is inserted (deferred) with them
                    Node.objects.filter(pk=node.pk).update(preferences=data.preferences)
        elif data.run_id is None:
            self.session.preferences = data.preferences
            self._session_values["preferences"] = data.preferences

    def _observation_recorded(self, data: events.ObservationRecorded, at: datetime) -> None:
        run = self.run(data.run_id) if data.run_id else None
        seen = {
            "git_branch": data.git_branch or "",
            "git_head_sha": data.git_head_sha or "",
            "workspace_path": data.workspace_path or "",
        }
        self._insert(Observation(session=self.session, run=run, created_at=at, **seen))
        if run is not None and not run.start_commit and seen["git_head_sha"]:
            # A run started before run_started recorded its commit: its first observation is where it began.
            run.start_commit = seen["git_head_sha"]
            self._dirty_runs[run.public_id] = run
        self._search_change(data.run_id, at).git = seen
        self.session.git_branch = seen["git_branch"]
        self.session.git_head_sha = seen["git_head_sha"]
        self.session.workspace_path = seen["workspace_path"]
        self._summary_changed = True

    def _gap_recorded(self, data: events.GapRecorded, at: datetime) -> None:
        self._insert(
            Gap(
                run=self.run(data.run_id),
                node=self.node(data.node_id),
                step_id=data.step_id,
                reason=data.reason,
                description=data.description,
                created_at=at,
            )
        )

    def _run_finalized(self, data: events.RunFinalized, at: datetime) -> None:
        self._insert(
            RunSynthesis(
                run=self.run(data.run_id), node=self.node(data.node_id), synthesis=data.synthesis, created_at=at
            )
        )

    def _run_status_changed(self, data: events.RunStatusChanged, at: datetime) -> None:
        self._touch(self.run(data.run_id), at, status=data.to)

    def _run_completed(self, data: events.RunCompleted, at: datetime) -> None:
        run = self.run(data.run_id)
        run.end_commit = data.head_commit or ""
        self._touch(run, at, status=data.to)

    def _warning_recorded(self, data: events.WarningRecorded, at: datetime) -> None:
        """Warnings are read from the log itself; a warning given once per run is remembered on the run."""
        if data.once_key is not None:
            run = self.run(data.run_id)
            run.announced = [*run.announced, data.once_key]
            self._touch(run, at)

    def _session_exported(self, data: events.SessionExported, at: datetime) -> None:
        """A record of sharing only: nothing to project (the dashboard reads it from the log)."""

    def _session_imported(self, data: events.SessionImported, at: datetime) -> None:
        """The imported events before it built the projections; the session now belongs to whoever
        imported it (the event's own actor), never to a name the bundle's events carry: a bundle is a
        file anyone can write, and its owner would decide who may continue the session here."""
        self.session.owner = self._by
        self._session_values["owner"] = self._by
        # Its runs so far were started by chats on another machine, none of this person's chats here: from
        # now on, the run's pages name no chat that started them (agent_message.chat), only activity since.
        Run.objects.filter(session_id=self.session.pk).update(imported_at=at)
        for run in self.runs.values():
            if run.session_id == self.session.pk:
                run.imported_at = at

    def _operator_forked(self, data: events.OperatorForked, at: datetime) -> None:
        """The branch's node is the node_created before it; who forked it and why are read from the log
        (runs/readmodels/forks.py), like warnings."""


assert {f"_{kind.value}" for kind in EventKind} <= set(vars(Projector)), "every event kind needs an applier"
