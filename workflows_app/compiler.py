"""Compiles a validated workflow document into the executable form that runs are pinned to.

Compiling expands routine template calls, applies features, inlines loop bodies given by reference,
renders `promptBlocks`, guidance and function definitions into each step's prompt (what outputRequired
asks the agent to set stays structured too, as the step's `declaredAsks`), puts the bound
routine or workflow in place of each `{{wr.bindings.<slot>}}`, and drops what only matters to
authors. Context templating (`{{var}}`) and prompt fragments stay for run time, because they depend
on the run's context. What the workflow names but this build does not have (and that does not
change the control flow) is left out and listed under `leftOut`. The result is plain JSON; its hash
is the workflow's identity (see hashing.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, cast

from workflows_app import builtins
from workflows_app.diagnostics import Code, Diagnostic, error, pointer_of
from workflows_app.engine.model import (
    AgentStep,
    Binding,
    CompiledStep,
    CompiledWorkflow,
    DeclaredAsks,
    Delegation,
    OutputContract,
    ParallelStep,
    TaskStep,
    is_loop,
)
from workflows_app.structure import LeftOut, sort_left_out, unresolved_references, walk_steps

COMPILER_VERSION = 1
Step = dict[str, Any]  # a step as its author wrote it (validated against the schema, see schema.py)

# Workflow-level fields carried into the compiled form: they shape what the agent is told.
CARRIED_FIELDS = (
    "about",
    "preconditions",
    "clarificationPrompts",
    "metaGuidance",
    "recommendedPreferences",
    "modelTier",
    "assessments",
    "references",
    "extensionPoints",
    "metricsProfile",
    "examples",
)
# Step fields consumed by compilation (rendered into the prompt or expanded away).
CONSUMED_STEP_FIELDS = (
    "prompt",
    "promptBlocks",
    "guidance",
    "functionDefinitions",
    "functionReferences",
    "functionCalls",
    "templateCall",
)


# Step fields that become virtual steps of their own, placed right after the step (virtual_steps).
VIRTUAL_STEP_FIELDS = ("synthesis", "audit", "verification")

# Bounds on one workflow once compiled (docs/security.md, "Expanded size"): a routine may call routines
# (templateCall), so a few small files can expand into a huge workflow unless the expansion is counted.
# WorkRail's largest workflow compiles to a few dozen steps and some 50,000 characters (bench/hostile_repos.py
# prints the figures); the bounds leave room for workflows some forty times larger.
MAX_EXPANDED_STEPS = 2_000  # compiled steps, loop bodies and virtual steps included
MAX_EXPANDED_CHARS = 2_000_000  # characters of text in the compiled steps (prompts, titles, contracts...)


@dataclass(frozen=True)
class RoutineDocument:
    id: str
    document: dict[str, Any]


RoutineResolver = Callable[[str], RoutineDocument | None]


class CompileError(Exception):
    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


@dataclass(frozen=True)
class _CompiledRoutine:
    """A routine compiled once, for every call site of every workflow of one catalog. Never changed:
    a call site copies its steps (_prefixed)."""

    compiled: CompiledWorkflow
    steps: int
    chars: int
    heaviest: str | None  # the routine whose calls add the most steps to it, for the chain in a refusal
    calls: dict[str, int]  # routine id -> how many of its steps call that routine


class RoutineMemo:
    """Routines already compiled, by id: shared by the workflows of one catalog (one resolver), so that a
    routine is compiled once, not once per call site."""

    def __init__(self) -> None:
        self.routines: dict[str, _CompiledRoutine] = {}


class _TooLarge(Exception):
    """The document being compiled passed a bound; `chain` is the stack of documents being expanded."""

    def __init__(self, unit: str, limit: int, chain: tuple[str, ...], callee: str | None, step_id: str) -> None:
        super().__init__(f"more than {limit} {unit}")
        self.unit, self.limit, self.chain, self.callee, self.step_id = unit, limit, chain, callee, step_id
        self.pointer = ""


class _Budget:
    """What one document compiles to so far, against MAX_EXPANDED_STEPS and MAX_EXPANDED_CHARS; spent
    before anything is copied, so a refusal costs no more than the bound."""

    def __init__(self, stack: tuple[str, ...]) -> None:
        self.stack = stack
        self.steps = 0
        self.chars = 0
        self.step_id = ""
        self.callee: str | None = None
        self.added_by: dict[str, int] = {}  # routine id -> steps its calls added
        self.calls: dict[str, int] = {}

    def spend(self, steps: int, chars: int) -> None:
        self.steps += steps
        self.chars += chars
        if self.steps > MAX_EXPANDED_STEPS:
            raise _TooLarge("steps", MAX_EXPANDED_STEPS, self.stack, self.callee, self.step_id)
        if self.chars > MAX_EXPANDED_CHARS:
            raise _TooLarge("characters", MAX_EXPANDED_CHARS, self.stack, self.callee, self.step_id)

    def grow(self, chars: int) -> None:
        self.spend(0, chars)

    def called(self, routine: _CompiledRoutine, routine_id: str) -> None:
        self.callee = routine_id
        self.calls[routine_id] = self.calls.get(routine_id, 0) + 1
        self.added_by[routine_id] = self.added_by.get(routine_id, 0) + routine.steps
        self.spend(routine.steps, routine.chars)


def compile_workflow(
    document: dict[str, Any],
    *,
    kind: str,
    resolve_routine: RoutineResolver,
    bindings: Mapping[str, str] | None = None,
    memo: RoutineMemo | None = None,
) -> CompiledWorkflow:
    """Raises CompileError when a template cannot be expanded, a binding slot is unknown, or the workflow
    expands past MAX_EXPANDED_STEPS or MAX_EXPANDED_CHARS (WORKFLOW_TOO_LARGE).

    `memo` keeps the routines compiled for one catalog (pass the same one with the same resolver), so
    that each is compiled once whatever the number of places that call it.

    `bindings` are the project's overrides for this workflow (.workrail/bindings.json, see
    sources.ProjectBindings): slot id -> routine or workflow id, ahead of the extension points'
    defaults. Routine steps expanded into the workflow are bound with the caller's slots, as WorkRail
    does (it resolves bindings after expanding templates)."""
    compiler = _Compiler(resolve_routine, memo or RoutineMemo())
    try:
        compiled, budget = compiler.compile(document, kind, stack=(document["id"],))
        _bind(compiled, document, dict(bindings or {}), budget)
    except _TooLarge as exc:
        raise CompileError([too_large(exc, compiler.memo)]) from None
    return compiled


def too_large(exc: _TooLarge, memo: RoutineMemo) -> Diagnostic:
    """The refusal of a workflow past a bound, naming the chain of calls that makes it so large: the
    documents being expanded, then the routine being added and, below it, the routine each one calls
    most (with how many times)."""
    chain = list(exc.chain)
    links = [f"'{name}'" for name in chain]
    below = exc.callee
    parent_calls: dict[str, int] | None = None
    while below is not None and below not in chain:
        routine = memo.routines.get(below)
        link = f"'{below}'"
        if routine is not None:
            link += f" ({routine.steps:,} step{'' if routine.steps == 1 else 's'}"
            link += f", called {parent_calls[below]} times)" if parent_calls and below in parent_calls else ")"
        links.append(link)
        chain.append(below)
        parent_calls = routine.calls if routine is not None else None
        below = routine.heaviest if routine is not None else None
    where = f" (at step '{exc.step_id}' of '{exc.chain[-1]}')" if exc.step_id else ""
    return error(
        Code.WORKFLOW_TOO_LARGE,
        f"Workflow '{exc.chain[0]}' would compile to more than {exc.limit:,} {exc.unit}, the most one workflow "
        f"may have once its routine calls are expanded{where}. Chain of calls: {' -> '.join(links)}.",
        "Call fewer routines, or routines that call fewer routines in turn; split the workflow into workflows "
        "an agent runs one after the other.",
        pointer=exc.pointer,
        details={"limit": exc.limit, "unit": exc.unit, "chain": chain},
    )


class _Compiler:
    def __init__(self, resolve_routine: RoutineResolver, memo: RoutineMemo) -> None:
        self._resolve = resolve_routine
        self.memo = memo
        self._left_out_of_routines: list[LeftOut] = []

    def compile(self, document: dict[str, Any], kind: str, stack: tuple[str, ...]) -> tuple[CompiledWorkflow, _Budget]:
        self._left_out_of_routines = []
        budget = _Budget(stack)
        functions = {f["name"]: f for f in document.get("functionDefinitions", [])}
        steps = _inline_referenced_bodies(document["steps"])
        self._count_first(steps, ["steps"], _Budget(stack))
        compiled_steps: list[CompiledStep] = []
        for index, step in enumerate(steps):
            try:
                compiled_steps += self._step(step, ["steps", index], functions, budget)
            except _TooLarge as exc:
                exc.pointer = exc.pointer or (pointer_of(["steps", index]) if len(stack) == 1 else "")
                raise
        compiled: dict[str, Any] = {
            "compilerVersion": COMPILER_VERSION,
            "id": document["id"],
            "kind": kind,
            "name": document["name"],
            "description": document["description"],
            "version": document["version"],
        }
        compiled.update({name: document[name] for name in CARRIED_FIELDS if name in document})
        features = [f for f in document.get("features", []) if f in builtins.FEATURES]
        if features:
            compiled["features"] = features
            compiled["metaGuidance"] = [
                *compiled.get("metaGuidance", []),
                *(builtins.FEATURES[f] for f in features),
            ]
        compiled["steps"] = compiled_steps
        left_out = sort_left_out([*unresolved_references(document), *self._left_out_of_routines])
        if left_out:
            compiled["leftOut"] = left_out
        # The carried fields are the author's, validated against the schema: their shapes are the model's.
        return cast(CompiledWorkflow, compiled), budget

    def _step(
        self, step: Step, path: list[str | int], functions: dict[str, Any], budget: _Budget
    ) -> list[CompiledStep]:
        budget.step_id, budget.callee = str(step.get("id", "")), None
        if "templateCall" in step:
            return self._expand_template(step, path, budget)
        if step.get("type") == "loop":
            budget.spend(1, _text_size({k: v for k, v in step.items() if k != "body"}))
            loop_functions = {**functions, **{f["name"]: f for f in step.get("functionDefinitions", [])}}
            body: list[CompiledStep] = []
            for index, child in enumerate(step["body"]):
                body += self._step(child, [*path, "body", index], loop_functions, budget)
            compiled = {k: v for k, v in step.items() if k not in ("type", "body", "functionDefinitions")}
            return [cast(CompiledStep, {"kind": "loop", **compiled, "body": body})]
        kind = "parallel" if step.get("type") == "parallel" else "step"
        compiled = {k: v for k, v in step.items() if k not in (*CONSUMED_STEP_FIELDS, *VIRTUAL_STEP_FIELDS, "type")}
        if "outputContract" in compiled:
            compiled["outputContract"] = resolve_contract(compiled["outputContract"])
        declared = declared_asks(step.get("promptBlocks"))
        if declared:
            compiled["declaredAsks"] = declared
        own = cast(AgentStep, {"kind": kind, **compiled, "prompt": render_prompt(step, functions)})
        found: list[CompiledStep] = [own, *virtual_steps(step)]
        budget.spend(len(found), _text_size(found))
        return found

    def _count_first(self, steps: list[Step], path: list[str | int], probe: _Budget) -> None:
        """Refuses a document that its routine calls alone make too large before any step is copied:
        each routine it calls is compiled (once: the memo) to know its size, each of its own steps
        counts one. The compilation that follows checks the rest (text, virtual steps) as it goes."""
        for index, step in enumerate(steps):
            probe.step_id, probe.callee = str(step.get("id", "")), None
            try:
                if "templateCall" in step:
                    routine = self._routine_called(step, [*path, index], probe.stack)
                    probe.called(self._routine(routine, probe.stack), routine.id)
                else:
                    probe.spend(1, 0)
            except _TooLarge as exc:
                if len(probe.stack) == 1:  # the pointer is the step of the workflow being compiled
                    where = [*path, index, *(["templateCall"] if "templateCall" in step else [])]
                    exc.pointer = exc.pointer or pointer_of(where)
                raise
            if step.get("type") == "loop" and isinstance(step.get("body"), list):
                self._count_first(step["body"], [*path, index, "body"], probe)

    def _routine_called(self, step: Step, path: list[str | int], stack: tuple[str, ...]) -> RoutineDocument:
        """The routine a templateCall step names; CompileError when none is loaded or it is being expanded."""
        call = step["templateCall"]
        pointer = pointer_of([*path, "templateCall", "templateId"])
        names = builtins.routine_names_of(call["templateId"])
        routine = next((found for name in names if (found := self._resolve(name)) is not None), None)
        if routine is None:
            wanted = " or ".join(f"'{name}'" for name in names) or "a routine"
            raise CompileError(
                [
                    error(
                        Code.UNKNOWN_REFERENCE,
                        f"Template '{call['templateId']}' needs a routine named {wanted}; none is loaded.",
                        "Add that routine to a workflow directory, or fix the template id.",
                        pointer=pointer,
                    )
                ]
            )
        if routine.id in stack:
            raise CompileError(
                [
                    error(
                        Code.TEMPLATE_CYCLE,
                        f"Template call cycle: {' -> '.join([*stack, routine.id])}.",
                        "Remove the template call that leads back to a workflow being expanded.",
                        pointer=pointer,
                    )
                ]
            )
        return routine

    def _expand_template(self, step: Step, path: list[str | int], budget: _Budget) -> list[CompiledStep]:
        stack = budget.stack
        call = step["templateCall"]
        routine = self._routine_called(step, path, stack)
        try:
            done = self._routine(routine, stack)
            budget.called(done, routine.id)
            expanded = done.compiled
            call_pointer = pointer_of([*path, "templateCall"])
            for item in expanded.get("leftOut", []):
                origin = item.get("origin") or {
                    "templateId": call["templateId"],
                    "workflowId": routine.id,
                    "pointer": item["pointer"],
                }
                self._left_out_of_routines.append({**item, "pointer": call_pointer, "origin": origin})
            args = call.get("args", {})
            prefix = step["id"]
            steps = [
                _prefixed(s, prefix, args, step.get("runCondition"), call["templateId"], budget.grow)
                for s in expanded["steps"]
            ]
            guidance = expanded.get("metaGuidance", [])
            if steps and guidance:
                preamble = "Routine guidance:\n" + "\n".join(f"- {g}" for g in guidance) + "\n\n"
                budget.grow(len(preamble))
                first = next((s for s in _compiled_steps(steps) if not is_loop(s)), None)
                if first is not None:  # a routine that starts with a loop: the first step of its body
                    first["prompt"] = preamble + first["prompt"]
        except _TooLarge as exc:
            if len(stack) == 1:  # the pointer is the call in the workflow being compiled, not in a routine
                exc.pointer = exc.pointer or pointer_of([*path, "templateCall"])
            raise
        return steps

    def _routine(self, routine: RoutineDocument, stack: tuple[str, ...]) -> _CompiledRoutine:
        """The routine compiled, from the memo when it already was: a routine compiled once expands the
        same way from any caller (its expansion cannot depend on the caller: a call back to one of the
        callers would be a cycle, found when the routine was first compiled)."""
        known = self.memo.routines.get(routine.id)
        if known is not None:
            return known
        outer_left_out = self._left_out_of_routines
        try:
            compiled, spent = self.compile(routine.document, "routine", (*stack, routine.id))
        finally:
            self._left_out_of_routines = outer_left_out
        heaviest = max(spent.added_by, key=lambda name: spent.added_by[name]) if spent.added_by else None
        done = _CompiledRoutine(compiled, spent.steps, spent.chars, heaviest, dict(spent.calls))
        self.memo.routines[routine.id] = done
        return done


def _copied(value: Any) -> Any:
    """A copy of a JSON value (its lists and objects new): what a call site may change of a routine's step."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def _text_size(value: Any) -> int:
    """Characters of text in a JSON value (its strings, keys included): what a bound on text counts."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(len(key) + _text_size(item) for key, item in value.items())
    if isinstance(value, list):
        return sum(_text_size(item) for item in value)
    return 0


def resolve_contract(declared: dict[str, Any]) -> OutputContract:
    """The full contract a step's output must meet, in the compiled workflow (so in its hash): the
    registry's for a named contract, the step's own for an inline one.

    A contract no registry knows is left out (see structure.unresolved_references): its artifact kind
    (builtins.artifact_kind_of) becomes a kind the run accepts without a schema, and the step does not
    require one, since nobody can say what it should hold."""
    if "schema" in declared:
        source: Mapping[str, Any] = declared
    elif declared["contractRef"] in builtins.CONTRACTS:
        source = builtins.CONTRACTS[declared["contractRef"]]
    else:
        kind = builtins.artifact_kind_of(declared["contractRef"])
        return {
            "contractRef": declared["contractRef"],
            "required": False,
            "artifactKind": kind,
            "schema": None,
            "example": {"kind": kind},
            "unresolved": True,
        }
    return {
        "contractRef": declared["contractRef"],
        "required": declared.get("required", True) is not False,
        "artifactKind": source["artifactKind"],
        "schema": source["schema"],
        "example": {"kind": source["artifactKind"], **source["example"]},
    }


def _inline_referenced_bodies(steps: list[Step]) -> list[Step]:
    """A loop whose body names a top-level step owns that step: it runs inside the loop only."""
    by_id = {s["id"]: s for s in steps}
    owned = {s["body"] for s in steps if s.get("type") == "loop" and isinstance(s.get("body"), str)}
    result = []
    for step in steps:
        if step["id"] in owned:
            continue
        if step.get("type") == "loop" and isinstance(step.get("body"), str):
            step = {**step, "body": [by_id[step["body"]]]}
        result.append(step)
    return result


def _prefixed(
    step: CompiledStep,
    prefix: str,
    args: dict[str, Any],
    run_condition: Any,
    template_id: str,
    grow: Callable[[int], None] | None = None,
) -> CompiledStep:
    """A routine step placed inside a caller (a copy): ids namespaced by the calling step, args substituted
    (`grow` is told how much text each substitution adds, before it is made)."""
    step = cast(CompiledStep, builtins.substitute_args(step, args, grow) if args else _copied(step))
    step["id"] = f"{prefix}.{step['id']}"
    step["origin"] = {"templateId": template_id, "callStepId": prefix}
    if not is_loop(step) and "virtualOf" in step:
        step["virtualOf"] = {**step["virtualOf"], "stepId": f"{prefix}.{step['virtualOf']['stepId']}"}
    if run_condition is not None:
        own = step.get("runCondition")
        step["runCondition"] = run_condition if own is None else {"and": [run_condition, own]}
    if is_loop(step):
        step["body"] = [_prefixed(child, prefix, {}, None, template_id) for child in step["body"]]
    return step


# WorkRail's binding token: {{wr.bindings.<slotId>}}, the slot id any run of non-space, non-brace characters.
BINDING_TOKEN = re.compile(r"\{\{wr\.bindings\.([^\s{}]+)\}\}")


def _bind(compiled: CompiledWorkflow, document: dict[str, Any], overrides: dict[str, str], budget: _Budget) -> None:
    """Puts each binding token's routine or workflow id into the prompts, and records the bindings
    in effect (`bindings`: slot -> {value, source}) so that they are part of the workflow's hash.
    A slot is bound by the project's override, else by the extension point's default; a token of a
    slot neither declares is an error, as in WorkRail (a typo would silently change what runs). The text
    a binding adds is spent from `budget` before it is made (a long id put in place of many tokens)."""
    defaults = {point["slotId"]: point["default"] for point in document.get("extensionPoints", [])}
    in_effect = {slot: _binding(slot, defaults, overrides) for slot in defaults}
    unknown: dict[tuple[str, str], None] = {}

    def bind(match: re.Match[str], step_id: str) -> str:
        slot = match.group(1)
        if slot not in defaults and slot not in overrides:
            unknown[(slot, step_id)] = None
            return match.group(0)
        in_effect[slot] = _binding(slot, defaults, overrides)
        return str(in_effect[slot]["value"])

    for step in _compiled_steps(compiled["steps"]):
        if not is_loop(step) and isinstance(step.get("prompt"), str) and "{{wr.bindings." in step["prompt"]:
            step_id = str(step["id"])
            budget.step_id, budget.callee = step_id, None
            budget.grow(
                sum(
                    len(overrides.get(m.group(1), defaults.get(m.group(1), m.group(0)))) - len(m.group(0))
                    for m in BINDING_TOKEN.finditer(step["prompt"])
                )
            )
            step["prompt"] = BINDING_TOKEN.sub(partial(bind, step_id=step_id), step["prompt"])
    if unknown:
        where = {s["id"]: path for s, path, _loop in walk_steps(document["steps"])}
        declared = ", ".join(sorted(defaults)) or "none"
        raise CompileError(
            [
                error(
                    Code.UNKNOWN_REFERENCE,
                    f"Step '{step_id}' uses binding slot '{slot}', which no extension point declares "
                    f"(declared: {declared}) and .workrail/bindings.json does not set.",
                    "Declare the slot in extensionPoints with a default, set it in .workrail/bindings.json, "
                    "or fix the token's spelling.",
                    pointer=pointer_of(where.get(step_id) or where.get(step_id.split(".")[0]) or ["steps"]),
                )
                for slot, step_id in unknown
            ]
        )
    if in_effect:
        compiled["bindings"] = dict(sorted(in_effect.items()))


def _binding(slot: str, defaults: dict[str, str], overrides: dict[str, str]) -> Binding:
    if slot in overrides:
        return {"value": overrides[slot], "source": "project"}
    return {"value": defaults[slot], "source": "default"}


def _compiled_steps(steps: list[CompiledStep]) -> Iterator[CompiledStep]:
    for step in steps:
        yield step
        if is_loop(step) and isinstance(step.get("body"), list):
            yield from _compiled_steps(step["body"])


def render_prompt(step: Step, functions: dict[str, Any]) -> str:
    """The full instruction text of a step, deterministic for a given step."""
    sections: list[str] = []
    if step.get("prompt"):
        sections.append(step["prompt"].strip())
    if step.get("promptBlocks"):
        sections.append(render_prompt_blocks(step["promptBlocks"]))
    if step.get("type") == "parallel":
        sections.append(_render_delegations(step))
    if step.get("guidance"):
        sections.append("Guidance:\n" + "\n".join(f"- {g}" for g in step["guidance"]))
    used = _functions_used(step, {**functions, **{f["name"]: f for f in step.get("functionDefinitions", [])}})
    if used:
        sections.append("Functions:\n" + "\n".join(_render_function(f) for f in used))
    return "\n\n".join(sections) if sections else step["title"]


def render_prompt_blocks(blocks: dict[str, Any]) -> str:
    parts: list[str] = []
    if "goal" in blocks:
        parts.append(f"Goal: {_value(blocks['goal'])}")
    if blocks.get("constraints"):
        parts.append("Constraints:\n" + "\n".join(_item("- ", _value(v)) for v in blocks["constraints"]))
    if blocks.get("procedure"):
        parts.append(
            "Procedure:\n" + "\n".join(_item(f"{i}. ", _value(v)) for i, v in enumerate(blocks["procedure"], 1))
        )
    if blocks.get("outputRequired"):
        parts.append(
            # Where each goes: an item the call has no place for (no context blank, no artifact) is notes.
            "Output required (in output.notesMarkdown, unless the call below has a place for it):\n"
            + "\n".join(_item("- ", f"{k}: {v}") for k, v in blocks["outputRequired"].items())
        )
    if blocks.get("verify"):
        parts.append("Verify:\n" + "\n".join(_item("- ", _value(v)) for v in blocks["verify"]))
    return "\n\n".join(parts)


CONTEXT_KEY_PREFIX = "context."  # an outputRequired key that names a context variable: `context.riskLevel`


def declared_asks(blocks: Any) -> DeclaredAsks:
    """What a step's `promptBlocks.outputRequired` declares it asks the agent to set, kept as structure
    beside the prompt it is rendered into: {"context": the variables its `context.<name>` keys name, in
    order; "notes": true when another key asks for something written (it goes to output.notesMarkdown
    unless the call has a place for it)}. Empty without outputRequired. The answers read this, and read
    the prompt's words (workflows_app/prose) only for what a step does not declare."""
    required = blocks.get("outputRequired") if isinstance(blocks, dict) else None
    if not isinstance(required, dict) or not required:
        return {}
    context_keys = [key.removeprefix(CONTEXT_KEY_PREFIX) for key in required if key.startswith(CONTEXT_KEY_PREFIX)]
    roots = [key.split(".")[0] for key in context_keys]
    names = list(dict.fromkeys(root for root in roots if root.isidentifier()))  # `context.ticket.id` sets ticket
    declared: DeclaredAsks = {}
    if names:
        declared["context"] = names
    if any(not key.startswith(CONTEXT_KEY_PREFIX) for key in required):
        declared["notes"] = True
    return declared


def _item(marker: str, text: str) -> str:
    """One list item; the lines after its first are indented under it, so a value that holds a list of
    its own (a ref's bullets) stays nested in Markdown instead of joining the outer list."""
    first, *rest = text.split("\n")
    indent = " " * len(marker)
    return "\n".join([marker + first, *(indent + line if line.strip() else line for line in rest)])


def _value(value: str | list[dict[str, str]]) -> str:
    """A prompt value as text; a snippet this build does not have is left out (see leftOut)."""
    if isinstance(value, str):
        return value
    return "".join(part["text"] if part["kind"] == "text" else builtins.REFS.get(part["refId"], "") for part in value)


def _render_delegations(step: Step) -> str:
    if "synthesis" in step:
        lines = ["Run these delegations in parallel and report what each found (the next step combines them):"]
    else:
        lines = ["Run these delegations in parallel, then combine their results:"]
    for delegation in step["parallelDelegations"]:
        goal = f": {delegation['goal']}" if delegation.get("goal") else ""
        lines.append(f"- {_delegate_label(delegation)}{goal}")
    return "\n".join(lines)


def _delegate_label(delegation: Step) -> str:
    """Whom a delegation hands work to, with the model tier its author recommends for it."""
    tier = f" (model tier: {delegation['modelTier']})" if delegation.get("modelTier") else ""
    return f"{delegation['workflowId']}{tier}"


def virtual_steps(step: Step) -> list[AgentStep]:
    """The steps WorkRail injects after a step: a parallel step's `synthesis` (combine what the
    delegations found), then a step's `audit` (check its deliverables against a rubric; a `delegate`
    makes it a parallel step that hands the legwork to that routine), then its `verification` (run a
    command that checks them, or reason it through when `cognitive`). Each is an ordinary step of its own, with an id
    no author can write (`<step id>.<what>`: step ids have no dots), the step's runCondition (it is
    skipped with the step), and `virtualOf` naming the step it belongs to."""
    title = step.get("title") or step["id"]
    found: list[AgentStep] = []
    synthesis = step.get("synthesis")
    if step.get("type") == "parallel" and isinstance(synthesis, dict):
        count = len(step.get("parallelDelegations") or [])
        prompt = [
            f"Combine what the {count} delegation(s) of step '{title}' found into one result: "
            "where they agree, where they disagree and which way you settle it, and what is still open.",
        ]
        if synthesis.get("prompt"):
            prompt.append(synthesis["prompt"].strip())
        virtual: AgentStep = _virtual(step, "synthesis", f"Synthesize: {title}", prompt)
        if "outputContract" in synthesis:
            virtual["outputContract"] = resolve_contract(synthesis["outputContract"])
        found.append(virtual)
    audit = step.get("audit")
    if isinstance(audit, dict):
        prompt = [
            f"Audit what step '{title}' delivered before going on: check it critically, as a "
            "reviewer who did not write it would, fix what falls short, and report what you checked and found."
        ]
        delegate = audit.get("delegate")
        if isinstance(delegate, dict):
            prompt.append(_render_audit_delegate(delegate))
        if audit.get("prompt"):
            prompt.append(audit["prompt"].strip())
        if audit.get("rubric"):
            prompt.append("Rubric (say for each whether it holds):\n" + "\n".join(f"- {r}" for r in audit["rubric"]))
        audit_step = _virtual(step, "audit", f"Audit: {title}", prompt)
        if isinstance(delegate, dict):
            # A delegated audit hands work out like a parallel step with one delegation, so the run
            # starts the routine and the audit waits for it (runs/execution, engine/delegations.py).
            delegated: ParallelStep = {
                **audit_step,
                "kind": "parallel",
                "parallelDelegations": [cast(Delegation, delegate)],
            }
            found.append(delegated)
        else:
            found.append(audit_step)
    verification = step.get("verification")
    if isinstance(verification, dict):
        prompt = [f"Verify what step '{title}' delivered."]
        if verification.get("command"):
            prompt[0] += " Run this command:\n\n    " + verification["command"].strip()
            prompt.append(
                "Report the exit status and the lines of output that matter. If it fails, fix the cause and run "
                "it again; do not go on while it fails."
            )
        if verification.get("cognitive") is True:
            prompt.append(COGNITIVE_CHECK)
        if verification.get("prompt"):
            prompt.append(verification["prompt"].strip())
        found.append(_virtual(step, "verify", f"Verify: {title}", prompt))
    return found


# What a `verification` with `cognitive: true` asks: a check no command can settle, made by reasoning
# over primary evidence (WorkRail's newer format; see schema.NEWER_VERIFICATION_FIELDS).
COGNITIVE_CHECK = (
    "No command settles this check: reason it through. Compare what the step delivered with what it was "
    "asked for (its goal, constraints and required outputs), confirm each claim against primary evidence "
    "(the code, the diff, test and build output) rather than against anyone's summary of it, and report "
    "what holds, what does not, and where you are least sure. If something does not hold, fix it or say "
    "why not before going on."
)


def _render_audit_delegate(delegate: Step) -> str:
    """The delegation hint of a delegated audit: who does the audit's legwork, and what its result is."""
    goal = f" Its goal: {delegate['goal']}" if delegate.get("goal") else ""
    return (
        f"Hand the audit's legwork to a run of {_delegate_label(delegate)}, listed with this step.{goal} "
        "Treat what it reports as evidence, not as the verdict: check its findings against the deliverables "
        "yourself before you accept or reject them."
    )


def _virtual(step: Step, what: Literal["synthesis", "audit", "verify"], title: str, prompt: list[str]) -> TaskStep:
    # Keys in this order (runCondition before prompt): the compiled bytes, so the workflow's hash, depend on it.
    virtual: dict[str, Any] = {
        "kind": "step",
        "id": f"{step['id']}.{what}",
        "title": title,
        "virtualOf": {"stepId": step["id"], "kind": what},
    }
    if "runCondition" in step:
        virtual["runCondition"] = step["runCondition"]
    virtual["prompt"] = "\n\n".join(prompt)
    return cast(TaskStep, virtual)


def _functions_used(step: Step, available: dict[str, Any]) -> list[dict[str, Any]]:
    names = [ref.removesuffix("()") for ref in step.get("functionReferences", [])]
    names += [call["name"] for call in step.get("functionCalls", [])]
    seen: dict[str, dict[str, Any]] = {}
    for name in names:
        if name in available and name not in seen:
            seen[name] = available[name]
    return list(seen.values())


def _render_function(function: dict[str, Any]) -> str:
    params = ", ".join(p["name"] for p in function.get("parameters", []))
    return f"- {function['name']}({params}): {function['definition']}"
