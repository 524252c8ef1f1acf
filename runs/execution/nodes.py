"""Shared building blocks of the execution use cases: loading what tokens name, creating nodes and
attempts through the journal, status changes, observations, and the response for a node."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import OperationalError, transaction
from django.utils import timezone

from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.execution import Pending
from runs.contract.features import find_lost_run
from runs.contract.preferences import recommendation_warnings
from runs.execution import modes
from runs.execution.drift import drift_warnings, source_stat
from runs.execution.observe import git_observation
from runs.execution.output import output_digest
from runs.execution.responses import execution_response
from runs.models import Ack, AckOutcome, Attempt, Node, Observation, Run, RunStatus, Session
from runs.readmodels.recap import branch_tip
from runs.store import events, tokens
from runs.store.journal import Journal, lock_session_key, new_session, random_id
from runs.store.pinned import compiled_workflow, pin, steps_by_id
from runs.store.statements import SelectOne
from runs.store.status import transition as status_transition
from runs.store.tokens import TokenKind
from workflows_app import engine
from workflows_app.catalog import WorkflowEntry
from workflows_app.engine import Transition


@contextmanager
def write() -> Iterator[datetime]:
    """A write transaction and its timestamp; a lock time-out becomes a retryable error, not a crash."""
    try:
        with transaction.atomic():
            yield timezone.now()
    except OperationalError as exc:
        if "locked" not in str(exc):
            raise
        raise WorkRailError(
            ErrorCode.STORE_BUSY,
            "The WorkRail database is busy.",
            "Retry the same call in a moment; nothing was recorded.",
            retryable=True,
        ) from exc


_node_by_id = SelectOne(lambda node_id: Node.objects.select_related("run__session").filter(public_id=node_id))
# An ack's attempt with its node, run, session and (when it was used) its ack, in one compiled query.
_attempt_by_id = SelectOne(
    lambda attempt_id: Attempt.objects.select_related("node__run__session", "ack").filter(public_id=attempt_id)
)


def load_node(node_id: int) -> Node:
    node = _node_by_id.get(node_id)
    # A node an import is still writing keeps the bundle's id: a token minted for that id here before
    # (a session exported, deleted, then imported back) must not reach it until it is published.
    if node is None or node.run.session.importing:
        raise WorkRailError(
            ErrorCode.TOKEN_UNKNOWN,
            "This stateToken names a snapshot this store does not have.",
            f"Use a stateToken from this machine's WorkRail, or {find_lost_run()}.",
        )
    return node


def load_attempt(node_id: int, attempt_id: int) -> Attempt:
    try:
        attempt = Attempt.objects.select_related("node", "ack").get(public_id=attempt_id)
    except Attempt.DoesNotExist:
        raise WorkRailError(
            ErrorCode.TOKEN_UNKNOWN,
            "This ackToken names an attempt this store does not have.",
            "Call continue_workflow with only the stateToken to get a valid ackToken.",
        ) from None
    if attempt.node.public_id != node_id:
        node = Node.objects.filter(public_id=node_id).only("run_id").first()
        same_run = node is not None and node.run_id == attempt.node.run_id
        where = "another step of the same run" if same_run else "another run"
        raise WorkRailError(
            ErrorCode.TOKEN_SCOPE_MISMATCH,
            f"This ackToken belongs to {where}, not to the snapshot named by the stateToken.",
            "Send the stateToken and ackToken that were returned together, or call continue_workflow with only "
            "the stateToken to get a matching ackToken.",
        )
    return attempt


def load_pair(node_id: int, attempt_id: int) -> tuple[Node, Attempt]:
    """The node and attempt an ack names, in one query when they match (the usual case); otherwise the
    separate lookups say which token is unknown or out of scope."""
    attempt = _attempt_by_id.get(attempt_id)
    if attempt is not None and attempt.node.public_id == node_id:
        return attempt.node, attempt
    node = load_node(node_id)  # raises when the stateToken names nothing
    return node, load_attempt(node_id, attempt_id)  # raises: unknown, or another node's ack


def session_key_of(context: dict[str, Any]) -> str | None:
    if context.get("sessionKey") not in (None, ""):
        return str(context["sessionKey"])
    if context.get("ticketId") not in (None, ""):
        return f"ticket:{context['ticketId']}"
    return None


def session_title(context: dict[str, Any], workflow_name: str) -> str:
    """The task's own words when the agent gave its goal; else the ticket or key that groups the work;
    else the workflow's name."""
    for key in ("goal", "ticketId", "sessionKey"):
        value = context.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return " ".join(str(value).split())
    return workflow_name


def journal_for_new_run(context: dict[str, Any], title: str, now: datetime) -> Journal:
    """A journal on the session a new run joins (by sessionKey or ticketId), or on a new session whose
    preference baseline is a copy of today's global defaults."""
    key = session_key_of(context)
    if key is not None:
        lock_session_key(key)  # until commit: a concurrent start with the same key waits, then joins
    existing = Session.objects.filter(session_key=key).first() if key is not None else None
    if existing is not None:
        return Journal(existing, now)
    return open_session(key, session_title(context, title), [], now, kind="workflow")


def open_session(key: str | None, title: str, tags: list[str], now: datetime, *, kind: str) -> Journal:
    session = new_session(now)
    journal = Journal(session, now)
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


def create_node(
    journal: Journal,
    run: Run,
    parent: Node | None,
    result: Transition,
    *,
    notes_recorded: bool,
    preferences: dict[str, str],
) -> tuple[Node, Attempt | None]:
    node_id = random_id()
    pending = result.pending
    journal.record(
        events.NodeCreated(
            run_id=run.public_id,
            node_id=node_id,
            parent_node_id=parent.public_id if parent else None,
            depth=parent.depth + 1 if parent else 0,
            notes_on_path=(parent.notes_on_path if parent else 0) + (1 if notes_recorded else 0),
            engine_state=result.state,
            preferences=preferences,
            pending_step_id=pending["stepId"] if pending else None,
            is_complete=pending is None,
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
    handed_out_by: tuple[Run, Node, int] | None = None,
) -> tuple[Run, Node, Attempt | None]:
    """A new run of `entry` in the journal's session: the workflow pinned, `run_started`, the root node
    for the engine's start transition `begun`, its warnings and, when it starts complete, its status.
    `handed_out_by` is (parent run, node, delegation index) for a delegation of a parallel step."""
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
        )
    )
    run = journal.projector.run(run_id)
    node, attempt = create_node(journal, run, None, begun, notes_recorded=False, preferences=preferences)
    record_warnings(journal, run, node, begun.warnings)
    if begun.kind == "complete":
        set_status(journal, run, RunStatus.COMPLETE)
    return run, node, attempt


def issue_attempt(journal: Journal, run: Run, node: Node) -> Attempt:
    attempt_id = random_id()
    journal.record(events.AttemptIssued(run_id=run.public_id, node_id=node.public_id, attempt_id=attempt_id))
    return journal.projector.attempt(attempt_id)


def record_ack(
    journal: Journal,
    run: Run,
    attempt: Attempt,
    child: Node | None,
    outcome: AckOutcome,
    output: dict[str, Any],
    response: dict[str, Any],
) -> None:
    journal.record(
        events.StepAcked(
            run_id=run.public_id,
            node_id=attempt.node.public_id,
            attempt_id=attempt.public_id,
            child_node_id=child.public_id if child else None,
            outcome=outcome.value,
            output_digest=output_digest(output),
            response=json.dumps(response, ensure_ascii=False),
        )
    )


def record_warnings(journal: Journal, run: Run, node: Node, warnings: list[dict[str, Any]]) -> None:
    for warning in warnings:
        journal.record(
            events.WarningRecorded(
                run_id=run.public_id, node_id=node.public_id, code=warning["code"], message=warning["message"]
            )
        )


def once_per_run(journal: Journal, run: Run, node: Node, warnings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The warnings of `warnings` this run has not been given yet, recorded as given. For warnings that
    would otherwise repeat on every answer (a mode above the workflow's recommendation, a changed
    workflow file): once said, they are history, not news. A different message is a new warning."""
    fresh = []
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
    change = events.RunCompleted if new == RunStatus.COMPLETE else events.RunStatusChanged
    journal.record(change(run_id=run.public_id, from_status=run.status, to=new.value))


_last_observed: dict[str, tuple[str, str, str]] = {}


def observe(journal: Journal, run: Run) -> None:
    """Records the git branch and HEAD when the run starts and whenever they changed since."""
    seen = git_observation(settings.WORKRAIL_PROJECT_DIR)
    if seen is None:
        return
    current = (seen["gitBranch"], seen["gitHeadSha"], seen["workspacePath"])
    if run.public_id not in _last_observed:
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


def pending_step(run: Run, pending: dict[str, Any] | None) -> dict[str, Any] | None:
    return steps_by_id(run.pinned_id).get(pending["stepId"]) if pending else None


def node_response(
    journal: Journal,
    run: Run,
    node: Node,
    attempt: Attempt | None,
    pending: dict[str, Any] | None,
    warnings: list[dict[str, Any]],
    *,
    kind: str,
    extra: dict[str, Any] | None = None,
    context_needed: list[dict[str, Any]] | None = None,
    resend_context: dict[str, Any] | None = None,
    came_from: list[int] | None = None,
) -> dict[str, Any]:
    """The answer for `node` as a JSON object, with its pending step shaped by the node's preferences
    and the context it expects. Warnings that hold for the whole run are given once (once_per_run)."""
    home = settings.WORKRAIL_HOME
    preferences = node.preferences
    compiled = compiled_workflow(run.pinned_id)
    context = node.engine_state.get("context", {})
    step = pending_step(run, pending)
    if pending is not None and pending.get("delegations"):
        from runs.execution.delegations import with_runs  # delegations build on this module

        pending = with_runs(run, node, pending)
    shaped = modes.shape_pending(pending, step, preferences, context)
    if shaped is not None:
        dependency_keys = {dep["contextKey"] for dep in (step or {}).get("userDependencies", [])}
        expected = [e for e in engine.expected_context(compiled, node.engine_state) if e["key"] not in dependency_keys]
        if expected:
            shaped["expectedContext"] = expected
    steady = [*drift_warnings(run), *recommendation_warnings(compiled, preferences), *left_out_warnings(compiled)]
    goal = context.get("goal")
    if isinstance(goal, str) and goal.strip() and shaped is not None:
        extra = {**(extra or {}), "goal": goal}  # the task in the user's words, with every step
    response = execution_response(
        kind=kind,
        run=run,
        state_token=tokens.mint(home, TokenKind.STATE, node.public_id),
        ack_token=tokens.mint(home, TokenKind.ACK, attempt.public_id) if attempt is not None else None,
        pending=Pending.model_validate(shaped) if shaped is not None else None,
        completed_steps=node.engine_state.get("completedSteps", 0),
        step_count=engine.step_count(compiled),
        outline=(list(node.engine_state.get("cursor", {}).get("position") or []), engine.outline_length(compiled)),
        came_from=came_from,
        warnings=[*warnings, *once_per_run(journal, run, node, steady)],
        preferences=preferences,
        extra=extra,
        context_needed=context_needed,
        resend_context=resend_context,
        compiled=compiled,
    )
    return response.dump()


def left_out_warnings(compiled: dict[str, Any]) -> list[dict[str, Any]]:
    """What the loader had to leave out of the workflow (a reference this build cannot resolve that does
    not change the control flow): said once per run, so the agent knows the prompts lack it."""
    left = compiled.get("leftOut") or []
    if not left:
        return []
    names = "; ".join(f"{item['kind']} '{item['name']}' at {item['pointer']}" for item in left)
    return [
        {
            "code": "REFERENCES_LEFT_OUT",
            "message": f"This workflow names things this WorkRail does not provide, and runs without them: {names}. "
            "Its prompts may mention them; do what the step asks with what you have.",
        }
    ]


def replay(ack: Ack, output: dict[str, Any]) -> dict[str, Any]:
    response: dict[str, Any] = json.loads(ack.response_json)
    if output_digest(output) != ack.output_digest:
        state = tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, ack.node.public_id)
        again = json.dumps({"stateToken": state})
        response["warnings"] = [
            {  # first: an answer shaped like success must not hide that nothing new was kept
                "code": "REPLAY_OUTPUT_IGNORED",
                "message": "Nothing you sent with this call was recorded (output, context, preferences). "
                "This stateToken and ackToken were acknowledged "
                "before, so this is a replay: the answer below is the one recorded then, on the branch that "
                "acknowledgement started. To record this different work as a new branch from that point, "
                f"call continue_workflow {again} (no ackToken) for a fresh ackToken, then send your output "
                "with it.",
            },
            *response["warnings"],
        ]
    return response


def branch_summary(child: Node) -> dict[str, Any]:
    tip = branch_tip(child)
    output = child.incoming_outputs.first()
    checkpoint = None if output else child.checkpoints_made.first()
    notes = output.notes_markdown if output else (checkpoint.notes_markdown if checkpoint else "")
    return {
        "stateToken": tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, child.public_id),
        "completedStepId": output.step_id if output else None,
        "via": "step" if output else "checkpoint",
        "notesPreview": notes[:280] + ("…" if len(notes) > 280 else ""),
        "createdAt": child.created_at.isoformat(),
        "isComplete": child.is_complete,
        "pendingStepId": child.pending_step_id or None,
        "tipStateToken": tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, tip.public_id),
        "tipPendingStepId": tip.pending_step_id or None,
        "tipIsComplete": tip.is_complete,
    }
