"""A step's title and prompt as people read them on a page or in a report: as the agent was given them
(loop variables and context filled in, prompt fragments added) where the node's state is at hand, and
otherwise as the workflow writes them with each `{{placeholder}}` in a readable form. Never raw braces.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import NamedTuple

from django.db.models import Case, F, JSONField, Value, When

from runs.models import Node, Run
from runs.store.pinned import compiled_workflow
from workflows_app import engine
from workflows_app.engine.model import CompiledStep, CompiledWorkflow
from workflows_app.engine.templating import without_context


class StepText(NamedTuple):
    title: str
    prompt: str


def as_written(step: CompiledStep | None, step_id: str | None) -> StepText:
    """From the pinned workflow alone: placeholders named, not filled in."""
    title = step.get("title") if step is not None else None
    prompt = step.get("prompt") if step is not None else None
    return StepText(without_context(str(title or step_id or "")), without_context(str(prompt or "")))


def as_seen(compiled: CompiledWorkflow, node_pks: list[int]) -> dict[int, StepText]:
    """Each open node's pending step as the agent was given it there, rendered again from its engine
    state (pure and deterministic), in one query whatever the number of nodes."""
    seen = {}
    for pk, state in Node.objects.filter(pk__in=node_pks).values_list("pk", "engine_state"):
        pending = engine.pending_view(compiled, state)
        if pending is not None:
            seen[pk] = StepText(str(pending["title"]), str(pending.get("prompt") or ""))
    return seen


def titles_seen(nodes: Mapping[int, Run], templated: Collection[int]) -> dict[int, str]:
    """By node pk: the title of each open node's pending step as the agent was given it ("Review storage",
    not "Review [area]"), for nodes of any runs (each with its run), in one query whatever the nodes (none
    for no nodes): only the nodes in `templated` (whose titles hold a placeholder) have their state read
    and rendered, the others read as written."""
    seen: dict[int, str] = {}
    if not nodes:
        return seen
    state = Case(When(pk__in=list(templated), then=F("engine_state")), default=Value(None), output_field=JSONField())
    rows = Node.objects.filter(pk__in=list(nodes), is_complete=False).annotate(state=state)
    for pk, engine_state in rows.values_list("pk", "state"):
        if engine_state is None:
            continue
        pending = engine.pending_view(compiled_workflow(nodes[pk].pinned_id), engine_state)
        if pending is not None:
            seen[pk] = str(pending["title"])
    return seen
