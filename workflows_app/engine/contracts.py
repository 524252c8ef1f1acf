"""A step's output contract, resolved against the contracts the compiler knows (builtins.CONTRACTS).

A contract nobody defines (left out by the loader, see compiler.resolve_contract) still names an
artifact kind, by WorkRail's convention (`wr.contracts.x_y` -> `wr.x_y`): artifacts of that kind are
accepted without a schema, the step does not require one, and its notes are required as for a step
without a contract (they are then its only checked output).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workflows_app import builtins
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import CompiledStep, ContractView
from workflows_app.engine.tree import walk


@dataclass(frozen=True)
class Contract:
    contract_ref: str
    required: bool
    artifact_kind: str | None
    schema: JsonObject | None  # None for a contract this build does not know: its artifacts are not checked
    example: Any

    def view(self) -> ContractView:
        """`pending.outputContract`; copies, so a caller editing it cannot alter the built-in contracts."""
        return {
            "contractRef": self.contract_ref,
            "required": self.required,
            "artifactKind": self.artifact_kind,
            "schema": copy.deepcopy(self.schema),
            "example": copy.deepcopy(self.example),
        }


def contract_of(step: CompiledStep) -> Contract | None:
    declared = step.get("outputContract")
    if not isinstance(declared, dict) or not isinstance(declared.get("contractRef"), str):
        return None
    # The compiler resolves contracts into the step; a bare reference falls back to the registry.
    ref = declared["contractRef"]
    if "schema" in declared:
        known: Mapping[str, Any] = declared
    elif ref in builtins.CONTRACTS:
        known = builtins.CONTRACTS[ref]
    else:
        kind = builtins.artifact_kind_of(ref)
        return Contract(ref, False, kind, None, {"kind": kind})
    return Contract(
        contract_ref=ref,
        required=declared.get("required", True) is not False and known.get("schema") is not None,
        artifact_kind=known.get("artifactKind"),
        schema=known.get("schema"),
        example=known.get("example"),
    )


def notes_required(step: CompiledStep) -> bool:
    """Notes are the default output; a step opts out with notesOptional, and a contract step's
    artifact is its output, so it needs no notes either, unless the contract is one this build does
    not know (its artifacts are not required, the notes are)."""
    if step.get("notesOptional") is True:
        return False
    contract = contract_of(step)
    return contract is None or contract.schema is None


def known_contracts(steps: list[CompiledStep]) -> dict[str, Contract]:
    """The artifact kinds a run of this workflow may record, by kind: the registry's contracts, then
    those the workflow declares inline (resolved into its steps by the compiler)."""
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
