"""Our fixture workflows load through the real catalog loader, and together they use every property
the format defines: the vendored v0.3 schema with our documented extensions (workflows_app/schema.py),
every built-in snippet, feature and contract, and each variant of the format's switches. Adding a
feature to the schema or the builtins without a fixture that uses it fails here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fixture_workflows import fixture_documents
from tests.support.paths import FIXTURE_WORKFLOWS
from workflows_app import builtins
from workflows_app.catalog import Catalog, CatalogLoader
from workflows_app.diagnostics import Severity
from workflows_app.schema import (
    LEGACY_STEP_FIELDS,
    LEGACY_TOP_LEVEL_FIELDS,
    USER_DEPENDENCIES,
    USER_DEPENDENCY_REASONS,
    workflow_schema,
)
from workflows_app.sources import SourceKind, configured_sources

DOCUMENTS = fixture_documents()
LEGACY_FIXTURE = "fixture-legacy-format"  # the one fixture written in the older style, on purpose

# Properties no fixture needs to use: only purely descriptive ones may be listed, with the reason.
# None today: every property, descriptive or not, appears in some fixture.
UNCOVERED_ALLOWED: dict[str, set[str]] = {}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> Catalog:
    empty = tmp_path_factory.mktemp("empty")
    sources = configured_sources(workrail_home=empty, project_dir=empty, extra_paths=[FIXTURE_WORKFLOWS])
    return CatalogLoader(sources).load()


def test_the_fixtures_are_there_with_unique_ids():
    ids = [document["id"] for document in DOCUMENTS.values()]
    assert len(ids) >= 15
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("path", sorted(DOCUMENTS), ids=lambda p: p.relative_to(FIXTURE_WORKFLOWS).as_posix())
def test_it_loads_every_fixture_without_errors(catalog, path: Path):
    document = DOCUMENTS[path]
    errors = [d for d in catalog.diagnostics if d.file == str(path) and d.severity is Severity.ERROR]
    assert errors == []
    entry = catalog.get(document["id"])
    assert entry is not None
    assert entry.path == path
    assert entry.source.kind is SourceKind.EXTRA
    assert entry.kind == ("routine" if path.parent.name == "routines" else "workflow")
    assert entry.workflow_hash.startswith("sha256:")
    if document["id"] == LEGACY_FIXTURE:
        # An id without a namespace and the dropped fields of older releases: warnings, never errors.
        assert sorted({d.code.value for d in entry.warnings}) == ["IGNORED_FIELD", "LEGACY_ID"]
        assert sorted(d.pointer for d in entry.warnings if d.code.value == "IGNORED_FIELD") == [
            "/autoRecognitionPatterns",
            "/examples",
            "/steps/0/expectedOutput",
            "/tags",
            "/tips",
        ]
    else:
        assert list(entry.warnings) == []


def test_routine_template_calls_expand_our_routine_and_the_bundled_one(catalog):
    compiled = catalog.get("fixture.routine_calls").compiled
    routine = catalog.get("fixture.routine-release_checks").compiled
    bundled = catalog.get("wr.routine-focused_plan").compiled
    routine_ids = [step["id"] for step in routine["steps"]]
    assert [step["id"] for step in compiled["steps"]] == [
        "prepare-release",
        *[f"check-api.{step_id}" for step_id in routine_ids],
        *[f"check-worker.{step_id}" for step_id in routine_ids],
        *[f"plan-follow-up.{step['id']}" for step in bundled["steps"]],
        "announce-release",
    ]
    api_build = compiled["steps"][1]
    assert api_build["origin"] == {"templateId": "wr.templates.routine.release_checks", "callStepId": "check-api"}
    assert api_build["prompt"].startswith("Routine guidance:\n- Report each check as passed or failed")
    assert "Check that api-server builds from a clean checkout of release/2.4." in api_build["prompt"]
    worker_rollback = next(s for s in compiled["steps"] if s["id"] == "check-worker.rehearse-rollback")
    assert worker_rollback["runCondition"] == {
        "and": [{"var": "includeWorker", "equals": True}, {"var": "risky", "equals": True}]
    }
    smoke = next(s for s in compiled["steps"] if s["id"] == "check-api.smoke-loop")
    assert [child["id"] for child in smoke["body"]] == ["check-api.smoke-test"]


def test_features_and_snippets_are_compiled_into_the_guidance_and_prompts(catalog):
    metadata = catalog.get("fixture.workflow_metadata").compiled
    assert metadata["metaGuidance"][-3:] == list(builtins.FEATURES.values())
    for field in ("about", "examples", "preconditions", "clarificationPrompts", "recommendedPreferences"):
        assert metadata[field] == DOCUMENTS[FIXTURE_WORKFLOWS / "workflow_metadata.json"][field]
    blocks = catalog.get("fixture.prompt_blocks").compiled["steps"]
    prompts = "\n".join(step["prompt"] for step in blocks)
    for text in builtins.REFS.values():
        # Each line of a snippet is there (inside a list item, its later lines are indented under it).
        assert all(line.strip() in prompts for line in text.splitlines()), text
    assert blocks[0]["prompt"].index("Goal:") < blocks[0]["prompt"].index("Constraints:")
    assert blocks[0]["prompt"].index("Output required (") < blocks[0]["prompt"].index("Verify:")


# --- Which schema definition each object of a raw fixture document must match -----------------------


def schema_properties() -> dict[str, set[str]]:
    """Property names by definition: the schema's (with our extensions), plus the forms the schema
    nests inline (preferences, gate objects, condition sources, prompt parts, user dependencies)."""
    schema = workflow_schema()
    defs = schema["$defs"]
    found = {name: set(spec["properties"]) for name, spec in defs.items() if "properties" in spec}
    found["workflow"] = set(schema["properties"]) | set(LEGACY_TOP_LEVEL_FIELDS)
    found["standardStep"] |= set(LEGACY_STEP_FIELDS)
    found["recommendedPreferences"] = set(schema["properties"]["recommendedPreferences"]["properties"])
    found["userDependency"] = set(USER_DEPENDENCIES["items"]["properties"])
    found["confirmationGate"] = set(defs["confirmationRule"]["oneOf"][1]["properties"])
    for option in defs["loopConfig"]["properties"]["conditionSource"]["oneOf"]:
        found[f"conditionSource:{option['properties']['kind']['const']}"] = set(option["properties"])
    for option in defs["promptPart"]["oneOf"]:
        found[f"promptPart:{option['properties']['kind']['const']}"] = set(option["properties"])
    return found


def typed_objects(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object of a workflow document with the name of the definition it must match."""
    yield "workflow", document
    if "recommendedPreferences" in document:
        yield "recommendedPreferences", document["recommendedPreferences"]
    for function in document.get("functionDefinitions", []):
        yield from _function(function)
    for assessment in document.get("assessments", []):
        yield "assessmentDefinition", assessment
        for dimension in assessment["dimensions"]:
            yield "assessmentDimension", dimension
    for point in document.get("extensionPoints", []):
        yield "extensionPoint", point
    for reference in document.get("references", []):
        yield "workflowReference", reference
    for step in document["steps"]:
        yield from _step(step)


def _function(function: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "functionDefinition", function
    for parameter in function.get("parameters", []):
        yield "functionParameter", parameter


def _condition(condition: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "condition", condition
    for combinator in ("and", "or"):
        for item in condition.get(combinator, []):
            yield from _condition(item)
    if "not" in condition:
        yield from _condition(condition["not"])


def _confirmation(rule: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(rule, dict) and "kind" in rule:
        yield "confirmationGate", rule
        if "condition" in rule:
            yield from _condition(rule["condition"])
    elif isinstance(rule, dict):
        yield from _condition(rule)


def _validation(node: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, list):
        for rule in node:
            yield from _validation(rule)
    elif "type" in node:
        yield "validationRule", node
        if "condition" in node:
            yield from _condition(node["condition"])
    else:
        yield "validationComposition", node
        for combinator in ("and", "or", "not"):
            if combinator in node:
                yield from _validation(node[combinator])


def _prompt_value(value: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    for part in value if isinstance(value, list) else []:
        yield f"promptPart:{part['kind']}", part


def _step(step: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    kind = {"loop": "loopStep", "parallel": "parallelStep"}.get(step.get("type", ""), "standardStep")
    yield kind, step
    if "runCondition" in step:
        yield from _condition(step["runCondition"])
    yield from _confirmation(step.get("requireConfirmation"))
    for function in step.get("functionDefinitions", []):
        yield from _function(function)
    if kind == "loopStep":
        loop = step["loop"]
        yield "loopConfig", loop
        if "condition" in loop:
            yield from _condition(loop["condition"])
        if "conditionSource" in loop:
            source = loop["conditionSource"]
            yield f"conditionSource:{source['kind']}", source
            if "condition" in source:
                yield from _condition(source["condition"])
        for child in step["body"] if isinstance(step["body"], list) else []:
            yield from _step(child)
    elif kind == "parallelStep":
        for delegation in step["parallelDelegations"]:
            yield "parallelDelegation", delegation
            if "runCondition" in delegation:
                yield from _condition(delegation["runCondition"])
        if "synthesis" in step:
            yield "synthesisConfig", step["synthesis"]
            if "outputContract" in step["synthesis"]:
                yield "outputContract", step["synthesis"]["outputContract"]
    else:
        yield from _standard_parts(step)


def _standard_parts(step: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    if "promptBlocks" in step:
        blocks = step["promptBlocks"]
        yield "promptBlocks", blocks
        yield from _prompt_value(blocks.get("goal"))
        for name in ("constraints", "procedure", "verify"):
            for value in blocks.get(name, []):
                yield from _prompt_value(value)
    for fragment in step.get("promptFragments", []):
        yield "promptFragment", fragment
        if "when" in fragment:
            yield from _condition(fragment["when"])
    if "validationCriteria" in step:
        yield from _validation(step["validationCriteria"])
    for name, definition in (
        ("outputContract", "outputContract"),
        ("templateCall", "templateCall"),
        ("audit", "auditConfig"),
        ("verification", "verificationConfig"),
    ):
        if name in step:
            yield definition, step[name]
    for call in step.get("functionCalls", []):
        yield "functionCall", call
    for consequence in step.get("assessmentConsequences", []):
        yield "assessmentConsequence", consequence
        yield "assessmentConsequenceTrigger", consequence["when"]
        yield "assessmentConsequenceEffect", consequence["effect"]
    for dependency in step.get("userDependencies", []):
        yield "userDependency", dependency


def used_properties() -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    for document in DOCUMENTS.values():
        for definition, found in typed_objects(document):
            used.setdefault(definition, set()).update(found)
    return used


def all_objects() -> Iterator[tuple[str, dict[str, Any]]]:
    for document in DOCUMENTS.values():
        yield from typed_objects(document)


def test_every_schema_definition_with_properties_is_walked():
    """A new definition in the schema must be taught to typed_objects (and then get a fixture)."""
    walked = {definition for definition, _ in all_objects()}
    assert set(schema_properties()) == walked


def test_the_walk_only_finds_properties_of_the_definition_it_names():
    """A check on the walk itself: a fixture key the definition does not declare means a wrong guess."""
    known = schema_properties()
    misplaced = {
        (definition, key) for definition, found in all_objects() for key in found if key not in known[definition]
    }
    assert misplaced == set()


@pytest.mark.parametrize("definition", sorted(schema_properties()))
def test_every_property_of_the_format_appears_in_a_fixture(definition):
    declared = schema_properties()[definition]
    used = used_properties().get(definition, set())
    assert declared - used - UNCOVERED_ALLOWED.get(definition, set()) == set()


# --- The format's switches: each value a workflow can choose is used by some fixture ----------------


def values_used(definition: str, key: str) -> set[Any]:
    """The scalar values given to `key` in objects of `definition`."""
    values = [found[key] for name, found in all_objects() if name == definition and key in found]
    return {value for value in values if isinstance(value, bool | int | float | str)}


def shapes_used(definition: str, key: str) -> set[str]:
    """The JSON types given to `key` in objects of `definition`."""
    names = {bool: "boolean", int: "number", float: "number", str: "string", list: "array", dict: "object"}
    return {names[type(found[key])] for name, found in all_objects() if name == definition and key in found}


def test_every_loop_type_and_form_is_used():
    loop_config = workflow_schema()["$defs"]["loopConfig"]["properties"]
    assert values_used("loopConfig", "type") == set(loop_config["type"]["enum"])
    assert shapes_used("loopConfig", "count") == {"number", "string"}  # a fixed count, a context variable
    assert shapes_used("loopStep", "body") == {"array", "string"}  # inline steps, a top-level step's id
    artifact_loops = [found for name, found in all_objects() if name == "conditionSource:artifact_contract"]
    assert any("loopId" in source for source in artifact_loops)
    assert any("loopId" not in source for source in artifact_loops)


def test_every_step_type_and_confirmation_form_is_used():
    assert {found.get("type") for name, found in all_objects() if name.endswith("Step")} == {None, "loop", "parallel"}
    forms = {
        _confirmation_form(found["requireConfirmation"])
        for name, found in all_objects()
        if name.endswith("Step") and "requireConfirmation" in found
    }
    assert forms == {"true", "false", "condition", "gate", "gate with condition"}
    gate_kinds = workflow_schema()["$defs"]["confirmationRule"]["oneOf"][1]["properties"]["kind"]["enum"]
    assert values_used("confirmationGate", "kind") == set(gate_kinds)


def _confirmation_form(rule: Any) -> str:
    if isinstance(rule, bool):
        return str(rule).lower()
    if "kind" in rule:
        return "gate with condition" if "condition" in rule else "gate"
    return "condition"


def test_every_validation_rule_type_and_composition_is_used():
    rule_types = workflow_schema()["$defs"]["validationRule"]["properties"]["type"]["enum"]
    assert values_used("validationRule", "type") == set(rule_types)
    assert shapes_used("standardStep", "validationCriteria") == {"array", "object"}  # rules, a composition


def test_every_condition_operator_is_used_and_paths_reach_inside_values():
    operators = set(workflow_schema()["$defs"]["condition"]["properties"])
    used = used_properties()["condition"]
    assert operators <= used
    variables = {found["var"] for name, found in all_objects() if name == "condition" and "var" in found}
    assert any(var.endswith(".length") for var in variables)
    assert any(var.split(".")[-1].isdigit() for var in variables)
    assert any("." in var and not var.endswith(".length") for var in variables)
    assert {} in [found for name, found in all_objects() if name == "condition"]  # always true


def test_every_builtin_snippet_feature_and_contract_is_used():
    refs = {found["refId"] for name, found in all_objects() if name == "promptPart:ref"}
    assert refs == set(builtins.REFS)
    features = {feature for document in DOCUMENTS.values() for feature in document.get("features", [])}
    assert features == set(builtins.FEATURES)
    contracts = values_used("outputContract", "contractRef")
    assert set(builtins.CONTRACTS) <= contracts
    assert any("schema" in found for name, found in all_objects() if name == "outputContract")  # an inline one
    assert {True, False} <= values_used("outputContract", "required")


def test_every_user_dependency_reason_is_used():
    assert values_used("userDependency", "reason") == set(USER_DEPENDENCY_REASONS)


def test_template_calls_use_routines_and_placeholders_use_every_form():
    templates = values_used("templateCall", "templateId")
    assert all(template.startswith(builtins.ROUTINE_TEMPLATE_PREFIX) for template in templates)
    text = "\n".join(path.read_text(encoding="utf-8") for path in DOCUMENTS)
    for form in ("{{audience.role}}", "{{services.length}}", "{{position + 1}}", "{{round - 1}}", "{{currentItem}}"):
        assert form in text
    assert any("." not in document["id"] for document in DOCUMENTS.values())  # a legacy id
    assert any(path.parent.name == "routines" for path in DOCUMENTS)
