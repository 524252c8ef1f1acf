"""Why a node's step was chosen, in plain words: the trace the engine recorded when it moved there
(workflows_app/engine/trace.py), one line per decision.

"Selected: Phase 1 — no condition", "Skipped: Phase 0b — runCondition `taskComplexity == 'Small'` was
false (taskComplexity = 'Large')", "Loop Verify slices: iteration 2 of 3 (continue: iteration 2 of the
count 3)". A line is a list of parts, each plain text or code, so that a page can set the code apart
and a test or a report can read the same words as text. A node without a trace says why it has none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from runs.models import Ack, Checkpoint, Node
from runs.readmodels.run_view import parse_node_id
from workflows_app.engine.trace import MAX_ENTRIES, Check, Entry, LoopState, Trace, TraceError

Part = tuple[str, bool]  # (text, whether it is code)

CHECKPOINT = "Recorded by a checkpoint: the run stayed on the same step, so nothing was evaluated."
NOT_RECORDED = (
    "Not recorded: this node was made before WorkRail kept why each step is chosen (conditions, loops and decisions)."
)
NOT_BY_AN_ADVANCE = (
    "Not made by an agent's advance (no acknowledged step led here), so no condition or loop was evaluated "
    "to choose this step."
)
UNREADABLE = "The record of why this step was chosen could not be read."


@dataclass(frozen=True)
class TraceLine:
    tone: str  # selected | skipped | loop | completed: how a page marks the line
    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        """The line as text, code in backticks."""
        return "".join(f"`{text}`" if code else text for text, code in self.parts)


@dataclass(frozen=True)
class TraceView:
    recorded: bool
    lines: tuple[TraceLine, ...] = ()
    omitted: str = ""  # what was left out, in words, when the trace hit its cap
    missing: str = ""  # when not recorded: why there is none

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines) or self.missing


def node_trace(node_id: str | int) -> TraceView:
    """The trace of the node with this public id (the caller has already found the node)."""
    row = Node.objects.filter(public_id=parse_node_id(node_id)).values_list("pk", "parent_id", "trace").first()
    if row is None:
        return TraceView(False, missing=NOT_RECORDED)
    pk, parent, stored = row
    if stored is not None:
        return trace_view(stored)
    if Checkpoint.objects.filter(child_id=pk).exists():
        return TraceView(False, missing=CHECKPOINT)
    if parent is None or Ack.objects.filter(child_id=pk).exists():  # a start or an advance, before traces
        return TraceView(False, missing=NOT_RECORDED)
    return TraceView(False, missing=NOT_BY_AN_ADVANCE)


def trace_view(stored: object) -> TraceView:
    """The words of a stored trace (its JSON)."""
    try:
        trace = Trace.from_json(stored)
    except TraceError:
        return TraceView(False, missing=UNREADABLE)
    omitted = ""
    if trace.omitted:
        omitted = (
            f"{trace.omitted} more decision{'s' if trace.omitted != 1 else ''} taken before the last one "
            f"{'were' if trace.omitted != 1 else 'was'} not kept (at most {MAX_ENTRIES} are kept per step)."
        )
    return TraceView(True, tuple(_line(entry) for entry in trace.entries), omitted)


def _line(entry: Entry) -> TraceLine:
    if entry.kind == "completed":
        return TraceLine("completed", (("Completed: no step was left, so the run is complete.", False),))
    if entry.loop is not None:
        return TraceLine("loop", _loop_parts(entry, entry.loop))
    verdict = "Selected" if entry.kind == "selected" else "Skipped"
    parts: list[Part] = [(f"{verdict}: {entry.title} — ", False)]
    parts += _run_condition(entry.check) if entry.check is not None else [("no condition", False)]
    return TraceLine(entry.kind, tuple(parts))


def _run_condition(check: Check) -> list[Part]:
    return [("runCondition ", False), *_check(check)]


def _check(check: Check, *, result: str | None = None) -> list[Part]:
    """`expression` was true (name = value, ...)."""
    said = result or ("true" if check.result else "false")
    parts: list[Part] = [(check.expression, True), (f" was {said}", False)]
    if check.values:
        parts.append((" (", False))
        parts += _joined(_value(name, shown) for name, shown in check.values)
        parts.append((")", False))
    return parts


def _value(name: str, shown: str | None) -> list[Part]:
    return [(f"{name} is not set" if shown is None else f"{name} = {shown}", False)]


def _joined(groups: Iterable[list[Part]]) -> list[Part]:
    parts: list[Part] = []
    for index, group in enumerate(groups):
        if index:
            parts.append((", ", False))
        parts += group
    return parts


def _loop_parts(entry: Entry, loop: LoopState) -> tuple[Part, ...]:
    head = f"Loop {entry.title}: "
    if entry.kind in ("loop_started", "loop_repeated"):
        of = f" of {loop.total}" if loop.total is not None else ""
        parts: list[Part] = [(f"{head}iteration {loop.iteration}{of} (", False)]
        parts += _why_it_runs(entry.kind == "loop_started", loop)
    else:
        done = loop.iteration
        ran = "ran no iteration" if entry.kind == "loop_not_run" else f"ended after {_iterations(done)}"
        parts = [(f"{head}{ran} (", False)]
        parts += _why_it_ended(loop)
    parts.append((")", False))
    if entry.check is not None:  # the loop's own runCondition, which let it be entered
        parts += [("; its ", False), *_run_condition(entry.check)]
    return tuple(parts)


def _why_it_runs(starting: bool, loop: LoopState) -> list[Part]:
    step = "start" if starting else "continue"
    source: list[Part] = [(loop.source, True)] if loop.source else []
    if loop.loop_type == "for":
        counted: list[Part] = [(" = ", False)] if source else []
        return [(f"{step}: count ", False), *source, *counted, (f"{loop.total}", False)]
    if loop.loop_type == "forEach":
        of_items: list[Part] = [(" of ", False), *source] if source else []
        return [(f"{step}: item {loop.iteration}", False), *of_items, (f" is {loop.item}", False)]
    if loop.check is not None:
        # until runs while its condition is false; while, while it is true
        return [(f"{step}: ", False), *_check(loop.check)]
    if loop.decision is not None:
        return [(f"{step}: the agent's loop decision was '{loop.decision}'", False)]
    return [(f"{step}: no loop decision said stop", False)]


def _why_it_ended(loop: LoopState) -> list[Part]:
    if loop.ended_by == "max_iterations":
        return [(f"stopped at its maxIterations, {loop.max_iterations}, although it would have continued", False)]
    source: list[Part] = (
        [(loop.source, True)] if loop.source else [("its count" if loop.loop_type == "for" else "its items", False)]
    )
    if loop.ended_by == "count":
        if loop.iteration == 0:
            return [("count ", False), *source, (f" is {loop.total or 0}", False)]
        return [(f"stop: all {_iterations(loop.total or 0)} of the count ", False), *source, (" done", False)]
    if loop.ended_by == "items":
        if loop.iteration == 0:
            return [*source, (" has no items", False)]
        return [(f"stop: all {loop.total} items of ", False), *source, (" done", False)]
    if loop.ended_by == "decision":
        return [(f"stop: the agent's loop decision was '{loop.decision or 'stop'}'", False)]
    if loop.check is not None:
        return [("stop: ", False), *_check(loop.check)]
    return [("stop", False)]


def _iterations(count: int) -> str:
    return f"{count} iteration{'s' if count != 1 else ''}"
