"""The context variables the pending step should send: everything the agent must know up front.

Only what the workflow's structure shows is stated as fact: what reads a variable (conditions, loops,
templates, prompt fragments, confirmation rules, the context a parallel step hands its delegations),
the values conditions compare it with and the values a contract's enum allows for a field of the same
name. What a step asks for comes from its StepAsks (workflows_app/engine/asks.py): the names it declares
(`promptBlocks.outputRequired`), and the heuristic readings of its words in workflows_app/prose ("context.x",
"Capture: `x`", "Set these keys in ... `context` ..."); a step that only names a variable mentions it, and
is said to. "Nothing later reads it" is said only when
no later step reads it and no later prompt even names it.

An agent cannot be expected to read every condition and template of a workflow to learn that it
should send `context.severity` with this step. So the pending step names:
- every variable its prompt asks for by name (`context.verifyCommand`, "set context `slices`"),
  whether or not anything reads it, and even when it is set already (its current value is shown:
  the step may be where it changes, as a loop's `currentSlice` does each iteration);
- every variable not set yet that the workflow reads anywhere after this step (a condition, a loop's
  count or items, a prompt fragment, a `{{template}}` in a later prompt) and that the step's prompt
  mentions, or that the very next decision point reads (the next step's runCondition, the next
  loop's count or items, or the end of the current loop iteration).
Each comes with the type the workflow treats it as and every value the workflow compares it with
anywhere, so the first step that asks for a variable already shows the whole set. A loop's own
variables (iteration, item, index) are never asked for: the loop sets them.

Where every variable is read depends only on the workflow, so that is indexed once per compiled
workflow; each call then filters a short list by the run's position and context.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from workflows_app.condition_words import describe
from workflows_app.conditions import COMPARISONS
from workflows_app.engine import loops
from workflows_app.engine.asks import by_step
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.memo import per_workflow
from workflows_app.engine.model import (
    CompiledStep,
    CompiledWorkflow,
    Delegation,
    EngineState,
    LoopStep,
    delegations_of,
    is_loop,
)
from workflows_app.engine.templating import placeholders
from workflows_app.engine.tree import agent_steps, top_steps, walk
from workflows_app.engine.values import json_type

NUMERIC = ("gt", "gte", "lt", "lte")
TEXTUAL = ("startsWith", "endsWith", "matches")
# Read by WorkRail itself, whatever the workflow does with them.
SESSION_KEYS = {
    "ticketId": "WorkRail: runs with the same ticketId share one session",
    "sessionKey": "WorkRail: runs with the same sessionKey share one session",
    "goal": "WorkRail: the task's goal, shown with every step",
}
NOT_READ = "nothing later reads it; kept for the record"
NOT_READ_BUT_NAMED = (
    "no later condition, loop or template reads it; the prompts of later steps name it or its values: {}"
)
NAMED_SHOWN = 2  # later steps named in a line; the rest counted (every step that names it is the same news)


def _first_named(steps: list[str]) -> str:
    shown = ", ".join(f"'{step}'" for step in steps[:NAMED_SHOWN])
    more = len(steps) - NAMED_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True)
class Read:
    """One place where the workflow reads a variable."""

    var: str  # the root name: `ticket` for `ticket.priority`
    type: str  # JSON type the workflow treats it as, or "any"
    values: tuple[Any, ...]  # values it is compared with
    why: str


@dataclass(frozen=True)
class Located:
    position: tuple[int, ...]  # of the step or loop that reads
    gate: str | None  # "run": its runCondition; "loop": a loop's condition, count or items; None: inside
    read: Read


@dataclass(frozen=True)
class Index:
    reads: tuple[Located, ...]  # in document order
    words: dict[tuple[int, ...], frozenset[str]]  # the words of each step's title and prompt
    asked: dict[tuple[int, ...], tuple[str, ...]]  # the variables each step's prompt asks for by name
    quoted: dict[tuple[int, ...], tuple[str, ...]]  # the names each step's prompt writes as `code`
    offered: dict[tuple[int, ...], dict[str, tuple[str, ...]]]  # values a step's prompt offers a name
    lengths: dict[tuple[int, ...], int]  # how many entries each step list has, by its parent's position
    owned: dict[tuple[int, ...], frozenset[str]]  # the loop variables in scope at each step
    ids: dict[tuple[int, ...], str]  # each step's id
    set_loose: dict[tuple[int, ...], tuple[str, ...]]  # names each step's prompt says to set or update
    enums: dict[str, tuple[tuple[Any, ...], str]]  # a contract field's name: its enum, and which contract
    by_var: dict[str, tuple[Located, ...]]  # every read of each variable, in document order


def expected(compiled: CompiledWorkflow, state: EngineState) -> list[JsonObject]:
    """The expected variables at the state's pending step: those it asks for by name first, then the
    others in the order the workflow reads them."""
    if state.get("complete") or state.get("pending") is None:
        return []
    index = _index(compiled)
    position = tuple(state.get("cursor", {}).get("position") or ())
    context = state.get("context") or {}
    structural = index.by_var  # a name the prompt says to set counts as asked when something reads it
    asked = (*index.asked.get(position, ()), *(n for n in index.set_loose.get(position, ()) if n in structural))
    mentioned = index.words.get(position, frozenset())
    nearby = {located.read.var for located in index.reads if _next(located, position, index)}
    later = [
        located.read.var
        for located in index.reads
        if _later(located.position, position) and located.read.var not in context
    ]
    # A name the prompt writes as code (`rootCauseConfirmed`) and the workflow reads is asked for even
    # when it is set already: a loop's exit variable is set before the loop and decided in it.
    read_anywhere = names_read(compiled)
    quoted = [name for name in index.quoted.get(position, ()) if name in read_anywhere]
    wanted = list(asked) + quoted + [var for var in dict.fromkeys(later) if var in mentioned or var in nearby]
    found = []
    for var in dict.fromkeys(wanted):
        if var in index.owned.get(position, frozenset()):
            continue  # a loop variable: the loop sets it
        reads = index.by_var.get(var, ())
        entry = _entry(
            var,
            tuple(located.read for located in reads),
            # What reads it once this step is acknowledged: its own runCondition and prompt are behind it.
            tuple(located.read for located in reads if _later(located.position, position)),
            by_step=var in asked,
            context=context,
            choices=index.offered.get(position, {}).get(var, ()),
        )
        ahead = [located for located in reads if _later(located.position, position)]
        if var not in asked and var in context and not ahead:
            continue  # named in passing, set already, read by nothing later: nothing to send
        if var not in asked and (var in quoted or var in mentioned):
            entry["mentionedByThisStep"] = True
        if entry["why"] == NOT_READ:
            named = _named_later(index, var, [*entry.get("values", ()), *entry.get("choices", ())], position)
            if named:
                entry["why"] = NOT_READ_BUT_NAMED.format(_first_named(named))
        if var in index.enums:
            allowed, where = index.enums[var]
            entry["allowed"] = list(allowed)
            entry["allowedBy"] = where
        found.append(entry)
    return found


# Values too common in any prose to say a prompt that holds them means this variable.
_COMMON_WORDS = frozenset({"true", "false", "yes", "none", "null", "all", "any"})


def _distinctive(value: str) -> bool:
    return value.isidentifier() and len(value) >= 3 and value.lower() not in _COMMON_WORDS


def _named_later(index: Index, var: str, values: list[Any], position: tuple[int, ...]) -> list[str]:
    """The later steps whose prompts name `var`, or one of the words it takes (THOROUGH for reviewMode):
    what they do with it is prose, so nothing more is claimed, and "nothing later reads it" is not said."""
    names = {var, *(value for value in values if isinstance(value, str) and _distinctive(value))}
    return [index.ids[where] for where, found in index.words.items() if names & found and _later(where, position)]


def _entry(
    var: str,
    reads: tuple[Read, ...],
    ahead: tuple[Read, ...],
    *,
    by_step: bool,
    context: JsonObject,
    choices: tuple[str, ...],
) -> JsonObject:
    types = {read.type for read in reads if read.type != "any"}
    values: list[Any] = []
    for read in reads:
        values += [value for value in read.values if value not in values]
    kind = types.pop() if len(types) == 1 else "any"
    if kind == "any" and choices:  # nothing compares it: the prompt's own words say what it holds
        kind = "boolean" if set(choices) <= {"true", "false"} else "string"
    entry: JsonObject = {
        "key": var,
        "type": kind,
        "why": "; ".join(dict.fromkeys(read.why for read in ahead)) or SESSION_KEYS.get(var, NOT_READ),
        "setByThisStep": by_step,
    }
    if values:
        entry["values"] = values
    if choices and kind == "string":
        entry["choices"] = list(choices)
    if var in context:
        entry["current"] = context[var]
    return entry


def _later(where: tuple[int, ...], position: tuple[int, ...]) -> bool:
    """Can a read at `where` happen after the step at `position` is acknowledged? Everything after it
    in document order, and all of any loop around it (its condition and body run again)."""
    return where > position or any(where[:depth] == position[:depth] for depth in range(1, len(position)))


def _next(located: Located, position: tuple[int, ...], index: Index) -> bool:
    """Is this read made at the very next decision point after the step at `position`?"""
    if located.gate is None:
        return False
    if located.position == (*position[:-1], position[-1] + 1):
        return True
    # The last step of a loop body: next comes the loop's own decision about another iteration.
    last = position[-1] + 1 >= index.lengths.get(position[:-1], 0)
    return last and len(position) > 1 and located.position == position[:-1] and located.gate == "loop"


def _index(compiled: CompiledWorkflow) -> Index:
    return per_workflow(compiled, "expectations", _build_index)


def _build_index(compiled: CompiledWorkflow) -> Index:
    index = Index((), {}, {}, {}, {}, {}, {}, {}, {}, {}, {})  # _walk fills its per-step maps
    reads: list[Located] = []
    _walk(top_steps(compiled), (), frozenset(), reads, index)
    asks = by_step(compiled)  # what each step asks for, read once per workflow (workflows_app/prose)
    for position, step_id in index.ids.items():
        said = asks[step_id]
        index.words[position] = said.mentioned
        index.asked[position] = said.names
        index.quoted[position] = said.quoted
        index.offered[position] = dict(said.offered)
        index.set_loose[position] = said.set_loosely
    for step in walk(top_steps(compiled)):
        contract = step.get("outputContract")
        if isinstance(contract, dict) and isinstance(contract.get("schema"), dict):
            where = f"the '{contract.get('contractRef', '')}' contract of step '{step.get('id', '')}'"
            for name, allowed in _enums(contract["schema"]):
                index.enums.setdefault(name, (allowed, where))
    by_var: dict[str, list[Located]] = {}
    for located in reads:
        by_var.setdefault(located.read.var, []).append(located)
    return replace(index, reads=tuple(reads), by_var={var: tuple(found) for var, found in by_var.items()})


def _walk(
    steps: list[CompiledStep], prefix: tuple[int, ...], owned: frozenset[str], reads: list[Located], index: Index
) -> None:
    index.lengths[prefix] = len(steps)
    for number, step in enumerate(steps):
        position = (*prefix, number)
        name = str(step.get("id", ""))
        own = owned
        if is_loop(step):
            own = owned | _loop_variables(step)
        run = _condition_reads(step.get("runCondition"), f"the runCondition of step '{name}' (it runs only when {{}})")
        reads += [Located(position, "run", read) for read in run if read.var not in owned]
        if is_loop(step):
            reads += [Located(position, "loop", read) for read in _loop_reads(step) if read.var not in own]
            _walk(step.get("body") or [], position, own, reads, index)
            continue
        index.owned[position] = owned
        index.ids[position] = name
        text = f"{step.get('title', '')} {step.get('prompt', '')}"
        inner: list[Read] = list(_template_reads(text, f"the prompt of step '{name}'"))
        for delegation in delegations_of(step):
            if isinstance(delegation, dict):
                inner += _delegation_reads(delegation, name)
        for fragment in step.get("promptFragments") or []:
            if isinstance(fragment, dict):
                inner += _condition_reads(
                    fragment.get("when"), f"a prompt fragment of step '{name}' (added only when {{}})"
                )
                inner += _template_reads(str(fragment.get("text", "")), f"a prompt fragment of step '{name}'")
        rule = step.get("requireConfirmation")
        if isinstance(rule, dict):
            condition = rule.get("condition") if "kind" in rule else rule
            inner += _condition_reads(condition, f"the confirmation rule of step '{name}' (it asks when {{}})")
        reads += [Located(position, None, read) for read in inner if read.var not in own]


def _template_reads(text: str, why: str) -> Iterator[Read]:
    """`{{name}}` and `{{name.path}}` in a prompt read `name` when the prompt is shown."""
    for root, *parts in (name.split(".") for name in placeholders(text)):
        kind = "any"
        if parts:
            kind = "array" if parts[0] == "length" or parts[0].isdigit() else "object"
        yield Read(root, kind, (), why)


def _delegation_reads(delegation: Delegation, step: str) -> Iterator[Read]:
    """A delegation reads the parent values its contextMapping hands to its run, and its runCondition's."""
    target = str(delegation.get("workflowId", ""))
    for parent_key, child_key in (delegation.get("contextMapping") or {}).items():
        why = f"the delegation of step '{step}' to {target} (its run receives it as `{child_key}`)"
        yield Read(_root(str(parent_key)), "any", (), why)
    yield from _condition_reads(
        delegation.get("runCondition"), f"the delegation of step '{step}' to {target} (it runs only when {{}})"
    )


def _enums(schema: Any, depth: int = 0) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """(field name, its enum) for every property of a contract's schema that has one, at any depth."""
    if not isinstance(schema, dict) or depth > 8:
        return
    for name, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict) and isinstance(sub.get("enum"), list):
            yield str(name), tuple(value for value in sub["enum"] if isinstance(value, str | int | float | bool))
        yield from _enums(sub, depth + 1)
    yield from _enums(schema.get("items"), depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key) or []:
            yield from _enums(sub, depth + 1)


def _loop_variables(step: LoopStep) -> frozenset[str]:
    spec = loops.LoopSpec.of(step)
    return frozenset({spec.iteration_var, spec.item_var, spec.index_var})


def _loop_reads(step: LoopStep) -> list[Read]:
    spec = loops.LoopSpec.of(step)
    where = f"loop '{spec.loop_id}'"
    repeats = "until" if spec.type == "until" else "while"
    found = list(_condition_reads(spec.condition, f"the condition of {where} (it runs {repeats} {{}})"))
    if spec.type == "forEach" and isinstance(spec.items, str):
        found.append(Read(_root(spec.items), "array", (), f"the items of {where}"))
    if spec.type == "for" and isinstance(spec.count, str):
        found.append(Read(_root(spec.count), "integer", (), f"the count of {where}"))
    return found


def _condition_reads(condition: Any, why: str) -> Iterator[Read]:
    """Every variable `condition` reads; `why` names the reader, and its {} is filled with the whole
    condition in words, so the agent sees what a value does there, not only that it is read."""
    if not isinstance(condition, dict):
        return
    yield from _reads_of(condition, why.replace("{}", describe(condition)))


def _reads_of(condition: Any, why: str) -> Iterator[Read]:
    if not isinstance(condition, dict):
        return
    for combinator in ("and", "or"):
        for item in condition.get(combinator) or []:
            yield from _reads_of(item, why)
    yield from _reads_of(condition.get("not"), why)
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
    kind = json_type(value)
    return kind if kind in {"boolean", "number", "string", "array", "object"} else "any"


def names_read(compiled: CompiledWorkflow) -> frozenset[str]:
    """Every context variable the workflow reads or asks for anywhere: conditions, loops, templates,
    prompts that ask for it by name, user-only dependencies and delegations' context mappings."""
    return per_workflow(compiled, "names_read", _names_read)


def names_referenced(compiled: CompiledWorkflow) -> frozenset[str]:
    """names_read, and every name a prompt writes as code (`familyChecklist`): a value a prompt points the
    agent to is used, even when no condition reads it, so it is never said to be read by nothing."""
    return per_workflow(compiled, "names_referenced", _names_referenced)


def _names_referenced(compiled: CompiledWorkflow) -> frozenset[str]:
    quoted = {name for names in _index(compiled).quoted.values() for name in names}
    return names_read(compiled) | quoted


def _names_read(compiled: CompiledWorkflow) -> frozenset[str]:
    index = _index(compiled)
    names = {located.read.var for located in index.reads}
    names.update(name for asked in index.asked.values() for name in asked)
    for step in agent_steps(top_steps(compiled)):
        names.update(
            dep["contextKey"] for dep in step.get("userDependencies") or [] if isinstance(dep.get("contextKey"), str)
        )
        for delegation in delegations_of(step):
            mapping = delegation.get("contextMapping") if isinstance(delegation, dict) else None
            if isinstance(mapping, dict):
                names.update(key for key in mapping if isinstance(key, str))
    return frozenset(names)
