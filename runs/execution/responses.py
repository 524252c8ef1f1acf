"""The shape of execution answers: what start_workflow, continue_workflow and checkpoint_workflow return.

One builder for every path (start, advance, blocked, replay, rehydrate, checkpoint), so an agent
always reads the same fields, and `nextCall` holds the exact arguments to send next, with every
blank to fill written as a `<fill in ...>` placeholder (runs/execution/placeholders.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from runs.contract.execution import (
    Blocked,
    Branch,
    EffectivePreferences,
    ExecutionResult,
    NextCall,
    Pending,
    Progress,
    RunCheckpoint,
    SessionRef,
    UserDependencyDict,
    WarningDict,
    WorkflowRef,
)
from runs.contract.execution import Warning as WarningShape
from runs.contract.inputs import SESSION_ID_KEYS, ContinueWorkflowInput, StepOutputDict
from runs.contract.preferences import mode_of
from runs.execution import placeholders
from runs.models import Run, RunStatus
from runs.readmodels.shapes import Recap as RecapJson
from workflows_app import builtins
from workflows_app.condition_words import describe
from workflows_app.engine import blanks, decisions
from workflows_app.engine.asks import step_asks
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import CompiledWorkflow
from workflows_app.engine.tree import step_at, top_steps
from workflows_app.prose import NONE, StepAsks

_LOOP_CONTROL_SCHEMA = builtins.CONTRACTS[decisions.LOOP_CONTROL_CONTRACT]["schema"]


class AnswerParts(TypedDict, total=False):
    """The parts of an answer only some paths give, under their wire names (ExecutionResult's fields)."""

    blocked: Blocked
    selfContained: bool
    goal: str
    guidance: list[str]
    rehydrated: bool
    runContext: JsonObject
    recap: RecapJson  # built as its JSON (the read model budgets it in bytes); the answer's Recap checks it
    downstreamRecap: RecapJson
    branches: list[Branch]
    branchCount: int
    fork: str
    checkpoint: RunCheckpoint
    references: list[JsonObject]  # as workflows_app.catalog resolves them; the answer's ReferenceView checks them
    delegatedBy: JsonObject  # runs/execution/delegations.py builds it; the answer's DelegatedBy checks it


@dataclass(frozen=True)
class Tokens:
    """The tokens an answer gives: the node's stateToken, and the ackToken of its open attempt (none when
    the run is complete there)."""

    state: str
    ack: str | None


@dataclass(frozen=True)
class ContextToSend:
    """Context the next call must carry besides what the step expects: after a blocked ack, what was sent
    (`resend`, not applied) and what only the user can give (`needed`)."""

    needed: list[UserDependencyDict] | None = None
    resend: JsonObject | None = None


@dataclass(frozen=True)
class RunPosition:
    """Where the run stands, for `progress`: steps acknowledged, the workflow's size, the pending step's
    place in the outline with the outline's length, and the place of the step acknowledged just before."""

    completed_steps: int
    step_count: int
    outline: tuple[list[int], int] | None = None
    came_from: list[int] | None = None
    compiled: CompiledWorkflow | None = None  # the steps passed over are named from it


@dataclass(frozen=True)
class AnswerSays:
    """What an answer says besides its node: its kind, the warnings of this call, the parts only some
    paths give, the context the next call must carry, and the outline place of the step just acknowledged."""

    kind: str
    warnings: list[WarningDict]
    extra: AnswerParts = field(default_factory=lambda: AnswerParts())
    context: ContextToSend = field(default_factory=ContextToSend)
    came_from: list[int] | None = None


@dataclass(frozen=True)
class AnswerDraft:
    """The node an execution answer is for, as `execution_response` reads it: its run, its tokens, its
    pending step (shaped), where it stands, and the preferences in effect there."""

    run: Run
    tokens: Tokens
    pending: Pending | None
    position: RunPosition
    preferences: dict[str, str]


def session_ref(run: Run) -> SessionRef:
    return SessionRef(session_id=run.session.public_id, run_id=run.public_id, session_key=run.session.session_key)


def next_call(
    tokens: Tokens, pending: Pending | None, sent: ContextToSend, *, full: bool = True, asks: StepAsks = NONE
) -> NextCall | None:
    """The exact continue_workflow call to make next. After a blocked ack, the context that came with
    it was not applied, so it is repeated here (its placeholders excepted), along with what is needed.
    The instructions are `full` in an answer a chat may start from; elsewhere the rules the first
    answer explained are one line, and only what is particular to the step is said in full. `asks`: what
    the pending step asks for (its StepAsks, read once per workflow)."""
    if pending is None or tokens.ack is None:
        return None
    output = output_template(pending, asks)
    instructions = _call_instructions(pending, output, asks.written, full)
    if pending.delegations and any(d.run_id and d.status != RunStatus.COMPLETE for d in pending.delegations):
        instructions = (
            "First carry out each delegation in pending.delegations (its own run: continue_workflow with its "
            "stateToken, to the end; subagents may take one each). Then " + instructions[0].lower() + instructions[1:]
        )
    if pending.delegations and any(d.runs and not d.available for d in pending.delegations):
        instructions += " Do the part of each delegation that cannot run here yourself (see its fix)."
    context = {key: value for key, value in (sent.resend or {}).items() if not placeholders.is_placeholder(value)}
    for expected in pending.expected_context or []:
        if expected.key in SESSION_ID_KEYS:
            continue  # an id only the user has (a ticket's): a blank would invite making one up
        context.setdefault(expected.key, placeholders.for_context(expected))
    if pending.expected_context:
        instructions += (
            " Send each context value (the 'Context to send' lines, pending.expectedContext in the structured "
            "answer, say what reads it), or leave it out if it is not known yet."
            if full
            else " Send each context value asked for, or leave it out if it is not known yet."
        )
    for dependency in pending.user_dependencies or []:
        if not dependency.met:  # offered before any block, so the agent asks the user at the step that needs it
            context.setdefault(dependency.context_key, placeholders.from_user(dependency.description))
    if sent.needed:
        for dep in sent.needed:
            context[dep["contextKey"]] = placeholders.from_user(dep["description"])
        instructions += " First ask the user for what context needs (see blocked.issues)."
    arguments = {"stateToken": tokens.state, "ackToken": tokens.ack, "output": output}
    return NextCall(
        tool="continue_workflow",
        arguments=ContinueWorkflowInput.model_validate({**arguments, "context": context} if context else arguments),
        instructions=instructions,
    )


def _call_instructions(pending: Pending, output: StepOutputDict, words: frozenset[str], full: bool) -> str:
    """How to make the call: the rules that hold for every call (in full once, then in a line), and
    what this step's output must be."""
    confirm = pending.require_confirmation
    if full:
        instructions = "Do the pending step"
        if confirm:
            instructions += ", get the user's explicit confirmation (write their answer in output.notesMarkdown),"
        instructions += (
            " then call continue_workflow with these arguments (tokens exactly as given), with every '<fill in ...>' "
            "replaced by your own value: the server decides none of them (the step's prompt may say what one must "
            "be)."
        )
    else:
        confirmed = ", get the user's confirmation," if confirm else ""
        instructions = (
            f"Do the step{confirmed} then call continue_workflow with these arguments, each '<fill in ...>' "
            "replaced by your own value."
        )
    if any(blanks.OPTIONAL in blank for _, blank in placeholders.placeholders_in(output, "")):
        instructions += " A field marked optional may be removed instead."
    contract = pending.output_contract
    if contract is not None and contract.json_schema is not None:
        instructions += (
            f" The {contract.artifact_kind} artifact must match the '{contract.contract_ref}' contract "
            "(pending.outputContract.schema); a list holds as many items as you have, none if the step allows it."
            if full
            else f" The {contract.artifact_kind} artifact must match its contract."
        )
        extra = blanks.optional_structures(contract.json_schema, words)
        if extra:
            instructions += f" Optional parts, to remove whole when they do not apply: {', '.join(extra)}."
    if pending.loop is not None and pending.loop.decision_due and full:  # the step's text says it too
        instructions += (
            f" The wr.loop_control decision says whether loop '{pending.loop.loop_id}' runs another iteration "
            "(continue) or ends (stop): decide it from the step's own rule."
        )
    if pending.assessments:
        instructions += " Rate every dimension of each wr.assessment artifact at one of its levels."
    return instructions


def output_template(pending: Pending, asks: StepAsks) -> StepOutputDict:
    """The `output` to fill in: notes when the step needs them or its prompt asks for them (optional
    ones marked so), and a template of each artifact the step asks for. Blanks only where the agent
    decides or observes; a contract's example is never copied here."""
    output: StepOutputDict = {}
    if pending.notes_required or (asks.notes is not None and asks.notes.plainly) or pending.require_confirmation:
        output["notesMarkdown"] = placeholders.NOTES  # required, or what the prompt says to write there
    elif asks.notes is not None:
        output["notesMarkdown"] = placeholders.OPTIONAL_NOTES
    artifacts: list[JsonObject] = []
    contract = pending.output_contract
    loop = pending.loop
    decides = loop is not None and bool(loop.decision_due)
    if contract is not None and contract.json_schema is not None:
        fixed = {"loopId": loop.loop_id} if loop is not None and decides else {}
        template = blanks.artifact_template(contract.json_schema, fixed=fixed, mentioned=asks.written)
        if template is not None:
            artifacts.append(template)
    if loop is not None and decides and (contract is None or contract.artifact_kind != decisions.LOOP_CONTROL_KIND):
        decision = blanks.artifact_template(_LOOP_CONTROL_SCHEMA, fixed={"loopId": loop.loop_id})
        if decision is not None:  # always: the contract's schema is an object schema
            artifacts.append(decision)
    artifacts += map(placeholders.for_assessment, pending.assessments or [])
    if artifacts:
        output["artifacts"] = artifacts
    return output


def progress(where_now: RunPosition, pending: Pending | None) -> Progress:
    """Where the run is, as one sentence that stays true through loops and skipped steps: the pending
    step's place in inspect_workflow's outline (which loops revisit and conditions jump over), the
    steps it passed over and why, and how many steps were acknowledged (loops count once per pass)."""
    completed_steps, step_count, outline = where_now.completed_steps, where_now.step_count, where_now.outline
    came_from, compiled = where_now.came_from, where_now.compiled
    done = f"{completed_steps} step{'s' if completed_steps != 1 else ''} acknowledged"
    if pending is None:
        summary = f"Complete: {done} in all (a loop's steps count once per pass, skipped steps not at all)."
        if outline is not None and came_from:  # the outline's last steps may have been passed over too
            skipped = [[index] for index in range(came_from[0] + 1, outline[1])]
            if skipped:
                summary += f" Passed over {_skipped_text(skipped, compiled)}."
        return Progress(completed_steps=completed_steps, step_count=step_count, summary=summary)
    if outline is None:
        return Progress(completed_steps=completed_steps, step_count=step_count, summary=f"{done} so far.")
    position, length = outline
    number = ".".join(str(index + 1) for index in position)
    where = f"Step {number} of the outline's {length}"
    if pending.loop is not None:
        where += f" (pass {pending.loop.iteration} of loop '{pending.loop.loop_id}')"
    skipped = _passed_over(came_from, position)
    if skipped:
        where += f"; passed over {_skipped_text(skipped, compiled)}"
    return Progress(
        completed_steps=completed_steps,
        step_count=step_count,
        outline_step=number,
        outline_length=length,
        summary=f"{where}; {done} so far.",
    )


def _passed_over(came_from: list[int] | None, position: list[int]) -> list[list[int]]:
    """The outline positions of the steps the run passed over between the step just acknowledged and
    this one, at the level where the two part (a loop's pass starting again passes over nothing)."""
    level = next((k for k, (a, b) in enumerate(zip(came_from or [], position, strict=False)) if a != b), None)
    if came_from is None or level is None:
        return []
    return [[*position[:level], index] for index in range(came_from[level] + 1, position[level])]


def _skipped_text(skipped: list[list[int]], compiled: CompiledWorkflow | None) -> str:
    """'step 3 (it runs only when complexity is "complex")': each step passed over, with the reason the
    workflow gives for it (its runCondition, or its loop having nothing to do)."""
    parts = []
    for position in skipped:
        number = ".".join(str(index + 1) for index in position)
        step = step_at(top_steps(compiled), position) if compiled is not None else None
        if step is not None and step.get("runCondition"):
            why = f"it runs only when {describe(step['runCondition'])}"
        elif step is not None and step.get("kind") == "loop":
            why = "its loop had nothing to do"
        else:
            why = "its condition did not hold, or its loop had nothing to do"
        parts.append(f"step {number} ({why})")
    return ", ".join(parts)


def _asks_of(compiled: CompiledWorkflow | None, pending: Pending | None) -> StepAsks:
    return step_asks(compiled, pending.step_id) if compiled is not None and pending is not None else NONE


def execution_response(draft: AnswerDraft, says: AnswerSays) -> ExecutionResult:
    parts, pending, run = says.extra, draft.pending, draft.run
    return ExecutionResult.model_validate(
        {
            "kind": says.kind,
            "isComplete": pending is None,
            "stateToken": draft.tokens.state,
            "ackToken": draft.tokens.ack,
            "pending": pending,
            "session": session_ref(run),
            "workflow": WorkflowRef(id=run.workflow_id, workflow_hash=run.pinned_id),
            "progress": progress(draft.position, pending),
            "preferences": EffectivePreferences.model_validate(draft.preferences),
            "mode": mode_of(draft.preferences),
            "warnings": [WarningShape.model_validate(w) for w in says.warnings],
            "nextCall": next_call(
                draft.tokens,
                pending,
                says.context,
                full=bool(parts.get("selfContained")),
                asks=_asks_of(draft.position.compiled, pending),
            ),
            **parts,
            "selfContained": bool(parts.get("selfContained")),
        }
    )
