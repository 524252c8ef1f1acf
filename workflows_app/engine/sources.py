"""What the pending step works through: the context values its enclosing loops iterate or count, read
from the workflow's structure (a forEach loop's `items`, a for loop's `count` when it names a context
variable), innermost loop first. A recap keeps the note of the step that set them (runs/readmodels/
recap.py), since the pending step keeps pointing back to it: the plan a slice loop goes through."""

from __future__ import annotations

from typing import NamedTuple

from workflows_app.engine import loops
from workflows_app.engine.model import CompiledWorkflow, EngineState, is_loop
from workflows_app.engine.tree import step_at, top_steps


class Source(NamedTuple):
    var: str  # the root context variable
    why: str  # what reads it, in words: "the items of loop 'slices-loop'"


def worked_through(compiled: CompiledWorkflow, state: EngineState) -> list[Source]:
    """The context variables the pending step's enclosing loops go through, innermost first."""
    if state.get("complete") or state.get("pending") is None:
        return []
    position = list((state.get("cursor") or {}).get("position") or [])
    steps = top_steps(compiled)
    found: list[Source] = []
    for depth in range(len(position) - 1, 0, -1):
        step = step_at(steps, position[:depth])
        if not is_loop(step):
            continue
        spec = loops.LoopSpec.of(step)
        if spec.type == "forEach" and isinstance(spec.items, str):
            found.append(Source(spec.items.split(".")[0], f"the items of loop '{spec.shown_id}'"))
        elif spec.type == "for" and isinstance(spec.count, str):
            found.append(Source(spec.count.split(".")[0], f"the count of loop '{spec.shown_id}'"))
    innermost: dict[str, Source] = {}
    for source in found:
        innermost.setdefault(source.var, source)
    return list(innermost.values())
