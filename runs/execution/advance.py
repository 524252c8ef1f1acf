"""continue_workflow with an ackToken: the step acknowledged, the engine advanced, and the new node
answered; or the step blocked, with what to fix and a fresh ackToken.

Tokens are parsed and checked first. Then, in one transaction: `_load` reads what the ack names and
the facts judging it needs, `decide` (runs/execution/ack_decision.py, pure) says what the ack comes to,
and `record` writes that through a Journal, which appends events and applies them to the projections,
and builds the answer from what it wrote. Idempotency rests on the database: one Ack row per attempt
(a unique constraint), written inside an IMMEDIATE transaction on SQLite and under a row lock
elsewhere, so a replayed or concurrent ack returns the recorded answer and never advances twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError

from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.execution import ExecutionAnswer, ExecutionResult
from runs.contract.inputs import ContinueWorkflowInput, StepOutputDict
from runs.execution import delegations
from runs.execution.ack_decision import Advance, Block, Decision, Facts, Loaded, Sent, decide
from runs.execution.answer import OUTCOME_KIND, AnswerAt, AnswerSays, node_response, pending_step
from runs.execution.drafts import draft_issues
from runs.execution.loading import load_attempt, load_pair
from runs.execution.recording import (
    AckRecord,
    NewNode,
    create_node,
    issue_attempt,
    observe,
    record_ack,
    record_warnings,
    set_status,
)
from runs.execution.rehydrate import rehydrate
from runs.execution.replay import replay
from runs.models import AckOutcome, Attempt, Node, Run, RunStatus
from runs.readmodels.synthesis import synthesize
from runs.store import events, ratelimit, tokens
from runs.store.journal import Journal, write
from runs.store.pinned import compiled_workflow
from runs.store.tokens import TokenKind
from workflows_app import engine


@dataclass(frozen=True)
class AckNames:
    """What an ack's tokens name: the node of its stateToken and the attempt of its ackToken."""

    node_id: int
    attempt_id: int


def continue_workflow(request: ContinueWorkflowInput) -> ExecutionAnswer:
    home = settings.WORKRAIL_HOME
    state = tokens.parse(home, request.state_token, TokenKind.STATE)
    ack = tokens.parse(home, request.ack_token, TokenKind.ACK) if request.ack_token is not None else None
    output: StepOutputDict = request.output.as_dict() if request.output is not None else {}
    sent = Sent(request.context or {}, output, request)
    if ack is None:
        ignored = bool(sent.context or output or request.preferences is not None or request.mode is not None)
        return rehydrate(state.id, ignored_input=ignored)
    names = AckNames(state.id, ack.id)
    try:
        return _acknowledge(names, sent)
    except IntegrityError:
        # Another process recorded this ack between our check and our insert (PostgreSQL): answer
        # with what it recorded, like any replay.
        return replay(load_attempt(names.node_id, names.attempt_id).ack, output)


def _acknowledge(names: AckNames, sent: Sent) -> ExecutionAnswer:
    """Load, decide, record: in one transaction, which the journal's session lock serializes."""
    with write() as now:
        node, attempt = load_pair(names.node_id, names.attempt_id)
        existing = getattr(attempt, "ack", None)
        if existing is not None:
            return replay(existing, sent.output)
        run = node.run
        if run.status == RunStatus.CANCELED:
            raise WorkRailError(
                ErrorCode.RUN_CANCELED,
                f"Run {run.public_id} was canceled; it cannot advance.",
                "Start the workflow again with start_workflow if the work should continue.",
            )
        ratelimit.take(f"run:{run.public_id}")
        journal = Journal(run.session, now)
        journal.projector.know(run, node, attempt)
        loaded = _load(node, attempt, sent)
        return record(journal, loaded, sent, decide(loaded, sent))


def _load(node: Node, attempt: Attempt, sent: Sent) -> Loaded:
    """What deciding needs: the pinned workflow, the compiled pending step, and the facts that need the
    store or the disk, each read only where it can matter."""
    run = node.run
    compiled = compiled_workflow(run.pinned_id)
    step = pending_step(run, {"stepId": node.pending_step_id})
    open_delegations = []
    if step is not None and step.get("kind") == "parallel":  # only a parallel step waits for its delegations
        open_delegations = delegations.pending_issues(run, node, engine.pending_view(compiled, node.engine_state))
    forks = node.latest_child_id is not None
    facts = Facts(open_delegations, draft_issues(sent.output.get("artifacts")), node.children.count() if forks else 0)
    return Loaded(node, attempt, compiled, step, facts)


def record(journal: Journal, loaded: Loaded, sent: Sent, decision: Decision) -> ExecutionResult:
    """Writes what `decide` said through the journal, and answers with what was written."""
    if isinstance(decision, Block):
        return _record_block(journal, loaded, sent, decision)
    return _record_advance(journal, loaded, sent, decision)


def _record_block(journal: Journal, loaded: Loaded, sent: Sent, block: Block) -> ExecutionResult:
    """The step is not done: the answer for this ack recorded, a retry ack minted, the run kept in place.
    The context sent with it is not applied either; nextCall repeats it for the retry."""
    run, node = loaded.node.run, loaded.node
    retry = issue_attempt(journal, run, node)
    says = AnswerSays("blocked", block.warnings, {"blocked": block.blocked}, block.context)
    response = node_response(journal, AnswerAt(run, node, retry, block.pending), says)
    record_ack(journal, run, AckRecord(loaded.attempt, None, AckOutcome.BLOCKED, sent.output, response), sent.context)
    set_status(journal, run, RunStatus.BLOCKED)
    journal.flush()
    return response


def _record_advance(journal: Journal, loaded: Loaded, sent: Sent, advance: Advance) -> ExecutionResult:
    """The new node, its delegations, the output, gaps and warnings recorded; then the answer at it."""
    run, node, result, records = loaded.node.run, loaded.node, advance.transition, advance.records
    child, child_attempt = create_node(
        journal, run, NewNode(node, result, records.output_recorded, advance.preferences)
    )
    delegations.spawn(journal, run, child, result.pending)
    completed: Mapping[str, Any] = result.completed or {}
    if records.output_recorded:
        journal.record(
            events.OutputRecorded(
                run_id=run.public_id,
                node_id=node.public_id,
                child_node_id=child.public_id,
                step_id=completed.get("stepId", node.pending_step_id),
                step_title=completed.get("title", ""),
                notes_markdown=sent.output.get("notesMarkdown", ""),
                artifacts=sent.output.get("artifacts", []),
            )
        )
    for dep in records.gaps:  # full_auto_never_stop went past what only the user could give: disclose it
        journal.record(
            events.GapRecorded(
                run_id=run.public_id,
                node_id=child.public_id,
                step_id=node.pending_step_id,
                reason=dep["reason"],
                description=dep["description"],
            )
        )
    record_warnings(journal, run, child, records.warnings)
    observe(journal, run)
    if result.kind == "complete":
        _finalize(journal, run, child)
    says = AnswerSays(OUTCOME_KIND[result.kind], [*records.warnings, *advance.notices], came_from=advance.came_from)
    response = node_response(journal, AnswerAt(run, child, child_attempt, result.pending), says)
    record_ack(journal, run, AckRecord(loaded.attempt, child, AckOutcome(result.kind), sent.output, response))
    set_status(journal, run, RunStatus.COMPLETE if result.kind == "complete" else RunStatus.IN_PROGRESS)
    journal.flush()
    return response


def _finalize(journal: Journal, run: Run, node: Node) -> None:
    """A completed branch gets its synthesis: every note and artifact on its path, in order."""
    journal.record(events.RunFinalized(run_id=run.public_id, node_id=node.public_id, synthesis=synthesize(node)))
