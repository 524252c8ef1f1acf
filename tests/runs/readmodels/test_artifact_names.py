"""Artifacts as people call them: the built-in contracts' kinds by what they hold, any other kind by itself."""

import json
from pathlib import Path

from runs.readmodels.artifact_names import NAMES, artifact_name

CONTRACTS = Path(__file__).resolve().parents[3] / "workflows_app" / "schema" / "contracts"


def test_a_built_in_kind_is_named_by_what_it_holds_and_another_kind_by_itself():
    assert artifact_name("mr_review.changed_files") == "the list of changed files"
    assert artifact_name("team.release_notes") == "the team.release_notes artifact"
    assert artifact_name("") == "the step's artifact"


def test_every_built_in_contracts_kind_has_a_name():
    kinds = {json.loads(f.read_text())["properties"]["kind"]["const"] for f in CONTRACTS.glob("*.schema.json")}
    assert kinds == set(NAMES)
