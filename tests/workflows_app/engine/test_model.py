"""The types of workflows_app/engine/model.py describe what the compiler and the engine really write.

Every compiled workflow of the fixtures, the bundled library and the corpus, and every engine state,
pending view, completed step, issue and warning of a scripted run of each, matches its type: each
value of the declared type (pydantic, strict) and no key the type does not declare. A compiler or
engine change that writes a new key or shape fails here until the model says so.
"""

from __future__ import annotations

import types
from typing import Any, TypeAliasType, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from pydantic import TypeAdapter

from tests.support.corpus import CORPUS_WORKFLOWS, corpus_available, corpus_params
from tests.support.paths import FIXTURE_WORKFLOWS
from tests.workflows_app.engine.scripted_run import load_catalog, run_scripted
from workflows_app.engine import model
from workflows_app.sources import SourceKind

CATALOG = load_catalog(FIXTURE_WORKFLOWS, *([CORPUS_WORKFLOWS] if corpus_available() else []))
COMPILED = {entry.id: entry.compiled for entry in CATALOG.entries}
OURS = sorted(entry.id for entry in CATALOG.entries if entry.path.is_relative_to(FIXTURE_WORKFLOWS))
BUNDLED = sorted(entry.id for entry in CATALOG.entries if entry.source.kind is SourceKind.BUNDLED)
CORPUS = sorted(set(COMPILED) - set(OURS) - set(BUNDLED))
RUNNABLE = sorted(entry.id for entry in CATALOG.entries if entry.kind == "workflow")


def undeclared(value: Any, hint: Any, where: str = "") -> list[str]:
    """The JSON pointers of the keys in `value` that `hint` does not declare (its TypedDicts, at any depth)."""
    if isinstance(hint, TypeAliasType):
        return undeclared(value, hint.__value__, where)
    if is_typeddict(hint):
        if not isinstance(value, dict):
            return []
        hints = get_type_hints(hint)
        found = [f"{where}/{key}" for key in value if key not in hints]
        for key, item in value.items():
            if key in hints:
                found += undeclared(item, hints[key], f"{where}/{key}")
        return found
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        each = [undeclared(value, member, where) for member in args]
        return min(each, key=len)  # the member the value is: one with nothing undeclared, if any
    if origin is list and isinstance(value, list):
        return [
            pointer for index, item in enumerate(value) for pointer in undeclared(item, args[0], f"{where}/{index}")
        ]
    if origin is dict and isinstance(value, dict):
        return [pointer for key, item in value.items() for pointer in undeclared(item, args[1], f"{where}/{key}")]
    return []


def matches(value: Any, hint: Any) -> None:
    TypeAdapter(hint).validate_python(value, strict=True)
    assert undeclared(value, hint) == []


@pytest.mark.parametrize("workflow_id", [*OURS, *BUNDLED, *corpus_params(CORPUS)])
def test_every_compiled_workflow_is_a_compiled_workflow(workflow_id):
    matches(COMPILED[workflow_id], model.CompiledWorkflow)


@pytest.mark.parametrize("workflow_id", [workflow_id for workflow_id in RUNNABLE if workflow_id not in CORPUS])
def test_every_state_and_view_of_a_run_has_the_models_shape(workflow_id):
    run = run_scripted(COMPILED[workflow_id])
    for transition in run.transitions:
        matches(transition.state, model.EngineState)
        matches(transition.pending, model.PendingView | None)
        matches(transition.completed, model.CompletedStep | None)
        matches(transition.issues, list[model.EngineIssue])
        matches(transition.warnings, list[model.EngineWarning])


def test_an_undeclared_key_is_found_at_any_depth():
    compiled = COMPILED[BUNDLED[0]]
    loop = {"kind": "loop", "id": "l", "loop": {"type": "for", "count": 1, "sideways": True}, "body": []}
    assert undeclared({**compiled, "steps": [*compiled["steps"], loop]}, model.CompiledWorkflow) == [
        f"/steps/{len(compiled['steps'])}/loop/sideways"
    ]
    assert undeclared({"stepId": "a", "title": "A", "loop": None, "extra": 1}, model.CompletedStep) == ["/extra"]
