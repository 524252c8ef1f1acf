"""Rendering the pending step: what the agent is told to do now.

Everything that depends on the run's context is resolved here, at render time: prompt fragments,
placeholders and conditional confirmation. Rendering is a pure function of (compiled, state), which
is what lets a run be rehydrated from its state alone.
"""

from __future__ import annotations

from typing import Any

from workflows_app.conditions import evaluate
from workflows_app.engine import decisions, loops
from workflows_app.engine.contracts import Contract, contract_of, notes_required
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import AgentStep, CompiledStep, LoopView, PendingView
from workflows_app.engine.state import Machine
from workflows_app.engine.templating import render
from workflows_app.engine.tree import agent_step_at, loop_at, sequence_at


def pending_view(steps: list[CompiledStep], machine: Machine) -> PendingView:
    step = agent_step_at(steps, machine.position)
    context = loops.scope(steps, machine)
    contract = contract_of(step)
    return {
        "stepId": step["id"],
        "title": render(str(step.get("title") or step["id"]), context),
        "prompt": prompt(step, context),
        "agentRole": step.get("agentRole"),
        "requireConfirmation": require_confirmation(step.get("requireConfirmation"), context),
        "notesRequired": notes_required(step),
        "outputContract": contract.view() if contract is not None else None,
        "loop": loop_view(steps, machine, deciding=_decides(steps, machine, contract)),
        "stepInstance": step_instance(machine, str(step["id"])),
    }


def prompt(step: AgentStep, context: JsonObject) -> str:
    """The compiled prompt plus every fragment whose `when` holds, blank-line separated, then templated."""
    parts = [str(step.get("prompt") or step.get("title") or step["id"])]
    fragments = step.get("promptFragments") or []
    parts += [str(fragments[index].get("text", "")) for index in applied_fragments(step, context)]
    return render("\n\n".join(parts), context)


def applied_fragments(step: AgentStep, context: JsonObject) -> list[int]:
    """The indices of the step's prompt fragments whose `when` holds: the ones its prompt shows."""
    fragments = step.get("promptFragments") or []
    return [
        index
        for index, fragment in enumerate(fragments)
        if isinstance(fragment, dict) and evaluate(fragment.get("when"), context)
    ]


def require_confirmation(rule: Any, context: JsonObject) -> bool:
    """A bool; a gate object {"kind", "condition"?} (required unless its condition is false); or a condition."""
    if isinstance(rule, bool):
        return rule
    if isinstance(rule, dict):
        if "kind" in rule:  # the condition language has no "kind", so this cannot be a condition
            return evaluate(rule.get("condition"), context)
        return evaluate(rule, context)
    return False


def loop_view(steps: list[CompiledStep], machine: Machine, *, deciding: bool = False) -> LoopView | None:
    """The innermost active loop, as shown in `pending.loop` and `completed.loop`. For a loop that runs
    again only on a decision, `decisionDue` says whether this step is the one that must send it."""
    if not machine.frames:
        return None
    loop_step = loop_at(steps, machine.position[: len(machine.frames)])
    spec = loops.LoopSpec.of(loop_step)
    shown = loops.view(spec, machine.frames[-1])
    if spec.decision_key is not None:
        shown["decisionDue"] = deciding
    return shown


def _decides(steps: list[CompiledStep], machine: Machine, contract: Contract | None) -> bool:
    """Does the pending step send its loop's decision? When its contract is the loop-control one, or
    when it is the last step of the loop's body (its acknowledgement ends the iteration)."""
    if not machine.frames:
        return False
    if contract is not None and contract.artifact_kind == decisions.LOOP_CONTROL_KIND:
        return True
    return machine.position[-1] == len(sequence_at(steps, machine.position[:-1])) - 1


def step_instance(machine: Machine, step_id: str) -> str:
    """Unique within a run: a loop is entered at most once per iteration of its enclosing loops, so the
    chain of (loop, iteration) pairs plus the step id never repeats."""
    return "/".join([*(f"{frame.loop_id}#{frame.iteration}" for frame in machine.frames), step_id])
