"""A parallel step's delegations as the engine resolves them: the child context (contextMapping goes
from the parent's keys to the child's, as WorkRail's schema says; args win) and the context every
delegation shares. No database."""

from __future__ import annotations

from tests.workflows_app.engine.builders import step, workflow
from workflows_app.engine import start
from workflows_app.engine.delegations import child_context, delegations, shared_context


def parallel(*delegated: dict) -> dict:
    return step("fan-out", kind="parallel", parallelDelegations=list(delegated))


def test_context_mapping_maps_parent_keys_to_child_keys():
    # Parent and child keys differ, and the parent also holds a key named like the child's: only
    # {parentKey: childKey} gives the child the parent's libraryName under `component`.
    context = {"libraryName": "requests", "component": "parent's own component"}
    child = child_context({"contextMapping": {"libraryName": "component"}}, context)
    assert child == {"component": "requests"}


def test_args_win_over_mapped_values_and_unset_parent_keys_are_left_out():
    context = {"ticket": "T-1", "branch": "main"}
    delegation = {"contextMapping": {"ticket": "issue", "branch": "ref", "absent": "gone"}, "args": {"ref": "fixed"}}
    assert child_context(delegation, context) == {"issue": "T-1", "ref": "fixed"}


def test_a_started_parallel_step_hands_out_the_mapped_context():
    compiled = workflow(
        parallel(
            {"workflowId": "team.child", "goal": "Check it.", "contextMapping": {"moduleName": "module"}},
            {"workflowId": "team.child", "runCondition": {"var": "nightly", "equals": True}},
        )
    )
    pending = start(compiled, {"moduleName": "billing"}).pending
    assert pending is not None
    first, second = pending["delegations"]
    assert (first["workflowId"], first["goal"], first["runs"]) == ("team.child", "Check it.", True)
    assert first["context"] == {"module": "billing"}
    assert second["runs"] is False and second["context"] == {}


def test_shared_context_is_what_every_delegation_receives_alike():
    packet = {"diff": "x" * 1000, "files": ["a.py"]}
    handed_out = [
        {"context": {"facts": packet, "family": "security", "depth": 1}},
        {"context": {"facts": packet, "family": "tests", "depth": 1}},
        {"context": {"facts": dict(packet), "family": "tests", "depth": True}},
    ]
    assert shared_context(handed_out) == {"facts": packet}  # True is not 1; "family" differs
    assert shared_context(handed_out[:1]) == {}  # a single delegation shares nothing
    assert shared_context([{"context": {"a": 1}}, {"context": {}}]) == {}


def test_only_a_parallel_step_has_delegations():
    assert delegations(step("plain"), {}) is None
