"""Parallel steps: the delegations a `parallel` step hands out, resolved against the run's context.

Each delegation names a workflow (or routine) to run on its own, with a goal, a runCondition, and
the context it starts from: `args` (fixed values) and `contextMapping` ({childKey: parentKey}: the
child's key takes the parent context's value under parentKey). Running them is the service's job;
the engine only says what they are.
"""

from __future__ import annotations

from typing import Any

from workflows_app.conditions import evaluate, lookup
from workflows_app.engine.jsontypes import JsonObject, Step
from workflows_app.engine.values import MISSING


def delegations(step: Step, context: JsonObject) -> list[JsonObject] | None:
    """The delegations of a parallel step, in order; None for any other step."""
    if step.get("kind") != "parallel":
        return None
    found = []
    for index, delegation in enumerate(step.get("parallelDelegations") or []):
        if not isinstance(delegation, dict):
            continue
        found.append(
            {
                "index": index,
                "workflowId": str(delegation.get("workflowId", "")),
                "goal": str(delegation.get("goal", "")),
                "runs": evaluate(delegation.get("runCondition"), context),
                "context": _child_context(delegation, context),
            }
        )
    return found


def _child_context(delegation: JsonObject, context: JsonObject) -> JsonObject:
    child: dict[str, Any] = {}
    for child_key, parent_key in (delegation.get("contextMapping") or {}).items():
        value = lookup(context, str(parent_key))
        if value is not MISSING:
            child[str(child_key)] = value
    child.update({str(k): v for k, v in (delegation.get("args") or {}).items()})
    return child
