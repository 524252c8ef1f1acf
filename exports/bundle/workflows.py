"""The workflows a bundle pins its runs to, checked the way this server checks its own before a run
is pinned to one, and stored in this server's canonical form.

A pinned workflow is the compiler's output (workflows_app/compiler.py), and its identity is the hash
of its RFC 8785 serialization (workflows_app/hashing.py). So a bundle's workflow is:

- re-serialized in that canonical form and re-hashed: the hash must be the one its runs name, and
  what is stored is the canonical form parsed back, never the bundle's own spelling (a `64.0` there
  is the integer 64 here, as it is for every other run pinned to the same hash; an integer outside
  RFC 8785's range cannot be hashed at all and is refused);
- read back into the document the compiler was given (steps' `kind` back to `type`, the parts the
  compiler adds set aside and checked on their own) and validated with the workflow schema and the
  structure checks a workflow file gets (workflows_app/schema.py, structure.py), relaxed only where
  compiling legitimately goes beyond the file: dotted ids of routine and virtual steps, rendered
  prompts, feature texts, resolved output contracts, loops inside loop bodies;
- started by the engine, and each loop's configuration read, as a run of it would.

Workflows from another WorkRail version pass when they have this shape: nothing here compares them
with this build's registry of routines, contracts or features.
"""

from __future__ import annotations

import copy
import hashlib
import json
from functools import cache
from itertools import islice
from typing import Annotated, Any, Literal, cast

from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match
from pydantic import Field, ValidationError

from exports.bundle.problems import BundleDamaged, BundleProblem, pointer_to
from exports.bundle.schemas import backtracking_keywords, first_error
from runs.contract.base import Shape
from workflows_app import engine
from workflows_app.compiler import COMPILER_VERSION
from workflows_app.diagnostics import Severity
from workflows_app.engine.loops import LoopSpec
from workflows_app.engine.model import CompiledStep, CompiledWorkflow, is_loop
from workflows_app.hashing import canonical_json
from workflows_app.schema import MAX_ERRORS_COLLECTED, MAX_STEPS, step_count, workflow_schema
from workflows_app.structure import structure_diagnostics

# RFC 8785 numbers are IEEE doubles: integers beyond this cannot be written exactly, so cannot be hashed.
MAX_SAFE_INTEGER = 2**53 - 1
MAX_STEP_ID_CHARS = 200  # Node.pending_step_id, Output.step_id
MAX_WORKFLOW_ID_CHARS = 64  # PinnedWorkflow.workflow_id, Run.workflow_id
# Steps one engine call may walk (steps_walked): WorkRail's own workflows walk at most about a hundred,
# a run of 10,000 loop rounds (bench/bundles.py) about 10,000; a million takes the engine 20 seconds.
MAX_STEPS_WALKED = 100_000


class _Origin(Shape):
    template_id: str = Field(max_length=200)
    call_step_id: str = Field(max_length=MAX_STEP_ID_CHARS)


class _VirtualOf(Shape):
    step_id: str = Field(max_length=MAX_STEP_ID_CHARS)
    kind: str = Field(max_length=40)


class _DeclaredAsks(Shape):
    """What a step's promptBlocks.outputRequired declares it asks for (compiler.declared_asks)."""

    context: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(default=None, max_length=200)
    notes: Literal[True] | None = None


class _LeftOut(Shape):
    kind: str = Field(max_length=40)
    name: str = Field(max_length=500)
    pointer: str = Field(max_length=1000)
    origin: dict[str, str] | None = None


class _Binding(Shape):
    value: str = Field(max_length=200)
    source: Literal["project", "default"]


class _Contract(Shape):
    """An output contract as the compiler resolves it (compiler.resolve_contract)."""

    contract_ref: str = Field(min_length=1, max_length=200)
    required: bool
    artifact_kind: str = Field(min_length=1, max_length=200)
    json_schema: dict[str, Any] | None = Field(alias="schema")
    example: dict[str, Any]
    unresolved: Literal[True] | None = None


class _Added(Shape):
    """The top-level fields the compiler adds to a workflow document."""

    compiler_version: Literal[1]
    kind: Literal["workflow", "routine"]
    left_out: list[_LeftOut] | None = None
    bindings: dict[str, _Binding] | None = None


assert COMPILER_VERSION == 1, "a bundle's compilerVersion is checked against the one this compiler writes"
_ADDED_FIELDS = ("compilerVersion", "kind", "leftOut", "bindings")
_STEP_KINDS = {"step": None, "loop": "loop", "parallel": "parallel"}


def checked_workflow(workflow: dict[str, Any], index: int) -> CompiledWorkflow:
    """The workflow's compiled form as this server stores it (canonical), or BundleProblem."""
    where = pointer_to("workflows", index, "compiled")
    compiled = canonical_form(workflow["compiled"], where)
    found = "sha256:" + hashlib.sha256(canonical_json(compiled)).hexdigest()
    if found != workflow["workflowHash"]:
        raise BundleDamaged(f"the pinned workflow {workflow['workflowId']!r} does not match its workflowHash", where)
    document = _as_document(compiled, where)
    problem = _schema_problem(document)
    if problem is None:
        errors = [d for d in structure_diagnostics(document) if d.severity == Severity.ERROR]
        problem = (errors[0].message, errors[0].pointer) if errors else None
    if problem is not None:
        message, pointer = problem
        raise BundleProblem(f"its pinned workflow is not one WorkRail compiles: {message}", where + pointer)
    if compiled.get("id") != workflow["workflowId"]:
        raise BundleProblem("a pinned workflow's id differs from its workflowId", where + "/id")
    if len(workflow["workflowId"]) > MAX_WORKFLOW_ID_CHARS:
        raise BundleProblem(f"a workflow id is longer than {MAX_WORKFLOW_ID_CHARS} characters", where + "/id")
    checked = cast(CompiledWorkflow, compiled)  # the compiled schema and the structure checks passed
    _run_by_the_engine(checked, where)
    return checked


def canonical_form(compiled: Any, where: str) -> dict[str, Any]:
    """`compiled` as RFC 8785 writes it, parsed back: integral numbers are integers, whatever their
    spelling in the bundle (integers beyond 2**53, which RFC 8785 writes in exponent form, stay floats,
    so the form re-hashes to the same bytes)."""
    if not isinstance(compiled, dict):
        raise BundleProblem("a pinned workflow must be an object", where)
    try:
        canonical = canonical_json(compiled)
    except ValueError as exc:  # rfc8785: an integer beyond 2**53, a non-finite float, a lone surrogate
        raise BundleProblem(f"a pinned workflow holds a value JSON hashing cannot write ({exc})", where) from None
    parsed: dict[str, Any] = json.loads(canonical, parse_int=_json_integer)
    return parsed


def _json_integer(text: str) -> int | float:
    number = int(text)
    return number if -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER else float(number)


def _as_document(compiled: dict[str, Any], where: str) -> dict[str, Any]:
    """The workflow document `compiled` was compiled from, as far as the schema can tell: the fields
    the compiler adds are checked here and set aside, each step's `kind` is its `type` again."""
    try:
        _Added.model_validate({name: compiled[name] for name in _ADDED_FIELDS if name in compiled})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise BundleProblem(f"its pinned workflow: {first['msg']}", where + pointer_to(*first["loc"])) from None
    document = {name: value for name, value in compiled.items() if name not in _ADDED_FIELDS}
    steps = compiled.get("steps")
    if isinstance(steps, list):
        document["steps"] = [_as_source_step(step, ["steps", i], where) for i, step in enumerate(steps)]
    return document


def _as_source_step(step: Any, path: list[str | int], where: str) -> Any:
    # `kind` is looked up only when it is text: a list or an object there cannot be a dict key (a fuzzed bundle
    # with `"kind": []` was refused as "could not be checked", a TypeError, not as the shape problem it is).
    if not isinstance(step, dict) or not isinstance(step.get("kind"), str) or step["kind"] not in _STEP_KINDS:
        raise BundleProblem(
            "a compiled step must be an object whose kind is step, loop or parallel", where + pointer_to(*path)
        )
    added = ("kind", "origin", "virtualOf", "declaredAsks")  # what the compiler adds to a step
    source = {name: value for name, value in step.items() if name not in added}
    try:
        if "origin" in step:
            _Origin.model_validate(step["origin"])
        if "virtualOf" in step:
            _VirtualOf.model_validate(step["virtualOf"])
        if "declaredAsks" in step:
            _DeclaredAsks.model_validate(step["declaredAsks"])
        contract = _Contract.model_validate(step["outputContract"]) if "outputContract" in step else None
    except ValidationError as exc:
        first = exc.errors()[0]
        raise BundleProblem(f"a compiled step: {first['msg']}", where + pointer_to(*path)) from None
    if contract is not None:  # the schema knows declared contracts: the resolved one is checked here
        _check_contract(contract, where + pointer_to(*path, "outputContract"))
        source["outputContract"] = {"contractRef": contract.contract_ref, "required": contract.required}
    kind = _STEP_KINDS[step["kind"]]
    if kind is not None:
        source["type"] = kind
    if kind == "parallel":
        source.pop("prompt", None)  # rendered from the delegations by the compiler
    if kind == "loop" and isinstance(step.get("body"), list):
        source["body"] = [_as_source_step(child, [*path, "body", i], where) for i, child in enumerate(step["body"])]
    return source


def _check_contract(contract: _Contract, where: str) -> None:
    """A resolved contract's schema must be JSON Schema and its example must match it (the compiler
    writes the registry's or the step's own, both checked when they were loaded). Matched in linear
    time: the bundle brings both the schema and the example (exports/bundle/schemas.py)."""
    if contract.json_schema is None:
        return
    try:
        Draft202012Validator.check_schema(contract.json_schema)
    except SchemaError as exc:
        raise BundleProblem(f"an output contract's schema is not JSON Schema: {exc.message[:200]}", where) from None
    if backtracking_keywords(contract.json_schema):
        raise BundleProblem(
            "an output contract's schema matches patternProperties under unevaluatedProperties, "
            "which this store does not check in bundles",
            where,
        )
    problem = first_error(contract.json_schema, contract.example)
    if problem is not None:
        raise BundleProblem(f"an output contract's example does not match its schema: {problem.message[:200]}", where)


def _schema_problem(document: dict[str, Any]) -> tuple[str, str] | None:
    """The schema's most telling complaint about `document` as (message, pointer), or None. Bounded as
    the catalog's check is: a workflow has at most MAX_STEPS steps."""
    if step_count(document) > MAX_STEPS:
        return f"it has more than {MAX_STEPS} steps", "/steps"
    found = best_match(islice(_compiled_validator().iter_errors(document), MAX_ERRORS_COLLECTED))
    if found is None:
        return None
    return found.message[:300], pointer_to(*found.absolute_path)


@cache
def _compiled_validator() -> Draft7Validator:
    return Draft7Validator(compiled_schema())


@cache
def compiled_schema() -> dict[str, Any]:
    """The workflow schema as it applies to compiled workflows (see the module's docstring)."""
    schema = copy.deepcopy(workflow_schema())
    defs = schema["$defs"]
    defs["stepId"].update(pattern=r"^[a-z0-9-]+(\.[a-z0-9-]+)*$", maxLength=MAX_STEP_ID_CHARS)
    defs["standardStep"]["properties"]["prompt"].pop("maxLength", None)
    defs["standardStep"]["required"] = [*defs["standardStep"]["required"], "prompt"]
    for name in ("standardStep", "loopStep", "parallelStep"):
        defs[name]["properties"]["title"]["maxLength"] = MAX_STEP_ID_CHARS
    defs["parallelStep"]["properties"]["prompt"] = {"type": "string"}
    defs["loopStep"]["properties"]["body"] = {
        "type": "array",
        "minItems": 1,
        "items": {"oneOf": [{"$ref": f"#/$defs/{name}"} for name in ("standardStep", "loopStep", "parallelStep")]},
    }
    schema["properties"]["metaGuidance"]["items"].pop("maxLength", None)
    return schema


def _run_by_the_engine(compiled: CompiledWorkflow, where: str) -> None:
    """Starts it, counts its steps and reads every loop's configuration, as a run of it does. The engine
    was written for workflows the catalog checked; anything it raises here is a workflow it cannot run.
    First the most steps one engine call may walk must be bounded (`steps_walked`): loops inside loops
    whose bodies are all skipped would otherwise keep it (and every later call) busy for hours."""
    try:
        walked = steps_walked(compiled["steps"])
        if walked > MAX_STEPS_WALKED:
            raise BundleProblem(
                f"its pinned workflow's loops may walk {walked:,} steps in one call "
                f"(at most {MAX_STEPS_WALKED:,} are allowed)",
                where + "/steps",
            )
        engine.start(compiled)
        engine.step_count(compiled)
    except BundleProblem:
        raise
    except Exception as exc:  # anything: see the docstring
        raise BundleProblem(f"the engine cannot run its pinned workflow ({type(exc).__name__}: {exc})", where) from None


def steps_walked(steps: list[CompiledStep]) -> int:
    """The most steps the engine may visit settling one call: each step once, each loop's body once per
    iteration it may run (maxIterations, as the engine caps it)."""
    total = 0
    for step in steps:
        total += 1
        if is_loop(step):
            total += LoopSpec.of(step).max_iterations * steps_walked(step["body"])
    return total
