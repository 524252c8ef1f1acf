"""The artifact contract files (workflows_app/schema/contracts/): each is a valid draft 2020-12 JSON
Schema that accepts its own examples, the registry is built from them, and WorkRail's own example
artifacts (the ```json blocks in its workflows' prompts, from the corpus) meet the wr.contracts.*
schemas. The corpus part skips when the corpus is absent, as tests/workflows_app/test_corpus.py does."""

from __future__ import annotations

import copy
import fnmatch
import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.support.corpus import corpus_files, corpus_params, skip_without_corpus
from tests.support.paths import REPO
from workflows_app import builtins
from workflows_app.builtins.contracts import CONTRACTS_DIR, contract_files, contract_ref_of

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
FILES = contract_files()


def document(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def by_ref(path: Path) -> str:
    return contract_ref_of(path)


def test_there_is_one_file_per_contract_the_registry_knows():
    assert [contract_ref_of(path) for path in FILES] == sorted(builtins.CONTRACTS)
    assert len(FILES) == 12


@pytest.mark.parametrize("path", FILES, ids=by_ref)
def test_each_file_is_a_draft_2020_12_schema_named_after_its_contract(path):
    schema = document(path)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT_2020_12
    ref = contract_ref_of(path)
    assert (schema["$id"], schema["title"]) == (f"urn:workrail:contract:{ref}", ref)
    assert isinstance(schema["description"], str) and schema["description"]


@pytest.mark.parametrize("path", FILES, ids=by_ref)
def test_each_file_accepts_its_own_examples(path):
    schema = document(path)
    validator = Draft202012Validator(schema)
    assert schema["examples"], "a contract needs an example to show agents"
    for example in schema["examples"]:
        assert [error.message for error in validator.iter_errors(example)] == []


@pytest.mark.parametrize("path", FILES, ids=by_ref)
def test_the_registry_holds_each_file_as_a_schema_without_its_annotations(path):
    schema = document(path)
    entry = builtins.CONTRACTS[contract_ref_of(path)]
    annotations = {"$schema", "$id", "title", "description", "examples"}
    assert entry["schema"] == {key: value for key, value in schema.items() if key not in annotations}
    assert entry["artifactKind"] == schema["properties"]["kind"]["const"]
    assert entry["description"] == schema["description"]
    assert entry["example"] == schema["examples"][0]


def patterns_in(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        if isinstance(value.get("pattern"), str):
            yield value["pattern"]
        for child in value.values():
            yield from patterns_in(child)
    elif isinstance(value, list):
        for child in value:
            yield from patterns_in(child)


def test_every_pattern_is_anchored_and_refuses_a_trailing_newline_as_zod_does():
    patterns = {pattern for path in FILES for pattern in patterns_in(document(path))}
    assert patterns
    for pattern in patterns:
        assert pattern.startswith("^") and pattern.endswith("$(?!\\n)"), pattern
    loop_id = {"type": "string", "pattern": next(p for p in patterns if p.startswith("^[a-z0-9_-]"))}
    assert Draft202012Validator(loop_id).is_valid("work-loop")
    assert not Draft202012Validator(loop_id).is_valid("work-loop\n")


def test_a_pattern_written_out_in_several_places_is_the_same_everywhere():
    """The files repeat the date-time pattern rather than share it (README.md says why); the copies
    must not drift apart. Three checks: loop id, uuid, date-time. A fourth is a new check or a copy
    that changed."""
    patterns = [pattern for path in FILES for pattern in patterns_in(document(path))]
    assert len(patterns) == 5
    assert len(set(patterns)) == 3


def test_the_contract_files_ship_with_the_package():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    globs = pyproject["tool"]["setuptools"]["package-data"]["workflows_app"]
    package = CONTRACTS_DIR.parent.parent
    for path in [*FILES, CONTRACTS_DIR / "README.md"]:
        relative = path.relative_to(package).as_posix()
        assert any(fnmatch.fnmatchcase(relative, glob) for glob in globs), relative


# --- WorkRail's own examples ----------------------------------------------------------------------

JSON_BLOCK = re.compile(r"```json\s*\n(.*?)```", re.DOTALL)


def texts_in(value: Any, pointer: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield from texts_in(child, f"{pointer}/{key}")
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from texts_in(child, f"{pointer}/{index}")
    elif isinstance(value, str):
        yield pointer, value


def workrail_example_artifacts() -> list[tuple[str, dict[str, Any]]]:
    """Each `wr.*` artifact shown in a ```json block of a corpus workflow, with where it was found."""
    found = []
    for path in corpus_files():
        for pointer, text in texts_in(json.loads(path.read_text(encoding="utf-8"))):
            for block in JSON_BLOCK.findall(text):
                try:
                    shown = json.loads(block)
                except json.JSONDecodeError:
                    continue
                artifacts = shown.get("artifacts", [shown]) if isinstance(shown, dict) else []
                for artifact in artifacts:
                    if isinstance(artifact, dict) and str(artifact.get("kind", "")).startswith("wr."):
                        found.append((f"{path.name}#{pointer}", artifact))
    return found


WORKRAIL_EXAMPLES = workrail_example_artifacts()
WR_CONTRACT_BY_KIND = {
    spec["artifactKind"]: ref for ref, spec in builtins.CONTRACTS.items() if ref.startswith("wr.contracts.")
}


def test_the_corpus_shows_example_artifacts():
    skip_without_corpus()
    assert len(WORKRAIL_EXAMPLES) >= 3


@pytest.mark.parametrize("found", corpus_params(WORKRAIL_EXAMPLES, lambda found: found[0]))
def test_workrail_example_artifacts_meet_the_wr_contracts(found):
    """An example either passes, or the only values it is refused for are placeholders such as
    "continue or stop" (zod refuses those too), each of whose choices passes in its place."""
    where, artifact = found
    assert artifact["kind"] in WR_CONTRACT_BY_KIND, f"{where}: no contract for {artifact['kind']}"
    validator = Draft202012Validator(builtins.CONTRACTS[WR_CONTRACT_BY_KIND[artifact["kind"]]]["schema"])
    for error in validator.iter_errors(artifact):
        placeholder = error.instance
        assert isinstance(placeholder, str) and " or " in placeholder, (where, error.json_path, error.message)
        for choice in placeholder.split(" or "):
            chosen = copy.deepcopy(artifact)
            *parents, last = error.absolute_path
            target = chosen
            for part in parents:
                target = target[part]
            target[last] = choice
            refused_at = {tuple(e.absolute_path) for e in validator.iter_errors(chosen)}
            assert tuple(error.absolute_path) not in refused_at, (where, choice)
