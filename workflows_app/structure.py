"""Checks the schema cannot express: unique step ids, loop bodies that exist, sound conditions,
references to things the compiler knows. Runs on documents that already passed the schema.

References are judged by what a wrong one would do. One that changes the control flow (a routine
template, an assessment a step is gated on, the contract of an artifact-driven loop, a binding
slot) must resolve: an unknown one is an UNKNOWN_REFERENCE error. One that only adds text or checks
to a step (a function definition, a `wr.refs.*` snippet, a `wr.features.*` feature, a step's output
contract) is left out when this build does not have it, as WorkRail ignores function names it does
not find: an UNRESOLVED_REFERENCE warning names it, and the compiled workflow lists it under
`leftOut` (`unresolved_references`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from workflows_app import builtins
from workflows_app.conditions import condition_problems
from workflows_app.diagnostics import Code, Diagnostic, error, pointer_of, warning
from workflows_app.engine.model import LeftOut, LeftOutKind

StepPath = list[str | int]


Step = dict[str, Any]


def walk_steps(
    steps: list[Step], path: StepPath | None = None, loop: Step | None = None
) -> Iterator[tuple[Step, StepPath, Step | None]]:
    """Every step with its path and enclosing loop, loop bodies included (inline bodies only: a
    string body is a reference to a top-level step, visited where it stands)."""
    base: StepPath = path if path is not None else ["steps"]
    for index, step in enumerate(steps):
        step_path = [*base, index]
        yield step, step_path, loop
        if isinstance(step.get("body"), list):
            yield from walk_steps(step["body"], [*step_path, "body"], step)


def structure_diagnostics(document: dict[str, Any]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    steps = document["steps"]
    found += _duplicate_step_ids(steps)
    found += _loop_bodies(steps)
    assessments = {a["id"] for a in document.get("assessments", [])}
    for step, path, _loop in walk_steps(steps):
        found += _conditions_of(step, path)
        found += _references_of(step, path, assessments)
        if step.get("type") is None and not ({"prompt", "promptBlocks", "templateCall"} & step.keys()):
            found.append(
                error(
                    Code.EMPTY_STEP,
                    f"Step '{step['id']}' has nothing to do: no prompt.",
                    "Give the step a 'prompt', 'promptBlocks' or a 'templateCall'.",
                    pointer=pointer_of(path),
                )
            )
    found += [_unresolved_warning(item) for item in unresolved_references(document)]
    return found


_KNOWN_OF_KIND: dict[str, Collection[str]] = {
    "ref": builtins.REFS,
    "feature": builtins.FEATURES,
    "contract": builtins.CONTRACTS,
}
_WHAT = {
    "function": "function",
    "ref": "prompt reference",
    "feature": "feature",
    "contract": "output contract",
}


def unresolved_references(document: dict[str, Any]) -> list[LeftOut]:
    """What the compiler leaves out of this workflow because nothing defines it, each as
    {"kind": function | ref | feature | contract, "name", "pointer"} (a JSON pointer into the file),
    sorted by pointer: functions no scope defines (workflow, enclosing loop, step), unknown
    `wr.refs.*` snippets and `wr.features.*` features, output contracts no registry knows."""
    found: list[LeftOut] = []
    for index, feature in enumerate(document.get("features", [])):
        if feature not in builtins.FEATURES:
            found.append(_left_out("feature", feature, ["features", index]))
    workflow_functions = _names(document.get("functionDefinitions"))
    steps = document["steps"]
    # A top-level step a loop names as its body runs inside that loop, with the loop's functions.
    owners = {s["body"]: s for s in steps if s.get("type") == "loop" and isinstance(s.get("body"), str)}
    for step, path, loop in walk_steps(steps):
        enclosing = loop if loop is not None else owners.get(step["id"]) if len(path) == 2 else None
        scope = (
            workflow_functions
            | _names((enclosing or {}).get("functionDefinitions"))
            | _names(step.get("functionDefinitions"))
        )
        for index, reference in enumerate(step.get("functionReferences", [])):
            name = reference.removesuffix("()")
            if name not in scope:
                found.append(_left_out("function", name, [*path, "functionReferences", index]))
        for index, call in enumerate(step.get("functionCalls", [])):
            if call["name"] not in scope:
                found.append(_left_out("function", call["name"], [*path, "functionCalls", index]))
        for where, value in _prompt_values(step.get("promptBlocks") or {}):
            for index, part in enumerate(value if isinstance(value, list) else []):
                if part.get("kind") == "ref" and part["refId"] not in builtins.REFS:
                    found.append(_left_out("ref", part["refId"], [*path, "promptBlocks", *where, index]))
        for contract_at in CONTRACT_PLACES:
            declared = _at(step, contract_at) or {}
            contract = declared.get("contractRef")
            if contract is not None and "schema" not in declared and contract not in builtins.CONTRACTS:
                found.append(_left_out("contract", contract, [*path, *contract_at, "contractRef"]))
    return sort_left_out(found)


# Where a step declares an output contract: its own, and its synthesis step's (a parallel step).
CONTRACT_PLACES: tuple[tuple[str, ...], ...] = (("outputContract",), ("synthesis", "outputContract"))


def _at(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def sort_left_out(items: list[LeftOut]) -> list[LeftOut]:
    """In document order (array indexes compared as numbers), then kind and name: deterministic."""
    return sorted(
        items,
        key=lambda item: (
            _pointer_key(item["pointer"]),
            item["kind"],
            item["name"],
            _pointer_key(item.get("origin", {}).get("pointer", "")),
        ),
    )


def _pointer_key(pointer: str) -> tuple[tuple[int, int, str], ...]:
    parts = pointer.split("/")[1:]
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in parts)


def _left_out(kind: LeftOutKind, name: str, path: StepPath) -> LeftOut:
    return {"kind": kind, "name": name, "pointer": pointer_of(path)}


def _names(definitions: Any) -> set[str]:
    return {f["name"] for f in definitions or []}


def _prompt_values(blocks: dict[str, Any]) -> Iterator[tuple[StepPath, Any]]:
    """Each prompt value of a step's promptBlocks with its path inside them."""
    if "goal" in blocks:
        yield ["goal"], blocks["goal"]
    for name in ("constraints", "procedure", "verify"):
        for index, value in enumerate(blocks.get(name, [])):
            yield [name, index], value


def _unresolved_warning(item: LeftOut) -> Diagnostic:
    kind, name = item["kind"], item["name"]
    what = _WHAT[kind]
    if kind == "function":
        fix = f"Define '{name}' in functionDefinitions (of the workflow, its loop or the step), or drop the reference."
    elif kind == "contract":
        fix = (
            f"Use a known contract ({', '.join(sorted(builtins.CONTRACTS))}) or declare it inline with artifactKind, "
            f"schema and example. Until then the step accepts '{builtins.artifact_kind_of(name)}' artifacts unchecked "
            "and does not require one."
        )
    else:
        fix = f"Use one of: {', '.join(sorted(_KNOWN_OF_KIND[kind]))}; or remove it."
    return warning(
        Code.UNRESOLVED_REFERENCE,
        f"Unknown {what} '{name}': this WorkRail does not have it, so the workflow runs without it.",
        fix,
        pointer=item["pointer"],
        details={"kind": kind, "name": name},
    )


def _duplicate_step_ids(steps: list[dict[str, Any]]) -> list[Diagnostic]:
    seen: dict[str, StepPath] = {}
    found = []
    for step, path, _loop in walk_steps(steps):
        if step["id"] in seen:
            found.append(
                error(
                    Code.DUPLICATE_STEP_ID,
                    f"Step id '{step['id']}' is used again (first at {pointer_of(seen[step['id']])}).",
                    "Give every step, including those inside loop bodies, its own id.",
                    pointer=pointer_of([*path, "id"]),
                )
            )
        else:
            seen[step["id"]] = path
    return found


def _loop_bodies(steps: list[dict[str, Any]]) -> list[Diagnostic]:
    top_level = {step["id"]: step for step in steps}
    referenced: dict[str, str] = {}
    found = []
    for step, path, _loop in walk_steps(steps):
        if step.get("type") != "loop":
            continue
        loop, body = step["loop"], step["body"]
        if isinstance(body, str):
            target = top_level.get(body)
            if target is None or target is step or target.get("type") == "loop":
                found.append(
                    error(
                        Code.UNKNOWN_LOOP_BODY,
                        f"Loop '{step['id']}' names body step '{body}', which is not a non-loop top-level step.",
                        f"Use the id of a top-level step ({', '.join(sorted(top_level)) or 'none'}) "
                        "or inline the body.",
                        pointer=pointer_of([*path, "body"]),
                    )
                )
            elif body in referenced:
                found.append(
                    error(
                        Code.UNKNOWN_LOOP_BODY,
                        f"Step '{body}' is already the body of loop '{referenced[body]}'.",
                        "A step can be the body of one loop only; copy it under another id.",
                        pointer=pointer_of([*path, "body"]),
                    )
                )
            else:
                referenced[body] = step["id"]
        if "maxIterations" not in loop:
            found.append(
                error(
                    Code.INVALID_LOOP,
                    f"Loop '{step['id']}' has no maxIterations.",
                    "Add loop.maxIterations (1-1000) so a loop can never run forever.",
                    pointer=pointer_of([*path, "loop"]),
                )
            )
        source = loop.get("conditionSource", {})
        if source.get("kind") == "artifact_contract" and source.get("contractRef") not in builtins.CONTRACTS:
            found.append(
                _unknown(
                    "contract",
                    source.get("contractRef"),
                    [*path, "loop", "conditionSource", "contractRef"],
                    sorted(builtins.CONTRACTS),
                )
            )
    return found


def _conditions_of(step: dict[str, Any], path: StepPath) -> list[Diagnostic]:
    candidates: list[tuple[Any, StepPath]] = []
    if "runCondition" in step:
        candidates.append((step["runCondition"], [*path, "runCondition"]))
    confirmation = step.get("requireConfirmation")
    if isinstance(confirmation, dict):
        if "kind" in confirmation:
            if "condition" in confirmation:
                candidates.append((confirmation["condition"], [*path, "requireConfirmation", "condition"]))
        else:
            candidates.append((confirmation, [*path, "requireConfirmation"]))
    loop = step.get("loop", {})
    if "condition" in loop:
        candidates.append((loop["condition"], [*path, "loop", "condition"]))
    if "condition" in loop.get("conditionSource", {}):
        candidates.append((loop["conditionSource"]["condition"], [*path, "loop", "conditionSource", "condition"]))
    for index, fragment in enumerate(step.get("promptFragments", [])):
        if "when" in fragment:
            candidates.append((fragment["when"], [*path, "promptFragments", index, "when"]))
    criteria = step.get("validationCriteria")
    for index, rule in enumerate(criteria if isinstance(criteria, list) else []):
        if "condition" in rule:
            candidates.append((rule["condition"], [*path, "validationCriteria", index, "condition"]))
    found = []
    for condition, where in candidates:
        for pointer, message in condition_problems(condition, pointer_of(where)):
            found.append(
                error(
                    Code.INVALID_CONDITION,
                    f"Condition at {pointer}: {message}.",
                    "Use 'var' with equals, not_equals, gt, gte, lt, lte, contains, startsWith, "
                    "endsWith, matches or in; combine with and / or / not.",
                    pointer=pointer,
                )
            )
    return found


def _references_of(step: Step, path: StepPath, assessments: set[str]) -> list[Diagnostic]:
    """The references of a step that must resolve (unresolved_references has the others)."""
    found = []
    for contract_at in CONTRACT_PLACES:
        declared = _at(step, contract_at) or {}
        if declared.get("contractRef") is not None and "schema" in declared:
            found += _inline_contract_problems(declared, [*path, *contract_at])
    template = step.get("templateCall", {}).get("templateId")
    if template is not None and builtins.routine_name_of(template) is None:
        found.append(
            _unknown(
                "template",
                template,
                [*path, "templateCall", "templateId"],
                [f"{builtins.ROUTINE_TEMPLATE_PREFIX}<routine name>"],
            )
        )
    for index, ref in enumerate(step.get("assessmentRefs", [])):
        if ref not in assessments:
            found.append(_unknown("assessment", ref, [*path, "assessmentRefs", index], sorted(assessments)))
    return found


def _unknown(what: str, value: Any, path: StepPath, known: list[str]) -> Diagnostic:
    return error(
        Code.UNKNOWN_REFERENCE,
        f"Unknown {what} '{value}'.",
        f"Use one of: {', '.join(known)}." if known else f"Declare the {what} first.",
        pointer=pointer_of(path),
    )


def _inline_contract_problems(declared: dict[str, Any], path: StepPath) -> list[Diagnostic]:
    """An inline contract must be complete, its schema valid, and its example must match it."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    fix = "Give the inline contract an artifactKind, a JSON Schema and an example that matches it."
    missing = [name for name in ("artifactKind", "example") if name not in declared]
    if missing:
        return [
            error(Code.INVALID_CONTRACT, f"Inline contract lacks {', '.join(missing)}.", fix, pointer=pointer_of(path))
        ]
    if declared["artifactKind"] in {c["artifactKind"] for c in builtins.CONTRACTS.values()}:
        return [
            error(
                Code.INVALID_CONTRACT,
                f"artifactKind '{declared['artifactKind']}' belongs to a built-in contract.",
                "Name the built-in contract in contractRef instead, or use your own kind.",
                pointer=pointer_of([*path, "artifactKind"]),
            )
        ]
    try:
        Draft202012Validator.check_schema(declared["schema"])
    except SchemaError as exc:
        return [
            error(
                Code.INVALID_CONTRACT,
                f"The contract schema is not valid JSON Schema: {exc.message}.",
                fix,
                pointer=pointer_of([*path, "schema"]),
            )
        ]
    example = {"kind": declared["artifactKind"], **declared["example"]}
    problem = next(iter(Draft202012Validator(declared["schema"]).iter_errors(example)), None)
    if problem is not None:
        return [
            error(
                Code.INVALID_CONTRACT,
                f"The contract example does not match its schema: {problem.message}.",
                fix,
                pointer=pointer_of([*path, "example"]),
            )
        ]
    return []
