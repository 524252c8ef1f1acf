"""Sessions a team made on one shared store, for the tests of who did what: alice's, started and answered by
her agent over HTTP, forked by bob (dashboard) and checkpointed by alice (HTTP API); and a
session made on this machine (no owner) that bob's agent then answered a step of over HTTP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from runs.execution.operator_fork import fork_node
from runs.store import tokens
from runs.store.actors import Actor, Door, acting_as
from runs.store.tokens import TokenKind
from tests.support.mcp_calls import ack, checkpoint_workflow, start_workflow

PLAN = "wr.routine-focused_plan"
ALICE_HTTP = Actor("alice", Door.HTTP)
BOB_DASHBOARD = Actor("bob", Door.DASHBOARD)


@dataclass(frozen=True)
class Team:
    alice_session: str
    alice_run: str
    answered_node: int  # where alice's agent answered the first step: alice checkpointed it, bob forked from it
    fork_node: str  # the first node of the branch bob started
    local_session: str
    local_run: str


def team_sessions() -> Team:
    with acting_as(ALICE_HTTP):
        start = start_workflow(PLAN, {"sessionKey": "alice-plan", "goal": "Plan the billing export"})
        second = ack(start)
    with acting_as(Actor("alice", Door.API)):
        checkpoint_workflow(stateToken=second["stateToken"], output={"notesMarkdown": "Half way through."})
    with acting_as(BOB_DASHBOARD):
        forked = fork_node(node_of(second), {"goal": "Plan the CSV export"}, "A narrower plan first", via="dashboard")
    local = start_workflow(PLAN, {"sessionKey": "local-plan"})
    with acting_as(Actor("bob", Door.HTTP)):
        ack(local)
    return Team(
        alice_session=start["session"]["sessionId"],
        alice_run=start["session"]["runId"],
        answered_node=node_of(second),
        fork_node=forked.node_id,
        local_session=local["session"]["sessionId"],
        local_run=local["session"]["runId"],
    )


def node_of(response: dict[str, Any]) -> int:
    """The node an answer's stateToken names."""
    return tokens.parse(settings.WORKRAIL_HOME, response["stateToken"], TokenKind.STATE).id
