"""Workflow ids a workflow's own prompts name ("include 'coding-task-workflow-agentic'"), so the
server can say which of them it does not have instead of letting an agent hand on ids that lead
nowhere. The reading is each step's StepAsks.workflow_ids (workflows_app/prose/asks.py): only steps
that talk about workflow ids are read, and a value the step offers as a choice ("bug-fix") is not an id."""

from __future__ import annotations

from dataclasses import dataclass

from workflows_app.engine.asks import by_step
from workflows_app.engine.memo import per_workflow
from workflows_app.engine.model import CompiledWorkflow
from workflows_app.engine.tree import top_steps, walk


@dataclass(frozen=True)
class NamedId:
    step_id: str
    step_title: str
    workflow_id: str


def named_ids(compiled: CompiledWorkflow) -> tuple[NamedId, ...]:
    return per_workflow(compiled, "named_workflow_ids", _named_ids)


def _named_ids(compiled: CompiledWorkflow) -> tuple[NamedId, ...]:
    found: dict[str, NamedId] = {}
    asks = by_step(compiled)
    for step in walk(top_steps(compiled)):
        for token in asks[str(step.get("id", ""))].workflow_ids:
            if token not in found:
                found[token] = NamedId(str(step["id"]), str(step.get("title", step["id"])), token)
    return tuple(found.values())
