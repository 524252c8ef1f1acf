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
from workflows_app.engine.jsontypes import JsonObject, Step
from workflows_app.engine.values import json_type

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def check_output(step: Step, output: Any, context: JsonObject) -> tuple[list[JsonObject], list[JsonObject]]:
    """(issues, warnings) for `output` as the acknowledgement of `step`; no issues means it passes."""
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
        issues += _contract_issues(contract, output.get("artifacts"))
    return issues, warnings


def _shape_issues(output: JsonObject) -> list[JsonObject]:
    found = []
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


def _contract_issues(contract: Contract, artifacts: Any) -> list[JsonObject]:
    if contract.artifact_kind is None:
        return []  # a contract this build does not know; the loader reports it, the run is not held hostage
    listed = artifacts if isinstance(artifacts, list) else []
    matching = [
        (index, artifact)
        for index, artifact in enumerate(listed)
        if isinstance(artifact, dict) and artifact.get("kind") == contract.artifact_kind
    ]
    if not matching:
        if not contract.required:
            return []
        return [
            issue(
                IssueCode.ARTIFACT_MISSING,
                f"This step needs an artifact of kind '{contract.artifact_kind}' (contract {contract.contract_ref}) "
                "in output.artifacts; see pending.outputContract for its schema and an example.",
                "/artifacts",
            )
        ]
    found = []
    validator = Draft202012Validator(contract.schema or {})
    for index, artifact in matching:
        # Sorted by location, so the report is the same whatever order the validator walks in.
        errors = sorted(validator.iter_errors(artifact), key=lambda e: (_pointer(e.absolute_path), e.message))
        for error in errors:
            pointer = f"/artifacts/{index}{_pointer(error.absolute_path)}"
            found.append(
                issue(
                    IssueCode.ARTIFACT_INVALID,
                    f"Artifact at {pointer} does not match contract {contract.contract_ref}: {error.message}",
                    pointer,
                )
            )
    return found


def expected_output_schema(step: Step, context: JsonObject) -> JsonObject:
    """A JSON Schema (draft 2020-12) of an `output` that passes every check of `step`."""
    notes: JsonObject = {"type": "string"}
    required = []
    if notes_required(step):
        notes = {"type": "string", "minLength": 1, "pattern": "\\S"}  # blank notes count as missing
        required.append("notesMarkdown")
    contract = contract_of(step)
    artifacts: JsonObject = {"type": "array", "items": {"type": "object"}}
    if contract is not None and contract.artifact_kind is not None:
        kind_is = {"properties": {"kind": {"const": contract.artifact_kind}}, "required": ["kind"]}
        # Every artifact of the contract's kind must match its schema...
        artifacts["items"] = {"type": "object", "if": kind_is, "then": contract.view()["schema"] or {}}
        if contract.required:
            artifacts["contains"] = kind_is  # ...and a required contract needs at least one.
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


def _pointer(path: Any) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)
