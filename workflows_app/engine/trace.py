"""Why the cursor moved where it did: what one start or advance evaluated, step by step.

While the interpreter walks from the acknowledged step to the next one to do, a Tracer notes each
decision it takes: a step whose runCondition held (selected) or did not (skipped), a loop entered,
run again, left or never run (with its condition and the context values it read, its count or
items, or the agent's loop_control decision), and the run's end. The result is a Trace: immutable,
typed, returned in the Transition beside the new state, and stored by the caller as JSON
(`to_json`; `from_json` reads it back and refuses anything it would not have written).

A trace must stay small whatever a workflow or an agent's context holds, since it is kept with
every node: values are previews of at most MAX_VALUE_CHARS characters (built without serializing
the whole value), a condition's text is cut at MAX_EXPRESSION_CHARS, a check names at most
MAX_VALUES values, and an advance keeps at most MAX_ENTRIES entries (a loop whose whole body is
skipped can take hundreds of decisions in one advance): the first ones, then the final one (the
step selected, or the run's end), with the number left out in between.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard, get_args

from workflows_app.conditions import COMPARISONS, lookup
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import CompiledStep
from workflows_app.engine.templating import render
from workflows_app.engine.values import MISSING

MAX_ENTRIES = 40
MAX_VALUE_CHARS = 120
MAX_EXPRESSION_CHARS = 300
MAX_TITLE_CHARS = 200
MAX_VALUES = 8
_MAX_DEPTH = 4  # how deep a preview looks into nested lists and objects

EntryKind = Literal[
    "selected",  # the step the agent must do now
    "skipped",  # a step (or loop) whose runCondition was false
    "loop_started",  # a loop entered: its first iteration runs
    "loop_repeated",  # a loop runs another iteration
    "loop_not_run",  # a loop entered and left at once: not even one iteration
    "loop_ended",  # a loop left after one or more iterations
    "completed",  # no step left: the run is complete
]
LoopEnd = Literal["condition", "count", "items", "decision", "max_iterations"]
_KINDS: frozenset[str] = frozenset(get_args(EntryKind))
_ENDS: frozenset[str] = frozenset(get_args(LoopEnd))


class TraceError(ValueError):
    """Stored JSON that is not a trace this module writes."""


@dataclass(frozen=True)
class Check:
    """One condition evaluated: its text, what it gave, and the context values it read (name,
    preview; the preview is None when the variable was not set)."""

    expression: str
    result: bool
    values: tuple[tuple[str, str | None], ...] = ()


@dataclass(frozen=True)
class LoopState:
    """Where a loop stood when a decision about it was taken."""

    loop_type: str  # while | until | for | forEach
    iteration: int  # started/repeated: the iteration about to run; ended/not run: the iterations done
    max_iterations: int
    total: int | None = None  # for / forEach: how many iterations in all (the count, the items)
    source: str | None = None  # for / forEach: the context variable the count or the items came from
    item: str | None = None  # forEach, an iteration about to run: a preview of its item
    decision: str | None = None  # loops steered by wr.loop_control: 'continue' or 'stop', when one was taken
    ended_by: LoopEnd | None = None  # loop_not_run / loop_ended: what ended it
    check: Check | None = None  # while / until: the loop's condition, as the iteration about to run saw it


@dataclass(frozen=True)
class Entry:
    kind: EntryKind
    step_id: str
    title: str
    check: Check | None = None  # the step's runCondition, when it has one
    loop: LoopState | None = None


@dataclass(frozen=True)
class Trace:
    entries: tuple[Entry, ...] = ()
    omitted: int = 0  # entries left out between the first ones and the last (MAX_ENTRIES)

    def to_json(self) -> JsonObject:
        data: JsonObject = {"entries": [_entry_json(entry) for entry in self.entries]}
        if self.omitted:
            data["omitted"] = self.omitted
        return data

    @classmethod
    def from_json(cls, data: Any) -> Trace:
        if not isinstance(data, Mapping) or set(data) - {"entries", "omitted"}:
            raise TraceError("a trace is an object with 'entries' (and 'omitted')")
        entries, omitted = data.get("entries"), data.get("omitted", 0)
        if not isinstance(entries, list) or len(entries) > MAX_ENTRIES:
            raise TraceError(f"a trace's entries are a list of at most {MAX_ENTRIES}")
        if not _whole(omitted) or omitted < 0:
            raise TraceError("a trace's 'omitted' is a count")
        return cls(tuple(_entry(item) for item in entries), omitted)


EMPTY = Trace()


class Tracer:
    """Collects one start's or advance's entries; `trace()` gives the result. Costs nothing once full:
    callers ask `wants` before building an entry."""

    def __init__(self) -> None:
        self._entries: list[Entry] = []
        self._omitted = 0

    @property
    def wants(self) -> bool:
        if len(self._entries) < MAX_ENTRIES - 1:  # one place is kept for the final entry
            return True
        self._omitted += 1
        return False

    def step(self, kind: EntryKind, step: CompiledStep, scope: JsonObject, held: bool | None = None) -> None:
        """A step selected or skipped; `held` is what its runCondition gave (None: it has none)."""
        if kind == "selected" or self.wants:
            condition = step.get("runCondition")
            check = check_of(condition, scope, held) if condition and held is not None else None
            self._entries.append(Entry(kind, str(step["id"]), title_of(step, scope), check))

    def loop(self, kind: EntryKind, step: CompiledStep, state: LoopState, ran: Check | None = None) -> None:
        """A decision about a loop (ask `wants` first: building `state` is the cost); `ran` is its
        runCondition's check, when entering a loop that has one."""
        self._entries.append(Entry(kind, str(step["id"]), title_of(step), ran, state))

    def completed(self) -> None:
        self._entries.append(Entry("completed", "", ""))

    def trace(self) -> Trace:
        return Trace(tuple(self._entries), self._omitted)


def title_of(step: CompiledStep, scope: JsonObject | None = None) -> str:
    """The step's title, its placeholders filled from `scope` as the agent would have seen them."""
    title = str(step.get("title") or step["id"])
    return _cut(render(title, scope) if scope is not None and "{{" in title else title, MAX_TITLE_CHARS)


def check_of(condition: Any, scope: Mapping[str, Any], result: bool) -> Check:
    """The trace of `condition`, which gave `result` in `scope`: its text and the values it read."""
    expression, names = _described(condition)
    values = []
    for name in names:
        value = lookup(scope, name)
        values.append((name, None if value is MISSING else preview(value)))
    return Check(expression, result, tuple(values))


# A condition's text and the names it reads depend on the condition alone, which lives in a compiled
# workflow the caller keeps (one object per pinned workflow): worked out once per condition object,
# keyed by its identity and holding the object so that the key cannot be reused while the entry lives.
_MAX_DESCRIBED = 4096
_described_conditions: dict[int, tuple[Any, str, tuple[str, ...]]] = {}


def _described(condition: Any) -> tuple[str, tuple[str, ...]]:
    known = _described_conditions.get(id(condition))
    if known is None or known[0] is not condition:
        if len(_described_conditions) >= _MAX_DESCRIBED:
            _described_conditions.clear()
        names = tuple(dict.fromkeys(_variables(condition)))[:MAX_VALUES]
        known = (condition, _cut(describe(condition), MAX_EXPRESSION_CHARS), names)
        _described_conditions[id(condition)] = known
    return known[1], known[2]


def describe(condition: Any) -> str:
    """A condition of the WorkRail condition language as one line a developer reads:
    `taskComplexity == 'Small'`, `not (skipTests)`, `(a > 1) or (b in ['x', 'y'])`."""
    if not isinstance(condition, Mapping) or not condition:
        return "always"
    parts: list[str] = []
    for combinator in ("and", "or"):
        items = condition.get(combinator)
        if isinstance(items, list) and items:
            described = [describe(item) for item in items]
            parts.append(f" {combinator} ".join(_grouped(text) for text in described))
    if "not" in condition:
        inner = describe(condition["not"])
        parts.append(f"not {_grouped(inner, always=' ' in inner)}")
    name = condition.get("var")
    if isinstance(name, str):
        used = [op for op in COMPARISONS if op in condition]
        if not used:
            parts.append(name)  # true when set and not false, 0 or empty, as in JavaScript
        parts += [f"{name} {_OPERATORS[op]} {_literal(condition[op])}" for op in used]
    return " and ".join(_grouped(part) for part in parts) if len(parts) > 1 else (parts[0] if parts else "always")


_OPERATORS = {
    "equals": "==",
    "not_equals": "!=",
    "gt": ">",
    "gte": ">=",
    "lt": "<",
    "lte": "<=",
    "contains": "contains",
    "startsWith": "starts with",
    "endsWith": "ends with",
    "matches": "matches",
    "in": "in",
}


def _grouped(text: str, *, always: bool = False) -> str:
    return f"({text})" if always or " and " in text or " or " in text else text


def _variables(condition: Any) -> list[str]:
    """Every context variable a condition reads, in the order written."""
    if not isinstance(condition, Mapping):
        return []
    found = [condition["var"]] if isinstance(condition.get("var"), str) else []
    for combinator in ("and", "or"):
        items = condition.get(combinator)
        if isinstance(items, list):
            for item in items:
                found += _variables(item)
    if "not" in condition:
        found += _variables(condition["not"])
    return found


def preview(value: Any) -> str:
    """A value as conditions compare it, at most MAX_VALUE_CHARS characters: strings quoted
    ('Large'), the rest as JSON; built piece by piece, so a huge value costs no more than a small one."""
    pieces: list[str] = []
    _write(value, pieces, [MAX_VALUE_CHARS + 1], 0)
    text = "".join(pieces)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _write(value: Any, pieces: list[str], budget: list[int], depth: int) -> None:
    """Appends `value`'s text to `pieces` until `budget[0]` characters are spent."""
    if budget[0] <= 0:
        return
    if isinstance(value, str):
        text = "'" + value[: budget[0]].replace("\\", "\\\\").replace("'", "\\'") + "'"
    elif isinstance(value, bool) or value is None:
        text = json.dumps(value)
    elif isinstance(value, int | float):
        text = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) else str(value)
    elif isinstance(value, list | Mapping):
        _write_container(value, pieces, budget, depth)
        return
    else:
        text = type(value).__name__
    pieces.append(text)
    budget[0] -= len(text)


def _write_container(value: list[Any] | Mapping[str, Any], pieces: list[str], budget: list[int], depth: int) -> None:
    opening, closing = ("[", "]") if isinstance(value, list) else ("{", "}")
    if depth >= _MAX_DEPTH:
        text = f"{opening}…{closing}" if value else f"{opening}{closing}"
        pieces.append(text)
        budget[0] -= len(text)
        return
    pieces.append(opening)
    budget[0] -= 1
    items = value if isinstance(value, list) else value.items()
    for index, item in enumerate(items):
        if budget[0] <= 0:
            return
        if index:
            pieces.append(", ")
            budget[0] -= 2
        if isinstance(value, list):
            _write(item, pieces, budget, depth + 1)
        else:
            key, inner = item
            _write(str(key), pieces, budget, depth + 1)
            pieces.append(": ")
            budget[0] -= 2
            _write(inner, pieces, budget, depth + 1)
    pieces.append(closing)
    budget[0] -= 1


def _literal(value: Any) -> str:
    if isinstance(value, list):
        shown = [_literal(item) for item in value[:MAX_VALUES]]
        return "[" + ", ".join(shown + (["…"] if len(value) > MAX_VALUES else [])) + "]"
    return preview(value)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- JSON ------------------------------------------------------------------------------------------


def _entry_json(entry: Entry) -> JsonObject:
    data: JsonObject = {"kind": entry.kind, "stepId": entry.step_id, "title": entry.title}
    if entry.check is not None:
        data["check"] = _check_json(entry.check)
    if entry.loop is not None:
        loop = entry.loop
        shown: JsonObject = {"type": loop.loop_type, "iteration": loop.iteration, "maxIterations": loop.max_iterations}
        for key, value in (
            ("total", loop.total),
            ("source", loop.source),
            ("item", loop.item),
            ("decision", loop.decision),
            ("endedBy", loop.ended_by),
        ):
            if value is not None:
                shown[key] = value
        if loop.check is not None:
            shown["check"] = _check_json(loop.check)
        data["loop"] = shown
    return data


def _check_json(check: Check) -> JsonObject:
    return {
        "expression": check.expression,
        "result": check.result,
        "values": [[name, shown] for name, shown in check.values],
    }


def _entry(data: Any) -> Entry:
    if not isinstance(data, Mapping) or set(data) - {"kind", "stepId", "title", "check", "loop"}:
        raise TraceError("a trace entry is an object with kind, stepId, title (and check, loop)")
    kind = data.get("kind")
    if kind not in _KINDS:
        raise TraceError(f"unknown trace entry kind {str(kind)[:40]!r}")
    step_id, title = _text(data.get("stepId"), MAX_TITLE_CHARS), _text(data.get("title"), MAX_TITLE_CHARS)
    check = _check(data["check"]) if data.get("check") is not None else None
    loop = _loop(data["loop"]) if data.get("loop") is not None else None
    return Entry(kind, step_id, title, check, loop)


def _check(data: Any) -> Check:
    if not isinstance(data, Mapping) or set(data) != {"expression", "result", "values"}:
        raise TraceError("a check is an object with expression, result and values")
    values = data["values"]
    if not isinstance(values, list) or len(values) > MAX_VALUES or not isinstance(data["result"], bool):
        raise TraceError(f"a check has a boolean result and at most {MAX_VALUES} values")
    read = []
    for pair in values:
        if not isinstance(pair, list) or len(pair) != 2:
            raise TraceError("a check's value is [name, preview]")
        shown = None if pair[1] is None else _text(pair[1], MAX_VALUE_CHARS)
        read.append((_text(pair[0], MAX_EXPRESSION_CHARS), shown))
    return Check(_text(data["expression"], MAX_EXPRESSION_CHARS), data["result"], tuple(read))


def _loop(data: Any) -> LoopState:
    known = {"type", "iteration", "maxIterations", "total", "source", "item", "decision", "endedBy", "check"}
    if not isinstance(data, Mapping) or set(data) - known:
        raise TraceError("a loop state has type, iteration, maxIterations (and total, source, item, decision, ...)")
    iteration, most, total = data.get("iteration"), data.get("maxIterations"), data.get("total")
    if not _whole(iteration) or not _whole(most) or (total is not None and not _whole(total)):
        raise TraceError("a loop state's iteration, maxIterations and total are whole numbers")
    decision, ended_by = data.get("decision"), data.get("endedBy")
    if decision not in (None, "continue", "stop") or (ended_by is not None and ended_by not in _ENDS):
        raise TraceError("a loop state's decision is continue or stop, and endedBy one of " + ", ".join(sorted(_ENDS)))
    source, item = data.get("source"), data.get("item")
    return LoopState(
        loop_type=_text(data.get("type"), 20),
        iteration=iteration,
        max_iterations=most,
        total=total,
        source=None if source is None else _text(source, MAX_EXPRESSION_CHARS),
        item=None if item is None else _text(item, MAX_VALUE_CHARS),
        decision=decision,
        ended_by=ended_by,
        check=_check(data["check"]) if data.get("check") is not None else None,
    )


def _text(value: Any, limit: int) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise TraceError(f"expected text of at most {limit} characters")
    return value


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31
