"""Checking the `output` an agent sends with an advance, and describing the output that would pass.

The output is {"notesMarkdown"?: str, "artifacts"?: [object, ...]}; other keys are ignored here.
An advance is blocked, never half-applied, when any check fails, and every failing check is
reported at once so the agent can fix everything in one retry.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from workflows_app.engine import validation
from workflows_app.engine.codes import IssueCode, issue
from workflows_app.engine.contracts import Contract, contract_of, notes_required
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import AgentStep, EngineIssue, EngineWarning
from workflows_app.engine.values import json_type

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def check_output(
    step: AgentStep, output: Any, context: JsonObject, known: dict[str, Contract]
) -> tuple[list[EngineIssue], list[EngineWarning]]:
    """(issues, warnings) for `output` as the acknowledgement of `step`; no issues means it passes.
    `known` holds the contracts of the artifact kinds this run may record, by kind."""
    if output is None:
        output = {}
    if not isinstance(output, dict):
        return [issue(IssueCode.OUTPUT_INVALID, f"output must be an object, not {json_type(output)}.", "")], []
    issues = _shape_issues(output)
    notes = output.get("notesMarkdown")
    if notes_required(step) and not (isinstance(notes, str) and notes.strip()):
        issues.append(
            issue(
                IssueCode.NOTES_REQUIRED,
                "This step needs output.notesMarkdown: a short account of what was done and found.",
                validation.NOTES_POINTER,
            )
        )
    failures, warnings = validation.check(step.get("validationCriteria"), output, context)
    issues += [issue(IssueCode.VALIDATION_FAILED, failure.message, failure.pointer) for failure in failures]
    contract = contract_of(step)
    if contract is not None:
        issues += _missing_artifact(contract, output.get("artifacts"))
    issues += artifact_issues(output.get("artifacts"), known)
    return issues, warnings


def _shape_issues(output: JsonObject) -> list[EngineIssue]:
    found: list[EngineIssue] = []
    if "notesMarkdown" in output and not isinstance(output["notesMarkdown"], str):
        found.append(
            issue(
                IssueCode.OUTPUT_INVALID,
                f"notesMarkdown must be a string, not {json_type(output['notesMarkdown'])}.",
                validation.NOTES_POINTER,
            )
        )
    artifacts = output.get("artifacts")
    if "artifacts" in output and not isinstance(artifacts, list):
        found.append(
            issue(IssueCode.OUTPUT_INVALID, f"artifacts must be a list, not {json_type(artifacts)}.", "/artifacts")
        )
    for index, artifact in enumerate(artifacts if isinstance(artifacts, list) else []):
        if not isinstance(artifact, dict):
            found.append(
                issue(
                    IssueCode.OUTPUT_INVALID,
                    f"Each artifact must be an object; artifact {index} is {json_type(artifact)}.",
                    f"/artifacts/{index}",
                )
            )
    return found


def _missing_artifact(contract: Contract, artifacts: Any) -> list[EngineIssue]:
    """A required contract wants at least one artifact of its kind."""
    if contract.artifact_kind is None or not contract.required:
        return []  # an unknown contract is never required: the loader reports it, the run is not held hostage
    listed = artifacts if isinstance(artifacts, list) else []
    if any(isinstance(a, dict) and a.get("kind") == contract.artifact_kind for a in listed):
        return []
    return [
        issue(
            IssueCode.ARTIFACT_MISSING,
            f"This step needs an artifact of kind '{contract.artifact_kind}' (contract {contract.contract_ref}) "
            "in output.artifacts; see pending.outputContract for its schema and an example.",
            "/artifacts",
        )
    ]


def artifact_issues(artifacts: Any, known: dict[str, Contract]) -> list[EngineIssue]:
    """Every artifact must be of a known kind and match that kind's contract (a kind whose contract
    this build does not know has no schema: any artifact of it passes). This is the one place
    artifacts are judged: an advance turns these issues into `blocked`, a checkpoint into an error."""
    found = []
    for index, artifact in enumerate(artifacts if isinstance(artifacts, list) else []):
        if not isinstance(artifact, dict):
            continue  # reported by the shape check
        kind = artifact.get("kind")
        contract = known.get(kind) if isinstance(kind, str) else None
        if contract is None:
            kinds = ", ".join(sorted(known)) or "none"
            found.append(
                issue(
                    IssueCode.ARTIFACT_INVALID,
                    f"Artifact {index} has kind {kind!r}, which no contract of this run defines (known kinds: "
                    f"{kinds}); put free-form results in notesMarkdown.",
                    f"/artifacts/{index}/kind",
                )
            )
            continue
        # Sorted by location, so the report is the same whatever order the validator walks in.
        errors = sorted(
            _validator(contract).iter_errors(artifact), key=lambda e: (_pointer(e.absolute_path), e.message)
        )
        for error in errors:
            pointer = f"/artifacts/{index}{_pointer(error.absolute_path)}"
            found.append(
                issue(
                    IssueCode.ARTIFACT_INVALID,
                    f"Artifact at {pointer} does not match contract {contract.contract_ref}: "
                    f"{_cut(error.message, MAX_DETAIL_CHARS)}",
                    pointer,
                )
            )
    return found


def _validator(contract: Contract) -> Draft202012Validator:
    return Draft202012Validator(contract.schema or {})


def expected_output_schema(step: AgentStep, context: JsonObject, known: dict[str, Contract]) -> JsonObject:
    """A JSON Schema (draft 2020-12) of an `output` that passes every check of `step`."""
    notes: JsonObject = {"type": "string"}
    required = []
    if notes_required(step):
        notes = {"type": "string", "minLength": 1, "pattern": "\\S"}  # blank notes count as missing
        required.append("notesMarkdown")
    # Every artifact is of a known kind and matches that kind's contract...
    artifacts: JsonObject = {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["kind"],
            "properties": {"kind": {"enum": sorted(known)}},
            "allOf": [{"if": _kind_is(kind), "then": known[kind].schema or {}} for kind in sorted(known)],
        },
    }
    contract = contract_of(step)
    if contract is not None and contract.artifact_kind is not None and contract.required:
        artifacts["contains"] = _kind_is(contract.artifact_kind)  # ...and a required contract needs one.
        required.append("artifacts")
    schema: JsonObject = {
        "$schema": SCHEMA_DIALECT,
        "type": "object",
        "properties": {"notesMarkdown": notes, "artifacts": artifacts},
        "required": required,
    }
    criteria = validation.to_schema(step.get("validationCriteria"), context)
    if criteria is not None:
        schema["allOf"] = [criteria]
    return schema


def _kind_is(kind: str) -> JsonObject:
    return {"properties": {"kind": {"const": kind}}, "required": ["kind"]}


# An issue names what is wrong without echoing a large input back (an agent's artifact may hold a
# 100 KB key or value): each pointer part and the validator's message are cut short.
MAX_POINTER_PART_CHARS = 60
MAX_DETAIL_CHARS = 300


def _pointer(path: Any) -> str:
    parts = (_cut(str(part), MAX_POINTER_PART_CHARS) for part in path)
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
