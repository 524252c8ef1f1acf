"""The workflow interpreter: start a run, advance it one acknowledged step at a time, re-render it.

Pure and deterministic: no I/O, clock or randomness, and the caller's dicts are never modified
(the state is deep-copied into a working Machine and serialized back). Each call walks the step
tree from the cursor to the next step that must be done, skipping steps whose runCondition is
false and taking loop decisions at iteration boundaries.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from workflows_app.condition_words import preview
from workflows_app.conditions import evaluate
from workflows_app.engine import assessments, decisions, delegations, expectations, loops, view
from workflows_app.engine.codes import IssueCode, issue
from workflows_app.engine.contracts import Contract, known_contracts
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.memo import per_workflow
from workflows_app.engine.model import (
    AgentStep,
    CompiledStep,
    CompiledWorkflow,
    CompletedStep,
    EngineIssue,
    EngineState,
    EngineWarning,
    PendingView,
    is_loop,
)
from workflows_app.engine.output import artifact_issues, check_output, expected_output_schema
from workflows_app.engine.state import Frame, Machine, StateError
from workflows_app.engine.trace import LoopEnd, LoopState, Tracer, check_of
from workflows_app.engine.transition import Transition
from workflows_app.engine.tree import agent_step_at, loop_at, sequence_at, step_at, top_steps, walk


def start(compiled: CompiledWorkflow, context: JsonObject | None = None) -> Transition:
    steps = top_steps(compiled)
    machine = Machine(workflow_id=str(compiled.get("id", "")), context={}, position=[0])
    _merge_context(machine, context)
    tracer = Tracer()
    warnings = _settle(steps, machine, tracer)
    return _moved(compiled, machine, completed=None, warnings=warnings, tracer=tracer)


def advance(
    compiled: CompiledWorkflow,
    state: EngineState,
    *,
    output: JsonObject | None = None,
    context: JsonObject | None = None,
) -> Transition:
    steps = top_steps(compiled)
    machine = _load(compiled, state)
    _merge_context(machine, context)
    if machine.complete:
        # Acknowledging again after the end is harmless: report completion again.
        return Transition("complete", machine.to_json(), None, None)
    step = agent_step_at(steps, machine.position)
    scope = loops.scope(steps, machine)
    known = _known_contracts(compiled)
    artifacts = output.get("artifacts") if isinstance(output, dict) else None
    names = _loop_names(compiled)
    open_keys = _open_decision_keys(steps, machine)
    issues, warnings = check_output(step, output, scope, known)
    issues += assessments.check(compiled, step, artifacts)
    issues += decisions.unmatched(names, artifacts, open_keys)
    if issues:
        return _blocked(compiled, state, machine, issues, warnings)
    completed: CompletedStep = {
        "stepId": step["id"],
        "title": view.pending_view(steps, machine)["title"],
        "loop": view.loop_view(steps, machine),
    }
    machine.completed_steps += 1
    if isinstance(artifacts, list):
        warnings += decisions.record(machine.decisions, artifacts, names, open_keys, machine.completed_steps)
    machine.position[-1] += 1
    tracer = Tracer()
    try:
        warnings += _settle(steps, machine, tracer)
    except loops.DecisionMissing as missing:
        before = _load(compiled, state)  # the step stays pending: start again from the state as it was
        _merge_context(before, context)
        return _blocked(compiled, state, before, [_decision_missing(missing)], warnings)
    return _moved(compiled, machine, completed=completed, warnings=warnings, tracer=tracer)


def _blocked(
    compiled: CompiledWorkflow,
    state: EngineState,
    machine: Machine,
    issues: list[EngineIssue],
    warnings: list[EngineWarning],
) -> Transition:
    """The step stays pending: the state as it was (with the context sent, which nextCall repeats)."""
    steps = top_steps(compiled)
    step = agent_step_at(steps, machine.position)
    blocked = copy.deepcopy(state)
    blocked["context"] = copy.deepcopy(machine.context)
    schema = expected_output_schema(step, loops.scope(steps, machine), _known_contracts(compiled))
    return Transition(
        "blocked",
        blocked,
        _pending(compiled, steps, machine),
        None,
        issues,
        _with_assessments(schema, compiled, step),
        warnings,
    )


def _decision_missing(missing: loops.DecisionMissing) -> EngineIssue:
    key = missing.spec.shown_id
    expected = f'{{"kind": "{decisions.LOOP_CONTROL_KIND}", "loopId": "{key}", "decision": "continue" or "stop"}}'
    return issue(
        IssueCode.LOOP_DECISION_MISSING,
        f"This step ends iteration {missing.iteration} of loop '{key}', which runs again only on a decision, and "
        f"none was sent during the iteration. Add {expected} to output.artifacts: continue to run another "
        "iteration, stop to leave the loop.",
        "/artifacts",
    )


def pending_view(compiled: CompiledWorkflow, state: EngineState) -> PendingView | None:
    """The pending step of `state`, rendered again (after a restart, say); None when the run is complete."""
    steps = top_steps(compiled)
    machine = _load(compiled, state)
    return None if machine.complete else _pending(compiled, steps, machine)


def pending_fragments(compiled: CompiledWorkflow, state: EngineState) -> tuple[int, ...]:
    """The indices of the pending step's prompt fragments that hold (its prompt shows them); none when
    the run is complete."""
    steps = top_steps(compiled)
    machine = _load(compiled, state)
    if machine.complete:
        return ()
    return tuple(view.applied_fragments(agent_step_at(steps, machine.position), loops.scope(steps, machine)))


def expected_context(compiled: CompiledWorkflow, state: EngineState) -> list[JsonObject]:
    """The context variables the pending step should provide (see expectations.py)."""
    return expectations.expected(compiled, state)


def output_schema(compiled: CompiledWorkflow, state: EngineState) -> JsonObject | None:
    """A JSON Schema of an `output` that acknowledges the pending step; None when the run is complete."""
    steps = top_steps(compiled)
    machine = _load(compiled, state)
    if machine.complete:
        return None
    step = agent_step_at(steps, machine.position)
    schema = expected_output_schema(step, loops.scope(steps, machine), _known_contracts(compiled))
    return _with_assessments(schema, compiled, step)


def _with_assessments(schema: JsonObject, compiled: CompiledWorkflow, step: AgentStep) -> JsonObject:
    rated = assessments.output_schema(compiled, step)
    if rated is not None:
        schema["allOf"] = [*schema.get("allOf", []), rated]
    return schema


def recordable_artifact_issues(compiled: CompiledWorkflow | None, artifacts: Any) -> list[EngineIssue]:
    """Issues with artifacts recorded outside a step (a checkpoint): known kinds, valid contracts.
    Without a workflow (a notes-only session) only the registry's kinds are known."""
    return artifact_issues(artifacts, _known_contracts(compiled) if compiled is not None else known_contracts([]))


def step_count(compiled: CompiledWorkflow) -> int:
    """Steps an agent can be given: every non-loop step of the compiled tree (loop bodies and routine
    steps included), each once. The one count shown by the catalog and by a run's progress."""
    return per_workflow(compiled, "step_count", lambda c: sum(1 for step in walk(top_steps(c)) if not is_loop(step)))


def outline_length(compiled: CompiledWorkflow) -> int:
    """Top-level steps: what inspect_workflow's outline numbers 1 to N (loop bodies are N.1, N.2...)."""
    return len(top_steps(compiled))


def loop_sizes(compiled: CompiledWorkflow) -> tuple[int, ...]:
    """Per top-level entry, how many steps its loop's body holds (0 for a step that is no loop): a person is
    told which of a loop's steps is pending as the outline numbers them (N.1, N.2)."""
    return per_workflow(
        compiled, "loop_sizes", lambda c: tuple(len(step["body"]) if is_loop(step) else 0 for step in top_steps(c))
    )


def _known_contracts(compiled: CompiledWorkflow) -> dict[str, Contract]:
    """The artifact kinds a run of `compiled` may record (the registry's and its own), by kind."""
    return per_workflow(compiled, "contracts", lambda c: known_contracts(top_steps(c)))


def _settle(steps: list[CompiledStep], machine: Machine, tracer: Tracer) -> list[EngineWarning]:
    """Moves the cursor forward to the next step to do, or to completion; returns the warnings raised.
    Each step skipped or selected, and each loop decision, is noted in `tracer`.

    Terminates: every pass moves the cursor forward or starts a loop iteration, and iterations are
    capped by maxIterations, so a loop whose body is all skipped ends after at most that many.
    """
    warnings: list[EngineWarning] = []
    while True:
        sequence = sequence_at(steps, machine.position[:-1])
        index = machine.position[-1]
        if index >= len(sequence):
            if not machine.frames:
                machine.complete, machine.pending = True, None
                tracer.completed()
                return warnings
            _end_iteration(steps, machine, warnings, tracer)
            continue
        step = sequence[index]
        scope = loops.scope(steps, machine)
        condition = step.get("runCondition")
        held = evaluate(condition, scope)
        if not held:
            tracer.step("skipped", step, scope, held=False)
            machine.position[-1] += 1
            continue
        if is_loop(step):
            spec = loops.LoopSpec.of(step)
            frame, found, why = loops.next_iteration(spec, None, scope, machine.decisions, machine.completed_steps)
            warnings += found
            if tracer.wants:
                ran = check_of(condition, scope, True) if condition else None  # the loop's own runCondition
                state = _loop_state(spec, frame, None, why)
                tracer.loop("loop_started" if frame else "loop_not_run", step, state, ran)
            if frame is None:
                machine.position[-1] += 1
            else:
                machine.frames.append(frame)
                machine.position.append(0)
            continue
        tracer.step("selected", step, scope, held=True if condition else None)
        machine.pending = {"stepId": step["id"], "stepInstance": view.step_instance(machine, str(step["id"]))}
        return warnings


def _end_iteration(steps: list[CompiledStep], machine: Machine, warnings: list[EngineWarning], tracer: Tracer) -> None:
    """The innermost loop's body is done: run its next iteration, or leave the loop."""
    depth = len(machine.frames)
    loop_step = loop_at(steps, machine.position[:depth])
    spec = loops.LoopSpec.of(loop_step)
    outer = loops.scope(steps, machine, depth - 1)
    done = machine.frames[-1]
    frame, found, why = loops.next_iteration(spec, done, outer, machine.decisions, machine.completed_steps)
    warnings += found
    if tracer.wants:
        tracer.loop("loop_repeated" if frame else "loop_ended", loop_step, _loop_state(spec, frame, done, why))
    if frame is not None:
        machine.frames[-1] = frame
        machine.position[-1] = 0
    else:
        machine.frames.pop()
        machine.position.pop()
        machine.position[-1] += 1


def _loop_state(spec: loops.LoopSpec, frame: Frame | None, done: Frame | None, why: loops.Why) -> LoopState:
    """The trace of a loop boundary: `frame` is the iteration about to run (None: the loop ends),
    `done` the one just completed (None: the loop is being entered)."""
    shown = frame or done
    total = None
    if shown is not None and shown.items is not None:
        total = len(shown.items)
    elif shown is not None and shown.count is not None:
        total = shown.count
    source = None
    if spec.type in ("for", "forEach"):
        named = spec.count if spec.type == "for" else spec.items
        source = str(named)[:100] if isinstance(named, str) else None
    item = None
    if frame is not None and frame.items is not None and frame.iteration <= len(frame.items):
        item = preview(frame.items[frame.iteration - 1])
    check = check_of(spec.condition, why.scope, bool(why.held)) if why.scope is not None else None
    return LoopState(
        loop_type=spec.type,
        iteration=frame.iteration if frame is not None else (done.iteration if done is not None else 0),
        max_iterations=spec.max_iterations,
        total=total,
        source=source,
        item=item,
        decision=why.decision,
        ended_by=None if frame is not None else _ended_by(spec, why),
        check=check,
    )


def _ended_by(spec: loops.LoopSpec, why: loops.Why) -> LoopEnd:
    if why.capped:
        return "max_iterations"
    if spec.type == "forEach":
        return "items"
    if spec.type == "for":
        return "count"
    return "decision" if spec.decision_key is not None else "condition"


def _pending(compiled: CompiledWorkflow, steps: list[CompiledStep], machine: Machine) -> PendingView:
    """The pending step's view, with the assessments it asks for (they are declared workflow-wide)."""
    shown = view.pending_view(steps, machine)
    step = agent_step_at(steps, machine.position)
    rated = assessments.view(compiled, step)
    if rated is not None:
        shown["assessments"] = rated
    handed_out = delegations.delegations(step, loops.scope(steps, machine))
    if handed_out is not None:
        shown["delegations"] = handed_out
    return shown


def _moved(
    compiled: CompiledWorkflow,
    machine: Machine,
    completed: CompletedStep | None,
    warnings: list[EngineWarning],
    tracer: Tracer,
) -> Transition:
    steps = top_steps(compiled)
    trace = tracer.trace()
    if machine.complete:
        return Transition("complete", machine.to_json(), None, completed, [], None, warnings, trace)
    pending = _pending(compiled, steps, machine)
    return Transition("advanced", machine.to_json(), pending, completed, [], None, warnings, trace)


def _merge_context(machine: Machine, context: Any) -> None:
    """Shallow merge, applied before anything is evaluated: the agent sets variables as it acknowledges."""
    if context is None:
        return
    if not isinstance(context, Mapping):
        raise TypeError(f"context must be an object, not {type(context).__name__}")
    machine.context.update(copy.deepcopy(dict(context)))


def _load(compiled: CompiledWorkflow, state: EngineState) -> Machine:
    machine = Machine.from_json(state)
    if machine.workflow_id != str(compiled.get("id", "")):
        raise StateError(f"this state belongs to workflow '{machine.workflow_id}', not '{compiled.get('id')}'")
    steps = top_steps(compiled)
    if machine.complete:
        return machine
    if machine.pending is None:
        raise StateError("an incomplete state must have a pending step")
    for level, frame in enumerate(machine.frames):
        if step_at(steps, machine.position[: level + 1]).get("id") != frame.loop_id:
            raise StateError(
                f"loop frame '{frame.loop_id}' is not at its cursor; was the state made for another version?"
            )
    step = step_at(steps, machine.position)
    if step.get("id") != machine.pending["stepId"] or step.get("kind") == "loop":
        raise StateError("the state's pending step is not at its cursor; was it made for another version?")
    return machine


def _loop_names(compiled: CompiledWorkflow) -> decisions.LoopNames:
    return per_workflow(compiled, "loop_names", lambda c: decisions.LoopNames(_names_of(top_steps(c))))


def _names_of(steps: list[CompiledStep]) -> dict[str, str]:
    """Every name a decision may use for an artifact-driven loop: its decision key and its step id."""
    names: dict[str, str] = {}
    for step in walk(steps):
        if not is_loop(step):
            continue
        spec = loops.LoopSpec.of(step)
        if spec.decision_key is not None:
            names.setdefault(spec.decision_key, spec.decision_key)
            names.setdefault(spec.loop_id, spec.decision_key)
    return names


def _open_decision_keys(steps: list[CompiledStep], machine: Machine) -> list[str]:
    """The decision keys of the artifact-driven loops the pending step is inside, outermost first."""
    keys = []
    for level in range(len(machine.frames)):
        key = loops.LoopSpec.of(loop_at(steps, machine.position[: level + 1])).decision_key
        if key is not None:
            keys.append(key)
    return keys
