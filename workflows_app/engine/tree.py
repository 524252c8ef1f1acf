"""Finding steps in a compiled workflow's step tree by position.

A position is a list of indices: the index in the top-level steps, then, for each enclosing loop,
the index in that loop's inline body. Compiled loops carry their body inline, so no lookup by id
is ever needed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from workflows_app.engine.jsontypes import JsonObject, Step
from workflows_app.engine.state import StateError


def top_steps(compiled: JsonObject) -> list[Step]:
    steps = compiled.get("steps")
    if not isinstance(steps, list):
        raise ValueError("a compiled workflow needs a 'steps' list")
    return steps


def sequence_at(steps: list[Step], prefix: Sequence[int]) -> list[Step]:
    """The step list that the last index of a position indexes into: top-level steps or a loop body."""
    sequence = steps
    for index in prefix:
        if index >= len(sequence) or sequence[index].get("kind") != "loop":
            raise StateError("the cursor does not point into this workflow's loops")
        sequence = _body(sequence[index])
    return sequence


def step_at(steps: list[Step], position: Sequence[int]) -> Step:
    sequence = sequence_at(steps, position[:-1])
    if position[-1] >= len(sequence):
        raise StateError("the cursor points past the end of a step list")
    return sequence[position[-1]]


def walk(steps: list[Step]) -> Iterator[Step]:
    """Every step of the tree, loops before their bodies, in document order."""
    for step in steps:
        yield step
        if step.get("kind") == "loop":
            yield from walk(_body(step))


def _body(step: Step) -> list[Step]:
    body: Any = step.get("body")
    return body if isinstance(body, list) else []
