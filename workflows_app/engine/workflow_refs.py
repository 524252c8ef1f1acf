"""Workflow ids a workflow's own prompts name ("include 'coding-task-workflow-agentic'"), so the
server can say which of them it does not have instead of letting an agent hand on ids that lead
nowhere. Only steps that talk about workflow ids are read, and a value the step offers as a choice
("bug-fix") is not an id."""

from __future__ import annotations

import re
from dataclasses import dataclass

from workflows_app.engine.expectations import offered
from workflows_app.engine.memo import per_workflow
from workflows_app.engine.model import CompiledWorkflow
from workflows_app.engine.tree import top_steps, walk

_TALKS_ABOUT_IDS = re.compile(r"\bworkflow\s+ids?\b", re.IGNORECASE)
_QUOTED_ID = re.compile(r"""['"`]([a-z][a-z0-9]*(?:[._-][a-z0-9]+)+)['"`]""")
_NAME = re.compile(r"\*\*([A-Za-z_][A-Za-z0-9_]*)\*\*|`([A-Za-z_][A-Za-z0-9_]*)`")


@dataclass(frozen=True)
class NamedId:
    step_id: str
    step_title: str
    workflow_id: str


def named_ids(compiled: CompiledWorkflow) -> tuple[NamedId, ...]:
    return per_workflow(compiled, "named_workflow_ids", _named_ids)


def _named_ids(compiled: CompiledWorkflow) -> tuple[NamedId, ...]:
    found: dict[str, NamedId] = {}
    for step in walk(top_steps(compiled)):
        text = str(step.get("prompt", ""))
        if not _TALKS_ABOUT_IDS.search(text):
            continue
        names = {a or b for a, b in _NAME.findall(text)}
        choices = {choice for name in names for choice in offered(text, name)}
        for token in _QUOTED_ID.findall(text):
            if token not in choices and token not in found:
                found[token] = NamedId(str(step["id"]), str(step.get("title", step["id"])), token)
    return tuple(found.values())
