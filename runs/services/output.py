"""Checks on what an agent sends along with an ack: `context` (inputs) and `output` (durable notes)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from runs.errors import ErrorCode, WorkRailError

MAX_NOTES_BYTES = 64 * 1024
MAX_OUTPUT_BYTES = 512 * 1024
MAX_CONTEXT_BYTES = 256 * 1024


def check_context(context: Any) -> dict[str, Any]:
    if context is None:
        return {}
    if not isinstance(context, dict):
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            "context must be an object of named values.",
            'Send context like {"ticketId": "AUTH-1234", "complexity": "Standard"}.',
        )
    if len(json.dumps(context)) > MAX_CONTEXT_BYTES:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"context is larger than {MAX_CONTEXT_BYTES} bytes.",
            "Keep context to the inputs that steer the workflow; put notes in output.notesMarkdown.",
        )
    return context


def check_output(output: Any) -> dict[str, Any]:
    if output is None:
        return {}
    if not isinstance(output, dict):
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            "output must be an object.",
            'Send output like {"notesMarkdown": "What I did and what is next."}.',
        )
    notes = output.get("notesMarkdown")
    if notes is not None and not isinstance(notes, str):
        raise WorkRailError(
            ErrorCode.INVALID_INPUT, "output.notesMarkdown must be a string.", "Send the notes as one Markdown string."
        )
    if notes is not None and len(notes.encode()) > MAX_NOTES_BYTES:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"output.notesMarkdown is larger than {MAX_NOTES_BYTES} bytes.",
            "Keep notes to a short recap (about 10 lines); big results belong in files.",
        )
    artifacts = output.get("artifacts")
    if artifacts is not None and (
        not isinstance(artifacts, list)
        or not all(isinstance(a, dict) and isinstance(a.get("kind"), str) for a in artifacts)
    ):
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            "output.artifacts must be a list of objects, each with a 'kind'.",
            'Send artifacts like [{"kind": "wr.loop_control", "decision": "stop"}].',
        )
    if len(json.dumps(output)) > MAX_OUTPUT_BYTES:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"output is larger than {MAX_OUTPUT_BYTES} bytes.",
            "Send a short recap and small structured artifacts only.",
        )
    return output


def registry_contracts() -> dict[str, tuple[str, dict[str, Any]]]:
    from workflows_app.builtins import CONTRACTS

    return {contract["artifactKind"]: (ref, contract) for ref, contract in CONTRACTS.items()}


def check_artifacts(output: dict[str, Any], by_kind: dict[str, tuple[str, dict[str, Any]]]) -> None:
    """Artifacts are of closed kinds (the contract registry, plus the contracts the run's workflow
    declares) and must match their contract. An artifact that does not is refused with the contract
    and a JSON pointer; nothing is guessed or stored."""
    from jsonschema import Draft202012Validator

    for index, artifact in enumerate(output.get("artifacts", [])):
        kind = artifact["kind"]
        if kind not in by_kind:
            raise WorkRailError(
                ErrorCode.ARTIFACT_INVALID,
                f"output.artifacts[{index}] has kind '{kind}', which no contract defines.",
                f"Use one of the artifact kinds {', '.join(sorted(by_kind))}, or put free-form results in "
                "notesMarkdown.",
                details={"pointer": f"/output/artifacts/{index}/kind", "knownKinds": sorted(by_kind)},
            )
        ref, contract = by_kind[kind]
        problem = next(
            iter(
                sorted(
                    Draft202012Validator(contract["schema"]).iter_errors(artifact),
                    key=lambda e: list(map(str, e.absolute_path)),
                )
            ),
            None,
        )
        if problem is not None:
            pointer = f"/output/artifacts/{index}" + "".join(f"/{part}" for part in problem.absolute_path)
            raise WorkRailError(
                ErrorCode.ARTIFACT_INVALID,
                f"output.artifacts[{index}] does not match contract {ref}: {problem.message} (at {pointer}).",
                f"Fix the artifact to match the contract; a valid example: {json.dumps(contract['example'])}",
                details={
                    "pointer": pointer,
                    "contractRef": ref,
                    "schema": contract["schema"],
                    "example": contract["example"],
                },
            )


def output_digest(output: dict[str, Any]) -> str:
    """Same output, same digest, whatever the key order: tells a true replay from a changed one."""
    return "sha256:" + hashlib.sha256(json.dumps(output, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
