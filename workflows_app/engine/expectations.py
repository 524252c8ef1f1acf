"""The context variables a run will read soon and nobody has set yet.

An agent cannot be expected to read every condition of a workflow to learn that it should send
`context.severity` with this step. So the pending step names the variables that (a) a later
condition, loop or prompt fragment reads, (b) are not set in the run's context, and (c) are either
mentioned by the pending step's own prompt (the step is where they get decided) or read at the very
next decision point (the next step's runCondition, the next loop's count or items, or the end of
the current loop iteration). Each comes with the type the workflow compares it as, and the values
it compares it with, so a placeholder can say what is expected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from workflows_app.conditions import COMPARISONS
from workflows_app.engine import loops
from workflows_app.engine.jsontypes import JsonObject, Step
from workflows_app.engine.state import Machine
from workflows_app.engine.tree import sequence_at, step_at, top_steps

NUMERIC = ("gt", "gte", "lt", "lte")
TEXTUAL = ("startsWith", "endsWith", "matches")


@dataclass(frozen=True)
class Read:
    """One place where the workflow reads a variable."""

    var: str  # the root name: `ticket` for `ticket.priority`
    type: str  # JSON type the workflow treats it as, or "any"
    values: tuple[Any, ...]  # values it is compared with
    why: str


def expected(compiled: JsonObject, machine: Machine) -> list[JsonObject]:
    """The expected variables at the machine's pending step, in the order the workflow reads them."""
    if machine.complete or machine.pending is None:
        return []
    steps = top_steps(compiled)
    position = list(machine.position)
    current = step_at(steps, position)
    scope = loops.scope(steps, machine)
    later = [read for read in _reads_after(steps, position) if read.var not in scope]
    if not later:
        return []
    nearby = {read.var for read in _reads_next(steps, position)}
    mentioned = _words(f"{current.get('title', '')} {current.get('prompt', '')}")
    merged: dict[str, list[Read]] = {}
    for read in later:
        merged.setdefault(read.var, []).append(read)
    found = []
    for var, reads in merged.items():
        by_step = var in mentioned
        if not (by_step or var in nearby):
            continue
        types = {read.type for read in reads if read.type != "any"}
        values: list[Any] = []
        for read in reads:
            values += [value for value in read.values if value not in values]
        entry: JsonObject = {
            "key": var,
            "type": types.pop() if len(types) == 1 else "any",
            "why": "; ".join(dict.fromkeys(read.why for read in reads)),
            "setByThisStep": by_step,
        }
        if values:
            entry["values"] = values
        found.append(entry)
    return found


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def _reads_after(steps: list[Step], position: list[int]) -> Iterator[Read]:
    """Reads that can happen after the step at `position` is acknowledged: the rest of every enclosing
    sequence, and each enclosing loop as a whole (its condition and body run again next iteration)."""
    for depth in range(len(position), 0, -1):
        sequence = sequence_at(steps, position[: depth - 1])
        for step in sequence[position[depth - 1] + 1 :]:
            yield from _reads_in(step, deep=True)
        if depth > 1:  # the enclosing loop: re-entered for its next iteration
            yield from _reads_in(step_at(steps, position[: depth - 1]), deep=True)


def _reads_next(steps: list[Step], position: list[int]) -> Iterator[Read]:
    """Reads at the very next decision point after the step at `position`."""
    sequence = sequence_at(steps, position[:-1])
    index = position[-1] + 1
    if index < len(sequence):
        yield from _reads_in(sequence[index], deep=False)
    elif len(position) > 1:
        yield from _loop_reads(step_at(steps, position[:-1]))


def _reads_in(step: Step, *, deep: bool) -> Iterator[Read]:
    name = str(step.get("id", ""))
    yield from _condition_reads(step.get("runCondition"), f"the runCondition of step '{name}'")
    if step.get("kind") == "loop":
        yield from _loop_reads(step)
        if deep:
            own = _loop_variables(step)
            for child in step.get("body") or []:
                yield from (read for read in _reads_in(child, deep=True) if read.var not in own)
        return
    if deep:
        for fragment in step.get("promptFragments") or []:
            if isinstance(fragment, dict):
                yield from _condition_reads(fragment.get("when"), f"a prompt fragment of step '{name}'")
        rule = step.get("requireConfirmation")
        if isinstance(rule, dict):
            condition = rule.get("condition") if "kind" in rule else rule
            yield from _condition_reads(condition, f"the confirmation rule of step '{name}'")


def _loop_variables(step: Step) -> set[str]:
    """The variables a loop sets itself (iteration, item, index): never asked of the agent."""
    spec = loops.LoopSpec.of(step)
    return {spec.iteration_var, spec.item_var, spec.index_var}


def _loop_reads(step: Step) -> Iterator[Read]:
    spec = loops.LoopSpec.of(step)
    where = f"loop '{spec.loop_id}'"
    own = _loop_variables(step)
    yield from (r for r in _condition_reads(spec.condition, f"the condition of {where}") if r.var not in own)
    if spec.type == "forEach" and isinstance(spec.items, str):
        yield Read(_root(spec.items), "array", (), f"the items of {where}")
    if spec.type == "for" and isinstance(spec.count, str):
        yield Read(_root(spec.count), "integer", (), f"the count of {where}")


def _condition_reads(condition: Any, why: str) -> Iterator[Read]:
    if not isinstance(condition, dict):
        return
    for combinator in ("and", "or"):
        for item in condition.get(combinator) or []:
            yield from _condition_reads(item, why)
    yield from _condition_reads(condition.get("not"), why)
    name = condition.get("var")
    if isinstance(name, str) and name.strip():
        yield _read_of(name, condition, why)


def _read_of(name: str, condition: JsonObject, why: str) -> Read:
    parts = name.split(".")
    if len(parts) > 1:  # a path: the root is an object, or a list when indexed or measured
        is_list = parts[1] == "length" or parts[1].isdigit()
        return Read(parts[0], "array" if is_list else "object", (), why)
    compared = [condition[op] for op in ("equals", "not_equals") if op in condition]
    allowed = condition.get("in")
    if isinstance(allowed, list):
        compared += allowed
    kind = "any"
    if any(op in condition for op in NUMERIC):
        kind = "number"
    elif any(op in condition for op in TEXTUAL):
        kind = "string"
    elif compared:
        kinds = {_json_type(value) for value in compared}
        kind = kinds.pop() if len(kinds) == 1 else "any"
    elif not any(op in condition for op in COMPARISONS):
        kind = "boolean"  # a bare {"var": x} tests truthiness: a flag
    values = tuple(value for value in compared if isinstance(value, str | int | float | bool))
    return Read(name, kind, values, why)


def _root(name: str) -> str:
    return name.split(".")[0]


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "any"
