"""A step's output contract, resolved against the contracts the compiler knows (builtins.CONTRACTS)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from workflows_app import builtins
from workflows_app.engine.jsontypes import JsonObject, Step


@dataclass(frozen=True)
class Contract:
    contract_ref: str
    required: bool
    artifact_kind: str | None  # None only for a contract unknown to this build (the loader rejects those)
    schema: JsonObject | None
    example: Any

    def view(self) -> JsonObject:
        """`pending.outputContract`; copies, so a caller editing it cannot alter the built-in contracts."""
        return {
            "contractRef": self.contract_ref,
            "required": self.required,
            "artifactKind": self.artifact_kind,
            "schema": copy.deepcopy(self.schema),
            "example": copy.deepcopy(self.example),
        }


def contract_of(step: Step) -> Contract | None:
    declared = step.get("outputContract")
    if not isinstance(declared, dict) or not isinstance(declared.get("contractRef"), str):
        return None
    # The compiler resolves contracts into the step; a bare reference falls back to the registry.
    known = declared if "schema" in declared else builtins.CONTRACTS.get(declared["contractRef"], {})
    return Contract(
        contract_ref=declared["contractRef"],
        required=declared.get("required", True) is not False,
        artifact_kind=known.get("artifactKind"),
        schema=known.get("schema"),
        example=known.get("example"),
    )


def notes_required(step: Step) -> bool:
    """Notes are the default output; a step opts out with notesOptional, and a contract step's
    artifact is its output, so it needs no notes either."""
    return step.get("notesOptional") is not True and "outputContract" not in step


def known_contracts(steps: list[Step]) -> dict[str, Contract]:
    """The artifact kinds a run of this workflow may record, by kind: the registry's contracts, then
    those the workflow declares inline (resolved into its steps by the compiler)."""
    from workflows_app.engine.tree import walk

    known = {
        spec["artifactKind"]: Contract(ref, True, spec["artifactKind"], spec.get("schema"), spec.get("example"))
        for ref, spec in builtins.CONTRACTS.items()
        if "artifactKind" in spec
    }
    for step in walk(steps):
        contract = contract_of(step)
        if contract is not None and contract.artifact_kind is not None:
            known.setdefault(contract.artifact_kind, contract)
    return known
