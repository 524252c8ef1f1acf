"""Loop semantics: whether a loop runs another iteration, and the variables an iteration exposes.

Every decision is taken at an iteration boundary: before the first iteration (entering the loop)
and after each completed one. `maxIterations` caps every loop type; when the cap, and only the cap,
stops a loop, a LOOP_MAX_ITERATIONS warning says so. An artifact-driven loop never ends by
accident: an iteration that ends with no decision for it raises DecisionMissing, and the step that
ended it is blocked until it sends one.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workflows_app.conditions import evaluate, lookup
from workflows_app.engine import decisions
from workflows_app.engine.codes import WarningCode, warning
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import (
    ArtifactConditionSource,
    CompiledStep,
    Condition,
    ConditionSource,
    ContextConditionSource,
    EngineWarning,
    LoopConfig,
    LoopStep,
    LoopView,
)
from workflows_app.engine.state import Decision, Frame, Machine
from workflows_app.engine.tree import loop_at
from workflows_app.engine.values import MISSING, is_integer, json_type

if TYPE_CHECKING:  # Python 3.13 has it in typing; for mypy only
    from typing_extensions import TypeIs

DEFAULT_MAX_ITERATIONS = 100  # the schema's default, for hand-built workflows that omit it
MAX_ITERATIONS_LIMIT = 1000  # the schema's maximum: no loop may run longer, whatever the workflow says


class DecisionMissing(Exception):
    """An artifact-driven loop reached the end of an iteration and no decision says what comes next."""

    def __init__(self, spec: LoopSpec, iteration: int) -> None:
        super().__init__(spec.loop_id)
        self.spec = spec
        self.iteration = iteration


@dataclass(frozen=True)
class LoopSpec:
    """A loop step's configuration, read once with every default applied."""

    loop_id: str
    type: str  # while | until | for | forEach
    max_iterations: int
    condition: Condition | None  # while / until
    decision_key: str | None  # set for artifact-driven loops: the loopId decisions must name
    items: Any  # forEach: name of the context variable holding the list
    count: Any  # for: a number, or the name of a context variable holding one
    iteration_var: str
    item_var: str
    index_var: str

    @property
    def shown_id(self) -> str:
        """The id an agent is shown and may name in a decision: the decisions' loopId where the workflow
        declares one (both it and the step id are accepted), else the loop step's id."""
        return self.decision_key or self.loop_id

    @classmethod
    def of(cls, step: LoopStep) -> LoopSpec:
        loop: LoopConfig = step.get("loop") or {}
        loop_type = loop.get("type", "while")
        source = loop.get("conditionSource")
        condition = loop.get("condition")
        decision_key = None
        # conditionSource is the explicit form of a while/until loop's condition (schema: "for
        # while/until loops"); for / forEach loops are driven by their count or items alone.
        if loop_type in ("while", "until") and _decided(source):
            decision_key = source["loopId"] if isinstance(source.get("loopId"), str) else str(step["id"])
        elif loop_type in ("while", "until") and _conditioned(source):
            condition = source.get("condition")
        return cls(
            loop_id=str(step["id"]),
            type=loop_type,
            max_iterations=_max_iterations(loop.get("maxIterations")),
            condition=condition,
            decision_key=decision_key,
            items=loop.get("items"),
            count=loop.get("count"),
            iteration_var=loop.get("iterationVar") or "currentIteration",
            item_var=loop.get("itemVar") or "currentItem",
            index_var=loop.get("indexVar") or "currentIndex",
        )


def _decided(source: ConditionSource | None) -> TypeIs[ArtifactConditionSource]:
    return source is not None and source.get("kind") == "artifact_contract"


def _conditioned(source: ConditionSource | None) -> TypeIs[ContextConditionSource]:
    return source is not None and source.get("kind") == "context_variable"


def variables(spec: LoopSpec, frame: Frame) -> JsonObject:
    """The context variables an iteration sees: 1-based iteration, and for forEach item and 0-based index."""
    found: JsonObject = {spec.iteration_var: frame.iteration}
    if frame.items is not None and frame.iteration <= len(frame.items):
        found[spec.item_var] = frame.items[frame.iteration - 1]
        found[spec.index_var] = frame.iteration - 1
    return found


def view(spec: LoopSpec, frame: Frame) -> LoopView:
    """How the innermost loop is shown to the agent in `pending.loop`."""
    shown: LoopView = {"loopId": spec.shown_id, "iteration": frame.iteration, "maxIterations": spec.max_iterations}
    if frame.items is not None and frame.iteration <= len(frame.items):
        shown["item"] = copy.deepcopy(frame.items[frame.iteration - 1])
        shown["index"] = frame.iteration - 1
    return shown


def scope(steps: list[CompiledStep], machine: Machine, depth: int | None = None) -> JsonObject:
    """The context conditions and templates see: the external context overlaid with the variables of
    the first `depth` active loops (all of them by default), inner loops winning over outer ones."""
    found = dict(machine.context)
    for level, frame in enumerate(machine.frames[:depth]):
        found.update(variables(LoopSpec.of(loop_at(steps, machine.position[: level + 1])), frame))
    return found


@dataclass(frozen=True)
class Why:
    """What decided a loop boundary (for the trace): the condition's result for while/until, the
    decision taken for a loop steered by decisions, and whether maxIterations, not the loop's own
    rule, ended it. `scope` is what the condition saw."""

    held: bool | None = None
    decision: str | None = None
    capped: bool = False
    scope: JsonObject | None = None


def next_iteration(
    spec: LoopSpec, frame: Frame | None, outer_scope: JsonObject, loop_decisions: dict[str, Decision], done: int
) -> tuple[Frame | None, list[EngineWarning], Why]:
    """The frame of the loop's next iteration, or None when the loop ends, with why.

    `frame` is None when entering the loop, else the iteration just completed. `outer_scope` is the
    context as seen just outside this loop; `done` is the number of steps acknowledged so far.
    Consumes the loop_control decision it reads.
    """
    found: list[EngineWarning] = []
    if frame is None:
        candidate = Frame(spec.loop_id, 1)
        if spec.type == "forEach":
            candidate.items = _items(spec, outer_scope, found)
        elif spec.type == "for":
            candidate.count = _count(spec, outer_scope, found)
    else:
        candidate = Frame(spec.loop_id, frame.iteration + 1, frame.items, frame.count)
    if spec.decision_key is not None:
        candidate.since = done + 1  # the next acknowledged step is the first of the new iteration
    wanted, why = _wants(spec, frame, candidate, outer_scope, loop_decisions)
    if not wanted:
        return None, found, why
    if candidate.iteration > spec.max_iterations:
        found.append(
            warning(
                WarningCode.LOOP_MAX_ITERATIONS,
                f"Loop '{spec.loop_id}' stopped after {spec.max_iterations} iteration(s) (its maxIterations) "
                "although it would have continued.",
            )
        )
        return None, found, Why(why.held, why.decision, True, why.scope)
    return candidate, found, why


_NO_REASON = Why()


def _wants(
    spec: LoopSpec,
    frame: Frame | None,
    candidate: Frame,
    outer_scope: JsonObject,
    loop_decisions: dict[str, Decision],
) -> tuple[bool, Why]:
    """Whether the loop's own rule asks for iteration `candidate.iteration`, ignoring maxIterations."""
    if spec.type == "forEach":
        return candidate.iteration <= len(candidate.items or []), _NO_REASON
    if spec.type == "for":
        return candidate.iteration <= (candidate.count or 0), _NO_REASON
    if spec.decision_key is not None:
        if frame is None:
            # A decision sent before the loop (an "init" step, say) counts; with none, the loop starts.
            decision = decisions.take(loop_decisions, spec.decision_key)
            return decision != "stop", Why(decision=decision)
        decision = decisions.take(loop_decisions, spec.decision_key, since=frame.since)
        if decision is None and candidate.iteration <= spec.max_iterations:
            raise DecisionMissing(spec, frame.iteration)
        return decision == "continue", Why(decision=decision)
    # The condition sees the variables of the iteration about to run, so `currentIteration <= 3`
    # means "run iterations 1 to 3".
    seen = {**outer_scope, **variables(spec, candidate)}
    holds = evaluate(spec.condition, seen)
    return (holds if spec.type != "until" else not holds), Why(held=holds, scope=seen)


def _items(spec: LoopSpec, outer_scope: JsonObject, found: list[EngineWarning]) -> list[Any]:
    value = lookup(outer_scope, spec.items) if isinstance(spec.items, str) else MISSING
    if isinstance(value, list):
        return copy.deepcopy(value)  # a snapshot: editing the list mid-loop does not change this loop
    what = "is missing" if value is MISSING else f"is {json_type(value)}, not a list"
    found.append(
        warning(
            WarningCode.LOOP_ITEMS_NOT_A_LIST,
            f"Loop '{spec.loop_id}' runs no iteration: its items variable '{spec.items}' {what}.",
        )
    )
    return []


def _count(spec: LoopSpec, outer_scope: JsonObject, found: list[EngineWarning]) -> int:
    value = lookup(outer_scope, spec.count) if isinstance(spec.count, str) else spec.count
    number = _as_number(value)
    if number is None:
        source = f"variable '{spec.count}'" if isinstance(spec.count, str) else "value"
        found.append(
            warning(
                WarningCode.LOOP_COUNT_INVALID,
                f"Loop '{spec.loop_id}' runs no iteration: its count {source} is {json_type(value)}, not a number.",
            )
        )
        return 0
    return max(0, math.floor(number))


def _as_number(value: Any) -> float | None:
    """Numbers, and numeric text (agents often send "3"), as conditions compare them."""
    if is_integer(value) or (isinstance(value, float) and math.isfinite(value)):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _max_iterations(value: Any) -> int:
    number = _as_number(value)
    if number is None or isinstance(value, str):
        return DEFAULT_MAX_ITERATIONS
    return min(MAX_ITERATIONS_LIMIT, max(1, math.floor(number)))
