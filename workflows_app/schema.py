"""Validation against the WorkRail v0.3 workflow schema (vendored, MIT; see schema/LICENSE).

Five deliberate departures, all documented in docs/workflows.md:
- the condition language gains `startsWith`, `endsWith` and `matches`, which our interpreter supports;
- a step may declare `userDependencies` (what only the user can give), which the modes act on;
- an `outputContract` may be declared inline (artifactKind, schema, example) instead of by registry name;
- a workflow may say how it is found in the catalog: `tags` (tag ids, workflows_app/tags.py), `formerIds`
  (ids it had before a rename, still accepted) and `sameJobAs` (a workflow elsewhere doing the same job, with
  how they differ); malformed `tags` are dropped with an IGNORED_FIELD warning, as older releases wrote them;
- a few descriptive fields from older WorkRail releases (`tips`, `autoRecognitionPatterns`,
  a step's `expectedOutput`, `examples` written as objects) never affect execution, so they are
  dropped with an IGNORED_FIELD warning instead of making the whole workflow unusable.

And two fields of WorkRail's newer format that its library uses and the vendored v0.3 file predates
(see schema/README.md): an `audit` may hand the audit to a routine (`delegate`, a delegation like a
parallel step's), and a `verification` may be a reasoning check (`cognitive`) instead of a command.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError

from workflows_app.diagnostics import Code, Diagnostic, error, pointer_of, warning
from workflows_app.tags import own_tags

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "workflow.schema.v0.3.json"
MAX_ERRORS_PER_FILE = 10
# Validating costs about half a millisecond a step, more for an invalid one, under the catalog's lock:
# without bounds one hostile file of a few thousand steps held every tool for seconds. So a workflow
# has at most MAX_STEPS steps (loop bodies included; the largest in WorkRail's library has 18), and
# validation stops after MAX_ERRORS_COLLECTED errors (only MAX_ERRORS_PER_FILE are shown anyway).
MAX_STEPS = 1000
MAX_ERRORS_COLLECTED = 100

LEGACY_TOP_LEVEL_FIELDS = ("tips", "autoRecognitionPatterns")
LEGACY_STEP_FIELDS = ("expectedOutput",)
# User-only dependencies: things a step needs that only the user can give. A closed set, so that
# modes can decide what to do with each (block, or record a gap and go on).
USER_DEPENDENCY_REASONS = {
    "document": "a document only the user can supply",
    "secret": "a credential or secret only the user holds",
    "decision": "a decision only the user can make",
    "approval": "an explicit sign-off from the user",
    "access": "access to a system the agent cannot reach",
    "information": "a fact only the user knows",
}
USER_DEPENDENCIES = {
    "type": "array",
    "description": "What this step needs that only the user can give; each is met when context has contextKey.",
    "items": {
        "type": "object",
        "required": ["reason", "description", "contextKey"],
        "properties": {
            "reason": {"enum": list(USER_DEPENDENCY_REASONS)},
            "description": {"type": "string", "minLength": 1, "maxLength": 512},
            "contextKey": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
        },
        "additionalProperties": False,
    },
    "minItems": 1,
}
# An output contract may be declared in the step itself (schema plus example) instead of naming one
# from the registry: contractRef then names the workflow's own contract.
INLINE_CONTRACT_FIELDS = {
    "artifactKind": {
        "type": "string",
        "pattern": "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$",
        "description": "The kind of artifact the step must produce (namespaced, e.g. team.release_notes)",
    },
    "schema": {"type": "object", "description": "JSON Schema (draft 2020-12) the artifact must match"},
    "example": {"type": "object", "description": "An artifact that matches the schema"},
    "description": {"type": "string", "maxLength": 512},
}
# WorkRail's newer virtual-step fields (compiler.virtual_steps renders them): the shape a delegation
# already has in a parallel step, and a flag.
NEWER_AUDIT_FIELDS = {
    "delegate": {
        "$ref": "#/$defs/parallelDelegation",
        "description": "A routine or workflow to hand the audit to; its findings are evidence for the audit",
    },
}
NEWER_VERIFICATION_FIELDS = {
    "cognitive": {
        "type": "boolean",
        "description": "The check is a reasoning pass against primary evidence, not (only) a command",
    },
}
# How a workflow is found in the catalog (docs/workflows.md, "Finding workflows").
WORKFLOW_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
CATALOG_FIELDS = {
    "tags": {
        "type": "array",
        "description": "Tag ids (a tag file's vocabulary names them), e.g. ['coding']",
        "items": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,39}$"},
        "maxItems": 8,
        "uniqueItems": True,
    },
    "formerIds": {
        "type": "array",
        "description": "Ids this workflow had before a rename: starting or inspecting by one still works",
        "items": {"type": "string", "pattern": WORKFLOW_ID_PATTERN},
        "maxItems": 8,
        "uniqueItems": True,
    },
    "sameJobAs": {
        "type": "array",
        "description": "Workflows elsewhere (WorkRail's library, say) that do the same job, and when to take which",
        "items": {
            "type": "object",
            "required": ["workflowId", "takeThisFor", "takeOtherFor"],
            "properties": {
                "workflowId": {"type": "string", "pattern": WORKFLOW_ID_PATTERN},
                "takeThisFor": {
                    "type": "string",
                    "minLength": 10,
                    "maxLength": 120,
                    "description": "When to take this workflow rather than the other (depth, what it produces)",
                },
                "takeOtherFor": {
                    "type": "string",
                    "minLength": 10,
                    "maxLength": 120,
                    "description": "When to take the other workflow instead",
                },
            },
            "additionalProperties": False,
        },
        "maxItems": 4,
    },
}
EXTRA_CONDITION_OPERATORS = {
    "startsWith": {"type": "string", "description": "Variable (as text) starts with this value"},
    "endsWith": {"type": "string", "description": "Variable (as text) ends with this value"},
    "matches": {"type": "string", "description": "Variable (as text) matches this regular expression"},
}


@cache
def workflow_schema() -> dict[str, Any]:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    schema["properties"].update(copy.deepcopy(CATALOG_FIELDS))
    schema["$defs"]["condition"]["properties"].update(copy.deepcopy(EXTRA_CONDITION_OPERATORS))
    schema["$defs"]["standardStep"]["properties"]["userDependencies"] = copy.deepcopy(USER_DEPENDENCIES)
    schema["$defs"]["outputContract"]["properties"].update(copy.deepcopy(INLINE_CONTRACT_FIELDS))
    schema["$defs"]["auditConfig"]["properties"].update(copy.deepcopy(NEWER_AUDIT_FIELDS))
    schema["$defs"]["verificationConfig"]["properties"].update(copy.deepcopy(NEWER_VERIFICATION_FIELDS))
    return schema


@cache
def _validator() -> Draft7Validator:
    return Draft7Validator(workflow_schema())


@cache
def _examples_validator() -> Draft7Validator:
    return Draft7Validator(workflow_schema()["properties"]["examples"])


def drop_legacy_fields(document: dict[str, Any]) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Returns a copy without the descriptive legacy fields, and one warning per dropped field."""
    cleaned = dict(document)
    found: list[Diagnostic] = []
    fix = "Remove the field: it has no effect in this version of the workflow format."
    for name in LEGACY_TOP_LEVEL_FIELDS:
        if name in cleaned:
            message = f"'{name}' is not part of the v0.3 format; ignored."
            _ignore(cleaned, name, found, message=message, fix=fix, pointer=pointer_of([name]))
    if "tags" in cleaned and own_tags(cleaned["tags"]) is None:  # older releases wrote free-form tags
        _ignore(
            cleaned,
            "tags",
            found,
            message="'tags' must be at most 8 tag ids (lower case, digits, '_' or '-'); ignored.",
            fix="Use the ids of a tag file's vocabulary (spec/workflow-tags.json beside the workflow directory).",
            pointer="/tags",
        )
    if "examples" in cleaned and not _examples_validator().is_valid(cleaned["examples"]):
        _ignore(
            cleaned,
            "examples",
            found,
            message="'examples' must be 1 to 6 short strings (10-120 characters) in the v0.3 format; ignored.",
            fix="Rewrite examples as short goal strings, or remove the field.",
            pointer="/examples",
        )
    steps = cleaned.get("steps")
    if isinstance(steps, list):
        cleaned["steps"] = [_drop_step_fields(step, [index], found) for index, step in enumerate(steps)]
    return cleaned, found


def _drop_step_fields(step: Any, path: list[str | int], found: list[Diagnostic]) -> Any:
    if not isinstance(step, dict):
        return step
    step = dict(step)
    for name in LEGACY_STEP_FIELDS:
        if name in step:
            _ignore(
                step,
                name,
                found,
                message=f"Step field '{name}' is not part of the v0.3 format; ignored.",
                fix="Remove the field, or describe the expected output in the prompt.",
                pointer=pointer_of(["steps", *path, name]),
            )
    if isinstance(step.get("body"), list):
        step["body"] = [
            _drop_step_fields(child, [*path, "body", index], found) for index, child in enumerate(step["body"])
        ]
    return step


def _ignore(
    fields: dict[str, Any], name: str, found: list[Diagnostic], *, message: str, fix: str, pointer: str
) -> None:
    """Drops the field `name`, with the IGNORED_FIELD warning that says so."""
    del fields[name]
    found.append(warning(Code.IGNORED_FIELD, message, fix, pointer=pointer))


def schema_diagnostics(document: Any) -> list[Diagnostic]:
    steps = step_count(document)
    if steps > MAX_STEPS:
        return [
            error(
                Code.SCHEMA_VIOLATION,
                f"The workflow has {steps} steps (loop bodies included); a workflow may have at most {MAX_STEPS}.",
                "Split it into smaller workflows, or use loops instead of repeating steps.",
                pointer="/steps",
            )
        ]
    found: list[Diagnostic] = []
    raised = islice(_validator().iter_errors(document), MAX_ERRORS_COLLECTED + 1)
    errors = [leaf for err in raised for leaf in _leaves(err)]
    errors.sort(key=lambda e: (list(map(str, e.absolute_path)), e.message))
    for err in errors[:MAX_ERRORS_PER_FILE]:
        found.append(_describe(err))
    if len(errors) > MAX_ERRORS_PER_FILE:
        found.append(
            error(
                Code.SCHEMA_VIOLATION,
                f"{len(errors) - MAX_ERRORS_PER_FILE}{' or more' if len(errors) > MAX_ERRORS_COLLECTED else ''} "
                "more schema errors not shown.",
                "Fix the errors above and validate again.",
            )
        )
    return found


def step_count(document: Any) -> int:
    """How many steps `document` declares, loop bodies included (a body may also name a step by id)."""
    count = 0
    pending = [document.get("steps")] if isinstance(document, dict) else []
    while pending:
        steps = pending.pop()
        if not isinstance(steps, list):
            continue
        for step in steps:
            if isinstance(step, dict):
                count += 1
                pending.append(step.get("body"))
    return count


def _leaves(err: ValidationError) -> list[ValidationError]:
    """The errors worth showing for a failed oneOf/anyOf: those of the alternative the author most
    likely meant, i.e. the one that got deepest into the document (then the one with fewest errors).
    A step with a typo in its runCondition is reported there, not as "not a loop step"."""
    if not err.context:
        return [err]
    branches: dict[object, list[ValidationError]] = {}
    for child in err.context:
        branches.setdefault(child.relative_schema_path[0], []).append(child)
    chosen = min(branches.values(), key=lambda errs: (-max(len(e.absolute_path) for e in errs), len(errs)))
    return [leaf for child in chosen for leaf in _leaves(child)]


def _describe(err: ValidationError) -> Diagnostic:
    pointer = pointer_of(list(err.absolute_path))
    where = pointer or "the document root"
    validator = err.validator
    if validator == "required":
        fix = "Add the missing property."
    elif validator == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {})) if isinstance(err.schema, dict) else []
        fix = "Remove or rename the unexpected property." + (f" Allowed here: {', '.join(allowed)}." if allowed else "")
    elif validator in {"enum", "const"}:
        fix = f"Use one of the allowed values: {err.validator_value!r}."
    elif validator == "pattern":
        fix = f"Make the value match the pattern {err.validator_value}."
    elif validator == "type":
        fix = f"Use a value of type {err.validator_value}."
    elif validator in {"minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum"}:
        fix = f"Respect the limit {validator}={err.validator_value}."
    else:
        fix = "Change the value so that it satisfies the workflow schema (v0.3)."
    return error(
        Code.SCHEMA_VIOLATION,
        f"At {where}: {err.message}",
        fix,
        pointer=pointer,
        details={"rule": str(validator)},
    )
