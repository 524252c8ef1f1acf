"""Checks the schema cannot express: unique step ids, loop bodies that exist, sound conditions,
references to things the compiler knows. Runs on documents that already passed the schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from workflows_app import builtins
from workflows_app.conditions import condition_problems
from workflows_app.diagnostics import Code, Diagnostic, error, pointer_of

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
    functions = {f["name"] for f in document.get("functionDefinitions", [])}
    for feature in document.get("features", []):
        if feature not in builtins.FEATURES:
            found.append(_unknown("feature", feature, ["features"], sorted(builtins.FEATURES)))
    for step, path, loop in walk_steps(steps):
        found += _conditions_of(step, path)
        scope = functions | {f["name"] for f in (loop or {}).get("functionDefinitions", [])}
        found += _references_of(step, path, assessments, scope)
        if step.get("type") is None and not ({"prompt", "promptBlocks", "templateCall"} & step.keys()):
            found.append(
                error(
                    Code.EMPTY_STEP,
                    f"Step '{step['id']}' has nothing to do: no prompt.",
                    "Give the step a 'prompt', 'promptBlocks' or a 'templateCall'.",
                    pointer=pointer_of(path),
                )
            )
    return found


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


def _references_of(step: Step, path: StepPath, assessments: set[str], scope_functions: set[str]) -> list[Diagnostic]:
    found = []
    declared = step.get("outputContract", {})
    contract = declared.get("contractRef")
    if contract is not None and "schema" in declared:
        found += _inline_contract_problems(declared, [*path, "outputContract"])
    elif contract is not None and contract not in builtins.CONTRACTS:
        found.append(
            _unknown("contract", contract, [*path, "outputContract", "contractRef"], sorted(builtins.CONTRACTS))
        )
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
    blocks = step.get("promptBlocks", {})
    values = [
        blocks.get("goal"),
        *blocks.get("constraints", []),
        *blocks.get("procedure", []),
        *blocks.get("verify", []),
    ]
    for value in values:
        for part in value if isinstance(value, list) else []:
            if part.get("kind") == "ref" and part["refId"] not in builtins.REFS:
                found.append(
                    _unknown("prompt reference", part["refId"], [*path, "promptBlocks"], sorted(builtins.REFS))
                )
    for index, ref in enumerate(step.get("assessmentRefs", [])):
        if ref not in assessments:
            found.append(_unknown("assessment", ref, [*path, "assessmentRefs", index], sorted(assessments)))
    available = scope_functions | {f["name"] for f in step.get("functionDefinitions", [])}
    called = [ref.removesuffix("()") for ref in step.get("functionReferences", [])]
    called += [call["name"] for call in step.get("functionCalls", [])]
    for name in called:
        if name not in available:
            found.append(_unknown("function", name, [*path], sorted(available)))
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
