"""What an acknowledgement (continue_workflow with an ackToken) comes to, decided without writing.

`decide` is pure: given what was loaded for the ack (`Loaded`) and what the agent sent (`Sent`), it
says what to record and what to answer, as a typed value: `Block` (the step stays pending; the answer
says why, with a fresh ackToken) or `Advance` (the engine moved on; the node, notes, gaps and warnings
to record, and the notices the answer adds). runs/execution/advance.py loads, then records the
decision through the session's journal. Whatever needs the store or the disk (a parallel step's open
delegations, a draft workflow's file checks, the branches already grown from the node) is read before,
into `Facts`, so that deciding reads nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.execution import (
    Blocked,
    IssueDict,
    UserDependencyDict,
    WarningDict,
    engine_issues,
    engine_warnings,
)
from runs.contract.inputs import MAX_RUN_CONTEXT_BYTES, ContinueWorkflowInput, StepOutputDict, json_size
from runs.contract.preferences import resolve
from runs.execution import modes, placeholders
from runs.execution.rehydrate import FILES_NOT_BRANCHED
from runs.execution.responses import ContextToSend
from runs.models import Attempt, Node
from workflows_app import engine
from workflows_app.engine import Transition
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import CompiledStep, CompiledWorkflow, PendingView, user_dependencies_of

RETRY = (
    "Fix what the issues say and call continue_workflow with the same stateToken and this new ackToken. "
    "The run stays where it was."
)


@dataclass(frozen=True)
class Facts:
    """What judging an ack needs from outside the loaded rows: the issues of a parallel step's delegations
    whose runs are not complete, the problems of a draft workflow sent as an artifact (its file checks),
    and how many branches already grew from the node (an ack of an older state starts one more)."""

    delegation_issues: list[IssueDict]
    draft_issues: list[IssueDict]
    branches: int


@dataclass(frozen=True)
class Loaded:
    """An ack's node and attempt (their run is node.run), the pinned workflow and its compiled pending
    step (None when none), and the facts read for it."""

    node: Node
    attempt: Attempt
    compiled: CompiledWorkflow
    step: CompiledStep | None
    facts: Facts


@dataclass(frozen=True)
class Sent:
    """What the agent sent with the ack: context and output, and the request for its mode and preferences."""

    context: JsonObject
    output: StepOutputDict
    request: ContinueWorkflowInput


@dataclass(frozen=True)
class Block:
    """The step stays pending: why (`blocked`, the answer's section), warnings to say, the context the retry
    must carry (what was sent is not applied; what only the user can give), and the engine's view of the
    step, to show it again."""

    blocked: Blocked
    warnings: list[WarningDict]
    context: ContextToSend
    pending: PendingView | None


@dataclass(frozen=True)
class Records:
    """What an advance records besides the new node: whether the output holds notes or artifacts, the
    user-only values the run went past (gaps, full_auto_never_stop), and the warnings kept with the node."""

    output_recorded: bool
    gaps: list[UserDependencyDict]
    warnings: list[WarningDict]


@dataclass(frozen=True)
class Advance:
    """The engine moved on: its transition, the preferences in effect from the new node, what to record,
    the notices the answer adds (said, not recorded), and the acknowledged step's place in the outline."""

    transition: Transition
    preferences: dict[str, str]
    records: Records
    notices: list[WarningDict]
    came_from: list[int]


type Decision = Block | Advance


def decide(loaded: Loaded, sent: Sent) -> Decision:
    """What this ack comes to. Raises WorkRailError for a call that records nothing (a context too large)."""
    node, step, context, output = loaded.node, loaded.step, sent.context, sent.output
    effective = resolve(node.preferences, mode=sent.request.mode, preferences=sent.request.preferences)
    # A value still holding nextCall's placeholder is no value: it is never stored, and an unchanged
    # placeholder blocks the step (a user-only dependency's is judged as unmet, below).
    blind = placeholders.placeholder_keys(context)
    applied = {key: value for key, value in context.items() if key not in blind}
    dependency_keys = {dep["contextKey"] for dep in user_dependencies_of(step)}
    issues = placeholders.unchanged_issues(
        output.get("notesMarkdown"), [key for key in blind if key not in dependency_keys], output.get("artifacts")
    )
    before = node.engine_state.get("context", {})
    merged = {**before, **applied}
    if applied:
        _check_run_context_size(merged)
    missing = modes.unmet(step, merged)
    held_for_user = bool(missing) and modes.blocks_for_user(effective)
    issues += loaded.facts.delegation_issues + loaded.facts.draft_issues
    if issues or held_for_user:
        return _held(loaded, sent, issues, missing if held_for_user else [])
    # The engine reads the output as the JSON it is.
    result = engine.advance(loaded.compiled, node.engine_state, output=dict(output), context=applied)
    if result.kind == "blocked":
        blocked = _blocked(
            engine_issues(result.issues, under="/output"),  # the engine points into `output`; an answer, the call
            result.expected_output_schema,
        )
        return Block(blocked, engine_warnings(result.warnings), ContextToSend(resend=context), _pending(loaded))
    warnings = [*engine_warnings(result.warnings), *modes.gap_warnings(missing)]
    notices = _goal_change_notice(before, applied)
    if node.latest_child_id is not None:  # an older state acknowledged again: a rewound chat
        completed: Mapping[str, Any] = result.completed or {}
        title = completed.get("title") or node.pending_step_id or "the step"
        notices.append(_new_branch_notice(loaded.facts.branches + 1, title))
    return Advance(
        transition=result,
        preferences=effective,
        records=Records(bool(output.get("notesMarkdown") or output.get("artifacts")), missing, warnings),
        notices=notices,
        came_from=list(node.engine_state.get("cursor", {}).get("position") or []),
    )


def _held(loaded: Loaded, sent: Sent, issues: list[IssueDict], missing: list[UserDependencyDict]) -> Block:
    """Blocked before the engine: issues with what was sent, or (`missing`) values only the user can give
    while the preferences say to stop for them. The JSON Schemas say what output (and, when the step waits
    for the user, what context) would pass."""
    output_schema = engine.output_schema(loaded.compiled, loaded.node.engine_state) if issues else None
    blocked = _blocked(
        issues + modes.dependency_issues(missing),
        output_schema,
        modes.context_schema(missing) if missing else None,
    )
    return Block(blocked, [], ContextToSend(needed=missing or None, resend=sent.context), _pending(loaded))


def _blocked(
    issues: list[IssueDict], output_schema: JsonObject | None, input_schema: JsonObject | None = None
) -> Blocked:
    return Blocked.model_validate(
        {
            "issues": issues,
            "expectedOutputSchema": output_schema,
            **({"expectedInputSchema": input_schema} if input_schema is not None else {}),
            "retry": RETRY,
        }
    )


def _pending(loaded: Loaded) -> PendingView | None:
    return engine.pending_view(loaded.compiled, loaded.node.engine_state)


def _new_branch_notice(branch: int, step_title: str) -> WarningDict:
    """Says where an acknowledgement of an older state leaves the agent: on a new branch of its own."""
    return {
        "code": "BRANCH_STARTED",
        "message": f"This acknowledgement of '{step_title}' started a new branch: you are now on branch {branch} "
        f"from that point, and the {branch - 1} earlier one(s) are kept unchanged. Go on with the tokens below; "
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
