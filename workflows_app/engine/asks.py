"""What each step of a compiled workflow asks the agent to set (workflows_app/prose/asks.py's StepAsks),
read once per compiled workflow and looked up by step id: the answers and expectations take the fields
from here, and no reader goes back to a prompt's text at run time."""

from __future__ import annotations

from collections.abc import Mapping

from workflows_app.engine.memo import per_workflow
from workflows_app.engine.model import CompiledWorkflow
from workflows_app.engine.tree import top_steps, walk
from workflows_app.prose.asks import NONE, StepAsks, read_step


def step_asks(compiled: CompiledWorkflow, step_id: str) -> StepAsks:
    """The asks of the step with this id; none for an id the workflow does not have."""
    return by_step(compiled).get(step_id, NONE)


def by_step(compiled: CompiledWorkflow) -> Mapping[str, StepAsks]:
    """Every step's asks, loops included (their own prompt is empty), in document order."""
    return per_workflow(compiled, "asks", _read)


def _read(compiled: CompiledWorkflow) -> dict[str, StepAsks]:
    return {str(step.get("id", "")): read_step(step) for step in walk(top_steps(compiled))}
