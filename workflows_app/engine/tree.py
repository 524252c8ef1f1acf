"""Finding steps in a compiled workflow's step tree by position.

A position is a list of indices: the index in the top-level steps, then, for each enclosing loop,
the index in that loop's inline body. Compiled loops carry their body inline, so no lookup by id
is ever needed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from workflows_app.engine.model import AgentStep, CompiledStep, CompiledWorkflow, LoopStep, is_loop
from workflows_app.engine.state import StateError


def top_steps(compiled: CompiledWorkflow) -> list[CompiledStep]:
    steps: Any = compiled.get("steps")
    if not isinstance(steps, list):
        raise ValueError("a compiled workflow needs a 'steps' list")
    return steps


def sequence_at(steps: list[CompiledStep], prefix: Sequence[int]) -> list[CompiledStep]:
    """The step list that the last index of a position indexes into: top-level steps or a loop body."""
    sequence = steps
    for index in prefix:
        loop = sequence[index] if index < len(sequence) else None
        if loop is None or not is_loop(loop):
            raise StateError("the cursor does not point into this workflow's loops")
        sequence = _body(loop)
    return sequence


def step_at(steps: list[CompiledStep], position: Sequence[int]) -> CompiledStep:
    sequence = sequence_at(steps, position[:-1])
    if position[-1] >= len(sequence):
        raise StateError("the cursor points past the end of a step list")
    return sequence[position[-1]]


def loop_at(steps: list[CompiledStep], position: Sequence[int]) -> LoopStep:
    """The loop at `position` (a prefix of a cursor, one index per active loop)."""
    step = step_at(steps, position)
    if not is_loop(step):
        raise StateError("the cursor does not point into this workflow's loops")
    return step


def agent_step_at(steps: list[CompiledStep], position: Sequence[int]) -> AgentStep:
    """The step at a cursor: one an agent is given, never a loop (the cursor stops only at those)."""
    step = step_at(steps, position)
    if is_loop(step):
        raise StateError("the cursor points at a loop, not at a step")
    return step


def walk(steps: list[CompiledStep]) -> Iterator[CompiledStep]:
    """Every step of the tree, loops before their bodies, in document order."""
    for step in steps:
        yield step
        if is_loop(step):
            yield from walk(_body(step))


def agent_steps(steps: list[CompiledStep]) -> Iterator[AgentStep]:
    """Every step an agent can be given (loops left out, their bodies in), in document order."""
    for step in walk(steps):
        if not is_loop(step):
            yield step


def _body(step: LoopStep) -> list[CompiledStep]:
    body: Any = step.get("body")
    return body if isinstance(body, list) else []
