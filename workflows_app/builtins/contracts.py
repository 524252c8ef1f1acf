"""Output contracts a step names with `"outputContract": {"contractRef": ...}`.

Each contract is a JSON Schema file in workflows_app/schema/contracts/, named
`<contract-ref>.schema.json`; the README there says how WorkRail's zod schemas were carried over.
This module reads them once, at import, into CONTRACTS: contract ref -> {"artifactKind",
"description", "schema", "example"}.

A file's own annotations ($schema, $id, title, description, examples) say what the contract is;
the registry's "schema" is the rest, the part an artifact is checked against. That part is what the
compiler copies into a compiled workflow (so into its hash) and what an agent is shown, so it holds
only validation keywords and never changes because a file's description is reworded. The artifact
kind is the schema's own `kind` constant; the example an agent sees is the file's first.

By WorkRail's convention the artifact kind of `wr.contracts.<name>` is `wr.<name>`
(`artifact_kind_of`), which is also the kind a contract this build does not know is given.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypedDict

CONTRACTS_DIR = Path(__file__).resolve().parent.parent / "schema" / "contracts"
CONTRACT_FILE_SUFFIX = ".schema.json"
CONTRACT_NAMESPACE_MARK = ".contracts."
# Keywords that describe the contract file rather than constrain the artifact.
_FILE_ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "examples"})


def contract_files() -> list[Path]:
    """The contract files, sorted by name (so by contract ref)."""
    return sorted(CONTRACTS_DIR.glob(f"*{CONTRACT_FILE_SUFFIX}"))


def contract_ref_of(path: Path) -> str:
    return path.name.removesuffix(CONTRACT_FILE_SUFFIX)


class RegisteredContract(TypedDict):
    """A contract of the registry, read from its schema file."""

    artifactKind: str  # the `kind` its artifacts carry (the schema's kind const)
    description: str
    schema: dict[str, Any]  # the JSON Schema an artifact must match (the file without its annotations)
    example: dict[str, Any]  # an artifact that matches (the file's first example)


def _registry_entry(document: dict[str, Any]) -> RegisteredContract:
    schema = {key: value for key, value in document.items() if key not in _FILE_ANNOTATIONS}
    return {
        "artifactKind": schema["properties"]["kind"]["const"],
        "description": document["description"],
        "schema": schema,
        "example": document["examples"][0],
    }


def _load_contracts() -> dict[str, RegisteredContract]:
    return {
        contract_ref_of(path): _registry_entry(json.loads(path.read_text(encoding="utf-8")))
        for path in contract_files()
    }


CONTRACTS: dict[str, RegisteredContract] = _load_contracts()


def artifact_kind_of(contract_ref: str) -> str:
    """The artifact kind a contract reference stands for when no registry defines it: WorkRail names
    `wr.contracts.<name>`'s artifacts `wr.<name>` (so `team.contracts.x` gives `team.x`); a reference
    without `.contracts.` is its own kind, as our `mr_review.*` contracts are."""
    known = CONTRACTS.get(contract_ref)
    if known is not None:
        return str(known["artifactKind"])
    namespace, mark, name = contract_ref.partition(CONTRACT_NAMESPACE_MARK)
    return f"{namespace}.{name}" if mark and namespace and name else contract_ref
