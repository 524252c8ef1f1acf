"""Parallel steps: the delegations a `parallel` step hands out, resolved against the run's context.

Each delegation names a workflow (or routine) to run on its own, with a goal, a runCondition, and
the context it starts from: the parent context's values under `contextMapping` ({parentKey:
childKey}, as WorkRail's schema defines it: the child's input `childKey` takes the value the parent
context holds under `parentKey`), then `args` (fixed values, which win). Running them is the
service's job; the engine only says what they are.
"""

from __future__ import annotations

from typing import Any

from workflows_app.conditions import evaluate, lookup
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import CompiledStep, Delegation, DelegationView, is_parallel
from workflows_app.engine.values import MISSING


def delegations(step: CompiledStep, context: JsonObject) -> list[DelegationView] | None:
    """The delegations of a parallel step, in order; None for any other step."""
    if not is_parallel(step):
        return None
    found: list[DelegationView] = []
    for index, delegation in enumerate(step.get("parallelDelegations") or []):
        if not isinstance(delegation, dict):
            continue
        found.append(
            {
                "index": index,
                "workflowId": str(delegation.get("workflowId", "")),
                "goal": str(delegation.get("goal", "")),
                "runs": evaluate(delegation.get("runCondition"), context),
                "context": child_context(delegation, context),
            }
        )
    return found


def child_context(delegation: Delegation, context: JsonObject) -> JsonObject:
    """The context a delegation's run starts from: mapped parent values, then its args."""
    child: dict[str, Any] = {}
    for parent_key, child_key in (delegation.get("contextMapping") or {}).items():
        value = lookup(context, str(parent_key))
        if value is not MISSING:
            child[str(child_key)] = value
    child.update({str(k): v for k, v in (delegation.get("args") or {}).items()})
    return child


def shared_context(handed_out: list[DelegationView]) -> JsonObject:
    """The context entries every delegation receives alike (same key, equal value), when there are at
    least two delegations: shown once for the step instead of once per delegation."""
    if len(handed_out) < 2:
        return {}
    first, *others = (delegation.get("context") or {} for delegation in handed_out)
    return {
        key: value for key, value in first.items() if all(key in other and _same(other[key], value) for other in others)
    }


def _same(left: Any, right: Any) -> bool:
    """Equal as JSON values (True is not 1 here, unlike in Python)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    return bool(left == right)
