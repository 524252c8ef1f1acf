"""Recording what a use case did, through the session's journal: sessions and runs begun, nodes and
attempts created, acks, warnings, status changes and where in git the work happened."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from runs.contract.execution import ExecutionResult, WarningDict, engine_warnings
from runs.contract.inputs import StepOutputDict
from runs.execution import workspace
from runs.execution.drift import source_stat
from runs.execution.observe import git_observation
from runs.execution.replay import output_digest
from runs.models import AckOutcome, Attempt, Node, Observation, Run, RunStatus, Session
from runs.store import actors, events
from runs.store.journal import Journal, lock_session_key, new_session, random_id
from runs.store.ownership import require_mine
from runs.store.pinned import pin
from runs.store.status import transition as status_transition
from workflows_app.catalog import WorkflowEntry
from workflows_app.engine import Transition
from workflows_app.engine.jsontypes import JsonObject


def session_key_of(context: JsonObject) -> str | None:
    if context.get("sessionKey") not in (None, ""):
        return str(context["sessionKey"])
    if context.get("ticketId") not in (None, ""):
        return f"ticket:{context['ticketId']}"
    return None


def session_title(context: JsonObject, workflow_name: str) -> str:
    """The task's own words when the agent gave its goal; else the ticket or key that groups the work;
    else the workflow's name."""
    for key in ("goal", "ticketId", "sessionKey"):
        value = context.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return " ".join(str(value).split())
    return workflow_name


def journal_for_new_run(context: JsonObject, title: str, now: datetime) -> Journal:
    """A journal on the session a new run joins (by sessionKey or ticketId), or on a new session whose
    preference baseline is a copy of today's global defaults."""
    key = session_key_of(context)
    if key is not None:
        lock_session_key(key)  # until commit: a concurrent start with the same key waits, then joins
    existing = Session.objects.filter(session_key=key).first() if key is not None else None
    if existing is not None:
        require_mine(existing, joining_key=key)  # a run joins its key's session only when the caller may use it
        return Journal(existing, now)
    return open_session(key, session_title(context, title), [], now, kind="workflow")


def open_session(key: str | None, title: str, tags: list[str], now: datetime, *, kind: str) -> Journal:
    session = new_session(now)
    journal = Journal(session, now, new=True)
    journal.record(
        events.SessionCreated(
            session_id=session.public_id,
            session_key=key,
            title=title[:200],
            session_kind=kind,
            tags=tags,
            preferences=dict(settings.WORKRAIL_DEFAULT_PREFERENCES),
        )
    )
    return journal


@dataclass(frozen=True)
class NewNode:
    """A node to create: where the engine moved from `parent` (none for a run's root), whether notes were
    recorded on the way in (it counts them on its path), and the preferences in effect there."""

    parent: Node | None
    result: Transition
    notes_recorded: bool
    preferences: dict[str, str]


def create_node(journal: Journal, run: Run, new: NewNode) -> tuple[Node, Attempt | None]:
    """The node, and an attempt (the ackToken to go on with) when a step is pending there."""
    parent, result, preferences = new.parent, new.result, new.preferences
    node_id = random_id()
    pending = result.pending
    journal.record(
        events.NodeCreated(
            run_id=run.public_id,
            node_id=node_id,
            parent_node_id=parent.public_id if parent else None,
            depth=parent.depth + 1 if parent else 0,
            notes_on_path=(parent.notes_on_path if parent else 0) + (1 if new.notes_recorded else 0),
            engine_state=result.state,
            preferences=preferences,
            pending_step_id=pending["stepId"] if pending else None,
            is_complete=pending is None,
            # Why the engine moved here; a checkpoint's node stays where it was, and has none.
            trace=result.trace if result.trace.entries else None,
        )
    )
    node = journal.projector.node(node_id)
    previous = parent.preferences if parent is not None else run.session.preferences
    if preferences != previous:
        journal.record(
            events.PreferencesChanged(run_id=run.public_id, node_id=node_id, preferences=preferences, previous=previous)
        )
    attempt = issue_attempt(journal, run, node) if pending is not None else None
    return node, attempt


def begin_run(
    journal: Journal,
    entry: WorkflowEntry,
    begun: Transition,
    preferences: dict[str, str],
    *,
    handed_out_by: tuple[Run, Node, int | None] | None = None,
) -> tuple[Run, Node, Attempt | None]:
    """A new run of `entry` in the journal's session: the workflow pinned, `run_started`, the root node
    for the engine's start transition `begun`, its warnings and, when it starts complete, its status.
    `handed_out_by` is (parent run, node, delegation index) for a delegation of a parallel step; its index
    is None for a run the agent linked to a step (start_workflow's parentStateToken)."""
    pin(entry.workflow_hash, entry.id, entry.compiled, journal.now)
    run_id = "run_" + f"{random_id():016x}"
    parent_run, parent_node, index = handed_out_by if handed_out_by is not None else (None, None, None)
    journal.record(
        events.RunStarted(
            run_id=run_id,
            workflow_id=entry.id,
            workflow_name=entry.compiled["name"],
            workflow_hash=entry.workflow_hash,
            source_path=str(entry.path),
            source_stat=source_stat(entry.path),
            parent_run_id=parent_run.public_id if parent_run else None,
            parent_node_id=parent_node.public_id if parent_node else None,
            delegation_index=index,
            head_commit=head_commit(journal),
        )
    )
    run = journal.projector.run(run_id)
    node, attempt = create_node(journal, run, NewNode(None, begun, notes_recorded=False, preferences=preferences))
    record_warnings(journal, run, node, engine_warnings(begun.warnings))
    if begun.kind == "complete":
        set_status(journal, run, RunStatus.COMPLETE)
    return run, node, attempt


def issue_attempt(journal: Journal, run: Run, node: Node) -> Attempt:
    attempt_id = random_id()
    journal.record(events.AttemptIssued(run_id=run.public_id, node_id=node.public_id, attempt_id=attempt_id))
    return journal.projector.attempt(attempt_id)


@dataclass(frozen=True)
class AckRecord:
    """An attempt's acknowledgement: the node it made (none when blocked), how it ended, the output the
    agent sent and the answer given."""

    attempt: Attempt
    child: Node | None
    outcome: AckOutcome
    output: StepOutputDict
    response: ExecutionResult


def record_ack(journal: Journal, run: Run, ack: AckRecord, context: JsonObject | None = None) -> None:
    """The answer to an attempt. A refused one also keeps what the agent sent (its output and `context`),
    in short (the refused call itself is recorded nowhere else), for the developer reading why the step
    is blocked."""
    attempt, child, outcome, output = ack.attempt, ack.child, ack.outcome, ack.output
    journal.record(
        events.StepAcked(
            run_id=run.public_id,
            node_id=attempt.node.public_id,
            attempt_id=attempt.public_id,
            child_node_id=child.public_id if child else None,
            outcome=outcome.value,
            output_digest=output_digest(output),
            response=json.dumps(ack.response.dump(), ensure_ascii=False),
            refused=refused_summary(output, context) if outcome == AckOutcome.BLOCKED else None,
        )
    )


REFUSED_NOTES_CHARS = 600  # a preview: the refused notes are the agent's draft, not its record


def refused_summary(output: StepOutputDict, context: JsonObject | None) -> JsonObject:
    """What a refused call sent, in short: the start of its notes, its artifacts' kinds, its context keys."""
    notes = output.get("notesMarkdown") or ""
    preview = notes[:REFUSED_NOTES_CHARS] + ("…" if len(notes) > REFUSED_NOTES_CHARS else "")
    kinds = [str(a.get("kind")) for a in output.get("artifacts") or [] if isinstance(a, dict) and a.get("kind")]
    return {
        "notesPreview": preview,
        "artifactKinds": kinds,
        "artifactCount": len(output.get("artifacts") or []),
        "contextKeys": sorted(str(key) for key in (context or {})),
    }


def record_warnings(journal: Journal, run: Run, node: Node, warnings: list[WarningDict]) -> None:
    for warning in warnings:
        journal.record(
            events.WarningRecorded(
                run_id=run.public_id, node_id=node.public_id, code=warning["code"], message=warning["message"]
            )
        )


def once_per_run(journal: Journal, run: Run, node: Node, warnings: list[WarningDict]) -> list[WarningDict]:
    """The warnings of `warnings` this run has not been given yet, recorded as given. For warnings that
    would otherwise repeat on every answer (a mode above the workflow's recommendation, a changed
    workflow file): once said, they are history, not news. A different message is a new warning."""
    fresh: list[WarningDict] = []
    given = set(run.announced)
    for warning in warnings:
        key = warning["code"] + ":" + hashlib.sha256(warning["message"].encode()).hexdigest()[:16]
        if key in given:
            continue
        given.add(key)
        journal.record(
            events.WarningRecorded(
                run_id=run.public_id,
                node_id=node.public_id,
                code=warning["code"],
                message=warning["message"],
                once_key=key,
            )
        )
        fresh.append(warning)
    return fresh


def set_status(journal: Journal, run: Run, target: RunStatus) -> None:
    new = status_transition(run.status, target)
    if new is None:
        return
    if new == RunStatus.COMPLETE:
        journal.record(
            events.RunCompleted(
                run_id=run.public_id, from_status=run.status, to=new.value, head_commit=head_commit(journal)
            )
        )
        return
    journal.record(events.RunStatusChanged(run_id=run.public_id, from_status=run.status, to=new.value))


def head_commit(journal: Journal) -> str | None:
    """The commit HEAD is at in the session's workspace (as `observe` reads it), for a run's start and end;
    None outside git, on a branch with no commit yet, and for a call from another machine (whose project
    this server cannot see)."""
    if actors.current().remote:
        return None
    seen = git_observation(workspace.of_session(journal.session.workspace_path))
    return (seen["gitHeadSha"] or None) if seen is not None else None


_last_observed: dict[str, tuple[str, str, str]] = {}


def observe(journal: Journal, run: Run) -> None:
    """Records the git branch and HEAD of the call's workspace (runs/execution/workspace.py) when the
    run starts and whenever they changed since. Not for a request from another machine (over HTTP): the
    server cannot see the client's project, and no directory here is it."""
    if actors.current().remote:
        return
    seen = git_observation(workspace.of_session(journal.session.workspace_path))
    if seen is None:
        return
    current = (seen["gitBranch"], seen["gitHeadSha"], seen["workspacePath"])
    if run.public_id not in _last_observed and not journal.projector.started(run):  # a new run has none
        last = (
            Observation.objects.filter(run=run)
            .order_by("-pk")
            .values_list("git_branch", "git_head_sha", "workspace_path")
            .first()
        )
        if last is not None:
            _last_observed[run.public_id] = last
    if _last_observed.get(run.public_id) == current:
        return
    journal.record(
        events.ObservationRecorded(
            run_id=run.public_id,
            git_branch=seen["gitBranch"],
            git_head_sha=seen["gitHeadSha"],
            workspace_path=seen["workspacePath"],
        )
    )
    _last_observed[run.public_id] = current
