"""A model-based test: random mixes of starts, advances, replays, rehydrates, rewinds, forks and bad
tokens, checked against a small reference model of what the store must hold."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from harness.projections import snapshot
from runs.contract.errors import WorkRailError
from runs.models import Ack, Node, PinnedWorkflow, RateBucket, Session
from runs.store.rebuild import rebuild_projections
from tests.support.checks import assert_gap_free
from tests.support.fuzz_budget import examples
from tests.support.mcp_calls import continue_workflow, start_workflow
from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db


def model_workflow() -> dict[str, Any]:
    loop = {"type": "while", "condition": {"var": "again", "equals": True}, "maxIterations": 3}
    return workflow_doc(
        "project.model",
        steps=[
            step_doc("first", "First", "First."),
            loop_doc("repeat", "Repeat", loop, [step_doc("inside", "Inside", "Iteration {{currentIteration}}.")]),
            step_doc("last", "Last", "Last."),
        ],
    )


class ExecutionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        Session.objects.all().delete()
        PinnedWorkflow.objects.all().delete()
        # A fresh store per example: the shared rate buckets too, or ~600 starts over 25 examples run past
        # the limit of new runs whenever the examples go faster than it refills.
        RateBucket.objects.all().delete()
        self.responses: list[dict[str, Any]] = []  # every response with a pending step, in order
        self.acked: dict[tuple[str, str], str] = {}  # (stateToken, ackToken) -> recorded response JSON
        self.children: dict[str, set[str]] = {}  # stateToken -> stateTokens of its children

    def _remember(self, response: dict[str, Any]) -> None:
        if response["ackToken"] is not None:
            self.responses.append(response)

    @rule(again=st.booleans())
    def start(self, again: bool) -> None:
        self._remember(start_workflow("project.model", {"again": again}))

    @precondition(lambda self: self.responses)
    @rule(data=st.data(), again=st.booleans())
    def advance(self, data: st.DataObject, again: bool) -> None:
        response = data.draw(st.sampled_from(self.responses))
        pair = (response["stateToken"], response["ackToken"])
        result = continue_workflow(
            stateToken=pair[0],
            ackToken=pair[1],
            context={"again": again},
            output={"notesMarkdown": f"done {response['pending']['stepId']}"},
        )
        if pair in self.acked:  # a replay: the same answer, never a second advance
            recorded = json.loads(self.acked[pair])
            assert result["stateToken"] == recorded["stateToken"]
            assert result["ackToken"] == recorded["ackToken"]
            return
        self.acked[pair] = json.dumps(result)
        if result["kind"] != "blocked":
            self.children.setdefault(pair[0], set()).add(result["stateToken"])
        self._remember(result)

    @precondition(lambda self: self.responses)
    @rule(data=st.data())
    def rehydrate_or_rewind(self, data: st.DataObject) -> None:
        response = data.draw(st.sampled_from(self.responses))
        nodes = Node.objects.count()
        result = continue_workflow(stateToken=response["stateToken"])
        assert Node.objects.count() == nodes  # rehydrating never advances
        assert result["pending"]["stepId"] == response["pending"]["stepId"]
        known_children = self.children.get(response["stateToken"], set())
        assert {b["stateToken"] for b in result.get("branches", [])} == known_children
        self._remember(result)  # its ackToken, when acked, forks a sibling branch

    @precondition(lambda self: self.responses)
    @rule(data=st.data(), position=st.integers(min_value=4, max_value=27))
    def tampered_token(self, data: st.DataObject, position: int) -> None:
        response = data.draw(st.sampled_from(self.responses))
        token = response["stateToken"]
        altered = token[:position] + ("A" if token[position] != "A" else "B") + token[position + 1 :]
        with pytest.raises(WorkRailError) as caught:
            continue_workflow(stateToken=altered, ackToken=response["ackToken"])
        assert caught.value.code.value in {"TOKEN_BAD_SIGNATURE", "TOKEN_MALFORMED"}

    @precondition(lambda self: len({r["session"]["runId"] for r in self.responses}) > 1)
    @rule(data=st.data())
    def cross_run_ack(self, data: st.DataObject) -> None:
        first = data.draw(st.sampled_from(self.responses))
        others = [r for r in self.responses if r["session"]["runId"] != first["session"]["runId"]]
        second = data.draw(st.sampled_from(others))
        with pytest.raises(WorkRailError) as caught:
            continue_workflow(stateToken=first["stateToken"], ackToken=second["ackToken"])
        assert caught.value.code.value == "TOKEN_SCOPE_MISMATCH"

    @invariant()
    def every_pair_advanced_at_most_once_and_is_durable(self) -> None:
        assert Ack.objects.count() == len(self.acked)
        stored = {a.attempt_id: a.response_json for a in Ack.objects.all()}
        assert sorted(stored.values()) == sorted(self.acked.values())

    @invariant()
    def forks_are_siblings_and_the_log_is_gap_free(self) -> None:
        from django.conf import settings as django_settings

        from runs.store import tokens
        from runs.store.tokens import TokenKind

        for parent_token, children in self.children.items():
            node_id = tokens.parse(django_settings.WORKRAIL_HOME, parent_token, TokenKind.STATE).id
            assert Node.objects.get(public_id=node_id).children.count() == len(children)
        assert_gap_free()

    def teardown(self) -> None:
        before = snapshot()
        rebuild_projections()
        assert snapshot() == before


def test_the_store_matches_the_reference_model(service_catalog):
    write_json(service_catalog["project"] / ".workrail" / "workflows" / "model.json", model_workflow())
    run_state_machine_as_test(
        ExecutionMachine,
        settings=settings(
            max_examples=examples(25),
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        ),
    )
