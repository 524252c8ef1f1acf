"""continue_workflow with an ackToken: the step acknowledged, the engine advanced, and the new node
answered; or the step blocked, with what to fix and a fresh ackToken.

Tokens are parsed and checked first; everything that writes happens in one transaction, through a
Journal that appends events and applies them to the projections. Idempotency rests on the
database: one Ack row per attempt (a unique constraint), written inside an IMMEDIATE transaction on
SQLite and under a row lock elsewhere, so a replayed or concurrent ack returns the recorded answer
and never advances twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import IntegrityError

from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.execution import (
    Blocked,
    ExecutionAnswer,
    ExecutionResult,
    IssueDict,
    UserDependencyDict,
    WarningDict,
    engine_issues,
    engine_warnings,
)
from runs.contract.inputs import MAX_RUN_CONTEXT_BYTES, ContinueWorkflowInput, StepOutputDict, json_size
from runs.contract.preferences import resolve
from runs.execution import delegations, modes, placeholders
from runs.execution.answer import OUTCOME_KIND, node_response, pending_step
from runs.execution.drafts import draft_issues
from runs.execution.loading import load_attempt, load_pair
from runs.execution.recording import create_node, issue_attempt, observe, record_ack, record_warnings, set_status
from runs.execution.rehydrate import FILES_NOT_BRANCHED, rehydrate
from runs.execution.replay import replay
from runs.models import AckOutcome, Attempt, Node, Run, RunStatus
from runs.readmodels.synthesis import synthesize
from runs.store import events, ratelimit, tokens
from runs.store.journal import Journal, write
from runs.store.pinned import compiled_workflow
from runs.store.tokens import TokenKind
from workflows_app import engine
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import user_dependencies_of

RETRY = (
    "Fix what the issues say and call continue_workflow with the same stateToken and this new ackToken. "
    "The run stays where it was."
)


def continue_workflow(request: ContinueWorkflowInput) -> ExecutionAnswer:
    home = settings.WORKRAIL_HOME
    state = tokens.parse(home, request.state_token, TokenKind.STATE)
    ack = tokens.parse(home, request.ack_token, TokenKind.ACK) if request.ack_token is not None else None
    context = request.context or {}
    output: StepOutputDict = request.output.as_dict() if request.output is not None else {}
    if ack is None:
        ignored = bool(context or output or request.preferences is not None or request.mode is not None)
        return rehydrate(state.id, ignored_input=ignored)
    try:
        return _advance(state.id, ack.id, context, output, request)
    except IntegrityError:
        # Another process recorded this ack between our check and our insert (PostgreSQL): answer
        # with what it recorded, like any replay.
        return replay(load_attempt(state.id, ack.id).ack, output)


def _advance(
    node_id: int, attempt_id: int, context: JsonObject, output: StepOutputDict, request: ContinueWorkflowInput
) -> ExecutionAnswer:
    with write() as now:
        node, attempt = load_pair(node_id, attempt_id)
        existing = getattr(attempt, "ack", None)
        if existing is not None:
            return replay(existing, output)
        run = node.run
        if run.status == RunStatus.CANCELED:
            raise WorkRailError(
                ErrorCode.RUN_CANCELED,
                f"Run {run.public_id} was canceled; it cannot advance.",
                "Start the workflow again with start_workflow if the work should continue.",
            )
        ratelimit.take(f"run:{run.public_id}")
        effective = resolve(node.preferences, mode=request.mode, preferences=request.preferences)
        journal = Journal(run.session, now)
        journal.projector.know(run, node, attempt)
        compiled = compiled_workflow(run.pinned_id)
        step = pending_step(run, {"stepId": node.pending_step_id})
        # A value still holding nextCall's placeholder is no value: it is never stored, and an unchanged
        # placeholder blocks the step (a user-only dependency's is judged as unmet, below).
        blind = placeholders.placeholder_keys(context)
        applied = {key: value for key, value in context.items() if key not in blind}
        dependency_keys = {dep["contextKey"] for dep in user_dependencies_of(step)}
        issues = placeholders.unchanged_issues(
            output.get("notesMarkdown"), [key for key in blind if key not in dependency_keys], output.get("artifacts")
        )
        merged = {**node.engine_state.get("context", {}), **applied}
        if applied:
            _check_run_context_size(merged)
        missing = modes.unmet(step, merged)
        held_for_user = bool(missing) and modes.blocks_for_user(effective)
        if step is not None and step.get("kind") == "parallel":  # only a parallel step waits for its delegations
            issues += delegations.pending_issues(run, node, engine.pending_view(compiled, node.engine_state))
        issues += draft_issues(output.get("artifacts"))
        if issues or held_for_user:
            output_schema = engine.output_schema(compiled, node.engine_state) if issues else None
            if held_for_user:
                issues += modes.dependency_issues(missing)
            return _blocked(
                journal,
                run,
                node,
                attempt,
                output,
                issues=issues,
                output_schema=output_schema,
                input_schema=modes.context_schema(missing) if held_for_user else None,
                context_needed=missing if held_for_user else None,
                context=context,
            )
        # The engine reads the output as the JSON it is.
        result = engine.advance(compiled, node.engine_state, output=dict(output), context=applied)
        if result.kind == "blocked":
            return _blocked(
                journal,
                run,
                node,
                attempt,
                output,
                engine_warnings(result.warnings),
                # The engine points into `output`; an answer points into the arguments the agent sent.
                issues=engine_issues(result.issues, under="/output"),
                output_schema=result.expected_output_schema,
                context=context,
            )
        recorded = bool(output.get("notesMarkdown") or output.get("artifacts"))
        forks = node.latest_child_id is not None  # an older state acknowledged again: a rewound chat
        child, child_attempt = create_node(journal, run, node, result, notes_recorded=recorded, preferences=effective)
        delegations.spawn(journal, run, child, result.pending)
        completed: Mapping[str, Any] = result.completed or {}
        if recorded:
            journal.record(
                events.OutputRecorded(
                    run_id=run.public_id,
                    node_id=node.public_id,
                    child_node_id=child.public_id,
                    step_id=completed.get("stepId", node.pending_step_id),
                    step_title=completed.get("title", ""),
                    notes_markdown=output.get("notesMarkdown", ""),
                    artifacts=output.get("artifacts", []),
                )
            )
        for dep in missing:  # full_auto_never_stop went past what only the user could give: disclose it
            journal.record(
                events.GapRecorded(
                    run_id=run.public_id,
                    node_id=child.public_id,
                    step_id=node.pending_step_id,
                    reason=dep["reason"],
                    description=dep["description"],
                )
            )
        warnings = [*engine_warnings(result.warnings), *modes.gap_warnings(missing)]
        record_warnings(journal, run, child, warnings)
        warnings += _goal_change_notice(node.engine_state.get("context", {}), applied)
        if forks:
            warnings.append(_new_branch_notice(node, completed.get("title") or node.pending_step_id or "the step"))
        observe(journal, run)
        if result.kind == "complete":
            _finalize(journal, run, child)
        response = node_response(
            journal,
            run,
            child,
            child_attempt,
            result.pending,
            warnings,
            kind=OUTCOME_KIND[result.kind],
            came_from=list(node.engine_state.get("cursor", {}).get("position") or []),
        )
        record_ack(journal, run, attempt, child, AckOutcome(result.kind), output, response)
        set_status(journal, run, RunStatus.COMPLETE if result.kind == "complete" else RunStatus.IN_PROGRESS)
        journal.flush()
        return response


def _new_branch_notice(node: Node, step_title: str) -> WarningDict:
    """Says where an acknowledgement of an older state leaves the agent: on a new branch of its own."""
    total = node.children.count()
    return {
        "code": "BRANCH_STARTED",
        "message": f"This acknowledgement of '{step_title}' started a new branch: you are now on branch {total} "
        f"from that point, and the {total - 1} earlier one(s) are kept unchanged. Go on with the tokens below; "
        "the recap and notes from here on are this branch's own. " + FILES_NOT_BRANCHED,
    }


def _goal_change_notice(before: JsonObject, applied: JsonObject) -> list[WarningDict]:
    """Later answers name the goal in a line ('as shown in full before'): a new goal is shown whole once,
    in the answer to the acknowledgement that set it."""
    goal = applied.get("goal")
    if not isinstance(goal, str) or not goal.strip() or goal == before.get("goal"):
        return []
    return [
        {"code": "GOAL_CHANGED", "message": f"context.goal changed with this acknowledgement. The goal now: {goal}"}
    ]


def _check_run_context_size(merged: JsonObject) -> None:
    """Every node stores the run's whole context: letting it grow without end would grow each new node
    (and the event that records it) without end. Refused before anything is recorded."""
    size = json_size(merged)
    if size > MAX_RUN_CONTEXT_BYTES:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"With this call the run's context would hold {size} bytes; a run's context is limited to "
            f"{MAX_RUN_CONTEXT_BYTES} bytes.",
            "Send only the values the workflow reads (pending.expectedContext); put findings in "
            "output.notesMarkdown or artifacts. Nothing was recorded; the same ackToken still works.",
            details={"pointer": "/context", "limit": MAX_RUN_CONTEXT_BYTES},
        )


def _blocked(
    journal: Journal,
    run: Run,
    node: Node,
    attempt: Attempt,
    output: StepOutputDict,
    warnings: list[WarningDict] | None = None,
    *,
    issues: list[IssueDict],
    output_schema: JsonObject | None,
    input_schema: JsonObject | None = None,
    context_needed: list[UserDependencyDict] | None = None,
    context: JsonObject | None = None,
) -> ExecutionResult:
    """The step is not done: record the answer for this ack, mint a retry ack, keep the run in place.
    The context sent with it is not applied either; nextCall repeats it for the retry. The JSON Schemas
    say what output (and, when the step waits for the user, what context) would pass."""
    retry = issue_attempt(journal, run, node)
    pending = engine.pending_view(compiled_workflow(run.pinned_id), node.engine_state)
    blocked = Blocked.model_validate(
        {
            "issues": issues,
            "expectedOutputSchema": output_schema,
            **({"expectedInputSchema": input_schema} if input_schema is not None else {}),
            "retry": RETRY,
        }
    )
    response = node_response(
        journal,
        run,
        node,
        retry,
        pending,
        warnings or [],
        kind="blocked",
        extra={"blocked": blocked},
        context_needed=context_needed,
        resend_context=context,
    )
    record_ack(journal, run, attempt, None, AckOutcome.BLOCKED, output, response, context=context)
    set_status(journal, run, RunStatus.BLOCKED)
    journal.flush()
    return response


def _finalize(journal: Journal, run: Run, node: Node) -> None:
    """A completed branch gets its synthesis: every note and artifact on its path, in order."""
    journal.record(events.RunFinalized(run_id=run.public_id, node_id=node.public_id, synthesis=synthesize(node)))
