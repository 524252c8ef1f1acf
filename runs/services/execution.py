"""The contract's execution use cases: start_workflow and continue_workflow.

Tokens are parsed and checked first; everything that writes happens in one transaction, through a
Journal that appends events and applies them to the projections. Idempotency rests on the
database: one Ack row per attempt (a unique constraint), written inside an IMMEDIATE transaction on
SQLite and under a row lock elsewhere, so a replayed or concurrent ack returns the recorded answer
and never advances twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, OperationalError, transaction
from django.utils import timezone

from runs import tokens
from runs.errors import ErrorCode, WorkRailError
from runs.eventlog import Journal, new_session, random_id
from runs.models import Ack, AckOutcome, Attempt, EventKind, Node, PinnedWorkflow, Run, RunStatus, Session
from runs.services import recap
from runs.services.catalog import current_catalog, find_workflow
from runs.services.drift import drift_warnings, source_stat
from runs.services.output import check_context, check_output, output_digest
from runs.services.pinned import compiled_workflow
from runs.services.responses import execution_response
from runs.status import transition as status_transition
from runs.tokens import TokenKind
from workflows_app import engine
from workflows_app.engine import Transition

OUTCOME_KIND = {"advanced": "step", "complete": "complete", "blocked": "blocked"}


def start_workflow(workflowId: str, context: dict[str, Any] | None = None) -> dict[str, Any]:
    context = check_context(context)
    entry = find_workflow(current_catalog(), workflowId)
    begun = engine.start(entry.compiled, context)
    with _write() as now:
        PinnedWorkflow.objects.get_or_create(
            workflow_hash=entry.workflow_hash,
            defaults={"workflow_id": entry.id, "compiled": entry.compiled, "created_at": now},
        )
        journal = _journal_for_new_run(context, entry.compiled["name"], now)
        run_id = "run_" + f"{random_id():016x}"
        journal.record(
            EventKind.RUN_STARTED,
            {
                "runId": run_id,
                "workflowId": entry.id,
                "workflowName": entry.compiled["name"],
                "workflowHash": entry.workflow_hash,
                "sourcePath": str(entry.path),
                "sourceStat": source_stat(entry.path),
            },
        )
        run = journal.projector.run(run_id)
        node, attempt = _create_node(journal, run, None, begun, notes_recorded=False)
        _record_warnings(journal, run, node, begun.warnings)
        if begun.kind == "complete":
            _set_status(journal, run, RunStatus.COMPLETE)
        journal.flush()
        return _node_response(run, node, attempt, begun.pending, begun.warnings, kind=OUTCOME_KIND[begun.kind])


def continue_workflow(
    stateToken: str,
    ackToken: str | None = None,
    context: dict[str, Any] | None = None,
    output: dict[str, Any] | None = None,
) -> dict[str, Any]:
    home = settings.WORKRAIL_HOME
    state = tokens.parse(home, stateToken, TokenKind.STATE)
    ack = tokens.parse(home, ackToken, TokenKind.ACK) if ackToken is not None else None
    context = check_context(context)
    output = check_output(output)
    if ack is None:
        return rehydrate(state.id, context_given=bool(context), output_given=bool(output))
    try:
        return _advance(state.id, ack.id, context, output)
    except IntegrityError:
        # Another process recorded this ack between our check and our insert (PostgreSQL): answer
        # with what it recorded, like any replay.
        return _replay(_attempt_for(state.id, ack.id).ack, output)


def _advance(node_id: int, attempt_id: int, context: dict[str, Any], output: dict[str, Any]) -> dict[str, Any]:
    with _write() as now:
        node = _node(node_id)
        attempt = _attempt_for(node_id, attempt_id)
        existing = getattr(attempt, "ack", None)
        if existing is not None:
            return _replay(existing, output)
        run = node.run
        if run.status == RunStatus.CANCELED:
            raise WorkRailError(
                ErrorCode.RUN_CANCELED,
                f"Run {run.public_id} was canceled; it cannot advance.",
                "Start the workflow again with start_workflow if the work should continue.",
            )
        result = engine.advance(compiled_workflow(run.pinned_id), node.engine_state, output=output, context=context)
        warnings = [*drift_warnings(run), *result.warnings]
        journal = Journal(run.session, now)
        journal.projector.know(run, node, attempt)
        if result.kind == "blocked":
            retry = _issue_attempt(journal, run, node)
            response = _node_response(
                run,
                node,
                retry,
                result.pending,
                warnings,
                kind="blocked",
                extra={
                    "blocked": {
                        "issues": result.issues,
                        "expectedOutputSchema": result.expected_output_schema,
                        "retry": "Fix the output as the issues say and call continue_workflow with the same "
                        "stateToken and this new ackToken. The run stays where it was.",
                    },
                },
            )
            _record_ack(journal, run, attempt, None, AckOutcome.BLOCKED, output, response)
            _set_status(journal, run, RunStatus.BLOCKED)
            journal.flush()
            return response
        recorded = bool(output.get("notesMarkdown") or output.get("artifacts"))
        child, child_attempt = _create_node(journal, run, node, result, notes_recorded=recorded)
        if recorded:
            completed = result.completed or {}
            journal.record(
                EventKind.OUTPUT_RECORDED,
                {
                    "runId": run.public_id,
                    "nodeId": node.public_id,
                    "childNodeId": child.public_id,
                    "stepId": completed.get("stepId", node.pending_step_id),
                    "stepTitle": completed.get("title", ""),
                    "notesMarkdown": output.get("notesMarkdown", ""),
                    "artifacts": output.get("artifacts", []),
                },
            )
        _record_warnings(journal, run, child, result.warnings)
        response = _node_response(run, child, child_attempt, result.pending, warnings, kind=OUTCOME_KIND[result.kind])
        _record_ack(journal, run, attempt, child, AckOutcome(result.kind), output, response)
        _set_status(journal, run, RunStatus.COMPLETE if result.kind == "complete" else RunStatus.IN_PROGRESS)
        journal.flush()
        return response


def rehydrate(node_id: int, *, context_given: bool = False, output_given: bool = False) -> dict[str, Any]:
    """Without an ackToken: nothing advances. The pending step again, what was recorded before it,
    and, when the node already has children, the branches that grew from it."""
    notices = []
    if context_given or output_given:
        notices.append(
            {
                "code": "IGNORED_WITHOUT_ACK",
                "message": "context and output are only used with an "
                "ackToken; nothing was recorded. Send them again with the ackToken below.",
            }
        )
    with _write() as now:
        node = _node(node_id)
        run = node.run
        children = list(node.children.order_by("created_at", "pk"))
        attempt = None
        if not node.is_complete:
            attempt = node.attempts.filter(ack__isnull=True).order_by("-created_at", "-pk").first()
            if attempt is None:  # every ack of this node was used: mint a fresh one (it will fork)
                journal = Journal(run.session, now)
                journal.projector.know(run, node)
                attempt = _issue_attempt(journal, run, node)
                journal.flush()
        pending = engine.pending_view(compiled_workflow(run.pinned_id), node.engine_state)
        extra: dict[str, Any] = {"recap": recap.path_recap(node), "rehydrated": True}
        if children:
            extra["branches"] = [_branch_summary(child) for child in children]
            preferred = next((c for c in children if c.pk == node.latest_child_id), children[-1])
            extra["downstreamRecap"] = recap.downstream_recap(preferred)
            extra["fork"] = (
                f"This point already has {len(children)} branch(es). Acknowledging with the ackToken "
                "below starts a new branch beside them; nothing on the existing branches is lost."
            )
        kind = "complete" if node.is_complete else "step"
        return _node_response(run, node, attempt, pending, [*drift_warnings(run), *notices], kind=kind, extra=extra)


def cancel_run(run_id: str) -> None:
    """Stops a run for good (the dashboard's cancel); its tokens then answer RUN_CANCELED."""
    with _write() as now:
        run = Run.objects.select_related("session").filter(public_id=run_id).first()
        if run is None:
            raise WorkRailError(ErrorCode.INVALID_INPUT, f"No run has the id '{run_id}'.", "Check the run id.")
        journal = Journal(run.session, now)
        journal.projector.know(run)
        _set_status(journal, run, RunStatus.CANCELED)
        journal.flush()


# --- helpers -------------------------------------------------------------------------------------------


@contextmanager
def _write() -> Iterator[datetime]:
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


def _node(node_id: int) -> Node:
    try:  # get(), not first(): no ORDER BY to compile on the hot path
        return Node.objects.select_related("run__session").get(public_id=node_id)
    except Node.DoesNotExist:
        raise WorkRailError(
            ErrorCode.TOKEN_UNKNOWN,
            "This stateToken names a snapshot this store does not have.",
            "Use a stateToken from this machine's WorkRail, or find the run with resume_session.",
        ) from None


def _attempt_for(node_id: int, attempt_id: int) -> Attempt:
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


def _journal_for_new_run(context: dict[str, Any], workflow_name: str, now: datetime) -> Journal:
    """A journal on the session a new run joins (by sessionKey or ticketId), or on a new session."""
    key = None
    if context.get("sessionKey") not in (None, ""):
        key = str(context["sessionKey"])
    elif context.get("ticketId") not in (None, ""):
        key = f"ticket:{context['ticketId']}"
    existing = Session.objects.filter(session_key=key).first() if key is not None else None
    if existing is not None:
        return Journal(existing, now)
    session = new_session(now)
    journal = Journal(session, now)
    title = str(context.get("ticketId") or context.get("sessionKey") or workflow_name)[:200]
    journal.record(EventKind.SESSION_CREATED, {"sessionId": session.public_id, "sessionKey": key, "title": title})
    return journal


def _create_node(
    journal: Journal, run: Run, parent: Node | None, result: Transition, *, notes_recorded: bool
) -> tuple[Node, Attempt | None]:
    node_id = random_id()
    pending = result.pending
    journal.record(
        EventKind.NODE_CREATED,
        {
            "runId": run.public_id,
            "nodeId": node_id,
            "parentNodeId": parent.public_id if parent else None,
            "depth": parent.depth + 1 if parent else 0,
            "notesOnPath": (parent.notes_on_path if parent else 0) + (1 if notes_recorded else 0),
            "engineState": result.state,
            "preferences": {},
            "pendingStepId": pending["stepId"] if pending else None,
            "isComplete": pending is None,
        },
    )
    node = journal.projector.node(node_id)
    attempt = _issue_attempt(journal, run, node) if pending is not None else None
    return node, attempt


def _issue_attempt(journal: Journal, run: Run, node: Node) -> Attempt:
    attempt_id = random_id()
    journal.record(
        EventKind.ATTEMPT_ISSUED, {"runId": run.public_id, "nodeId": node.public_id, "attemptId": attempt_id}
    )
    return journal.projector.attempt(attempt_id)


def _record_ack(
    journal: Journal,
    run: Run,
    attempt: Attempt,
    child: Node | None,
    outcome: AckOutcome,
    output: dict[str, Any],
    response: dict[str, Any],
) -> None:
    journal.record(
        EventKind.STEP_ACKED,
        {
            "runId": run.public_id,
            "nodeId": attempt.node.public_id,
            "attemptId": attempt.public_id,
            "childNodeId": child.public_id if child else None,
            "outcome": outcome.value,
            "outputDigest": output_digest(output),
            "response": json.dumps(response, ensure_ascii=False),
        },
    )


def _record_warnings(journal: Journal, run: Run, node: Node, warnings: list[dict[str, Any]]) -> None:
    for warning in warnings:
        journal.record(EventKind.WARNING_RECORDED, {"runId": run.public_id, "nodeId": node.public_id, **warning})


def _set_status(journal: Journal, run: Run, target: RunStatus) -> None:
    new = status_transition(run.status, target)
    if new is None:
        return
    kind = EventKind.RUN_COMPLETED if new == RunStatus.COMPLETE else EventKind.RUN_STATUS_CHANGED
    journal.record(kind, {"runId": run.public_id, "from": run.status, "to": new.value})


def _replay(ack: Ack, output: dict[str, Any]) -> dict[str, Any]:
    response: dict[str, Any] = json.loads(ack.response_json)
    if output_digest(output) != ack.output_digest:
        response["warnings"] = [
            *response["warnings"],
            {
                "code": "REPLAY_OUTPUT_IGNORED",
                "message": "This stateToken and ackToken were already acknowledged, so this is a replay: the answer "
                "recorded then is returned and the new output was not recorded. To record different work "
                "from that point, call continue_workflow with only the stateToken: it returns a fresh "
                "ackToken, and acknowledging it starts a new branch.",
            },
        ]
    return response


def _node_response(
    run: Run,
    node: Node,
    attempt: Attempt | None,
    pending: dict[str, Any] | None,
    warnings: list[dict[str, Any]],
    *,
    kind: str,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    home = settings.WORKRAIL_HOME
    return execution_response(
        kind=kind,
        run=run,
        state_token=tokens.mint(home, TokenKind.STATE, node.public_id),
        ack_token=tokens.mint(home, TokenKind.ACK, attempt.public_id) if attempt is not None else None,
        pending=pending,
        completed_steps=node.engine_state.get("completedSteps", 0),
        warnings=warnings,
        extra=extra,
    )


def _branch_summary(child: Node) -> dict[str, Any]:
    output = child.incoming_outputs.first()
    notes = output.notes_markdown if output else ""
    return {
        "stateToken": tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, child.public_id),
        "completedStepId": output.step_id if output else None,
        "notesPreview": notes[:280] + ("…" if len(notes) > 280 else ""),
        "createdAt": child.created_at.isoformat(),
        "isComplete": child.is_complete,
        "pendingStepId": child.pending_step_id or None,
    }
