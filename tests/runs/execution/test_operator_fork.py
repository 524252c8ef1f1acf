"""The operator fork (runs/execution/operator_fork.py): a developer starts a new branch from a node with
edited context and a reason; the agent goes on from the stateToken handed over, and sees the edit."""

from __future__ import annotations

import pytest
from django.conf import settings

from harness.projections import snapshot
from runs.contract.errors import WorkRailError
from runs.execution import session_actions
from runs.execution.operator_fork import change_between, fork_node
from runs.models import Event, EventKind, Node, RunStatus
from runs.store import events, tokens
from runs.store.rebuild import rebuild_projections
from runs.store.tokens import TokenKind
from tests.support.mcp_calls import ack, continue_workflow, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(service_catalog) -> dict:
    """A release run one step in: prepared for staging, the staging deployment pending."""
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    return {"start": start, "next": ack(start)}


def node_of(answer: dict) -> Node:
    return Node.objects.get(public_id=tokens.parse(settings.WORKRAIL_HOME, answer["stateToken"], TokenKind.STATE).id)


def raises(code: str, call) -> WorkRailError:
    with pytest.raises(WorkRailError) as caught:
        call()
    assert caught.value.code == code, caught.value
    return caught.value


def test_a_fork_starts_a_branch_with_the_edited_context_and_the_agent_goes_on_from_it(release, settings):
    start, staged = release["start"], release["next"]
    assert staged["pending"]["stepId"] == "deploy-staging"
    root = node_of(start)
    before = {n.public_id: (n.engine_state, n.pending_step_id) for n in Node.objects.all()}

    result = fork_node(
        str(root.public_id), {"target": "production", "ticketId": "REL-7"}, "  Ship to production now. ", via="api"
    )

    assert result.reason == "Ship to production now."
    assert result.context_set == {"target": "production"}  # the session key was sent unchanged: not a change
    assert result.context == {**START_CONTEXT, "target": "production"}
    assert result.pending_step_id == "prepare" and result.forked_from == str(root.public_id)
    assert result.call.dump() == {"tool": "continue_workflow", "arguments": {"stateToken": result.state_token}}
    child = Node.objects.get(public_id=int(result.node_id))
    assert child.parent_id == root.pk and child.depth == 1 and child.pending_step_id == "prepare"
    assert child.engine_state == {**root.engine_state, "context": result.context}
    assert child.preferences == root.preferences
    # Nothing on the existing branch changed.
    assert {n.public_id: (n.engine_state, n.pending_step_id) for n in Node.objects.exclude(pk=child.pk)} == before
    recorded = Event.objects.filter(kind=EventKind.OPERATOR_FORKED).get()
    assert recorded.data == {
        "runId": start["session"]["runId"],
        "nodeId": root.public_id,
        "childNodeId": child.public_id,
        "reason": "Ship to production now.",
        "contextSet": {"target": "production"},
        "contextRemoved": [],
        "via": "api",
    }

    # The agent is handed the call: it sees the step rendered with the edit, then goes on down the new path.
    shown = continue_workflow(**result.call.arguments.dump())
    assert shown["runContext"]["target"] == "production"
    assert "to production" in shown["pending"]["prompt"]
    assert shown["ackToken"] == result.ack_token  # the ackToken issued with the fork, not a second one
    assert any(w["code"] == "OPERATOR_FORK" and "Ship to production now." in w["message"] for w in shown["warnings"])
    moved = ack(shown)
    assert moved["pending"]["stepId"] == "deploy-production"
    assert "billing to production" in moved["pending"]["prompt"]
    # The original branch still goes to staging.
    again = continue_workflow(stateToken=staged["stateToken"])
    assert again["pending"]["stepId"] == "deploy-staging" and again["runContext"]["target"] == "staging"


def test_null_removes_a_key_and_an_editor_of_the_whole_context_sends_only_what_changed(release):
    root = node_of(release["start"])
    change = change_between(START_CONTEXT, {"service": "search", "ticketId": "REL-7", "dryRun": True})
    assert change == {"service": "search", "dryRun": True, "target": None}
    result = fork_node(root.public_id, change, "Try search instead, no target yet.", via="dashboard")
    assert result.context == {"service": "search", "ticketId": "REL-7", "dryRun": True}
    assert result.context_set == {"service": "search", "dryRun": True} and result.context_removed == ["target"]
    assert fork_node(root.public_id, {}, "Same context, a fresh branch.", via="dashboard").context == START_CONTEXT


def test_the_fork_is_rebuilt_exactly_from_the_event_log(release):
    root = node_of(release["start"])
    result = fork_node(root.public_id, {"target": "production"}, "Production instead.", via="dashboard")
    continue_workflow(**result.call.arguments.dump())
    before = snapshot()
    rebuild_projections()
    assert snapshot() == before
    rebuilt = Node.objects.get(public_id=int(result.node_id))
    assert rebuilt.engine_state["context"]["target"] == "production" and rebuilt.parent.public_id == root.public_id


def test_the_event_reads_back_as_it_was_written():
    sample = events.OperatorForked(
        run_id="run_1", node_id=1, child_node_id=2, reason="why", context_set={"a": 1}, context_removed=["b"], via="api"
    )
    assert events.parse("operator_forked", sample.data()) == sample


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ([1, 2], "/context"),
        ("production", "/context"),
        ({"target": float("nan")}, "/context/target"),
        ({"target": "prod\x00uction"}, "/context/target"),
        ({"ticketId": "REL-8"}, "/context/ticketId"),
        ({"sessionKey": "other"}, "/context/sessionKey"),
        ({"currentIteration": 3}, "/context/currentIteration"),
        ({"": 1}, "/context/"),
    ],
)
def test_a_bad_context_change_is_refused_and_nothing_is_written(release, change, pointer):
    root = node_of(release["start"])
    events_before = Event.objects.count()
    error = raises("CONTEXT_CHANGE_INVALID", lambda: fork_node(root.public_id, change, "Because.", via="api"))
    assert error.details["pointer"] == pointer
    assert "Nothing was recorded" in error.message and error.suggestion
    assert Event.objects.count() == events_before


def test_a_change_too_large_or_too_deep_is_refused(release):
    root = node_of(release["start"])
    deep: object = "bottom"
    for _ in range(70):
        deep = [deep]
    raises("CONTEXT_CHANGE_INVALID", lambda: fork_node(root.public_id, {"deep": deep}, "Deep.", via="api"))
    big = {"notes": "x" * (300 * 1024)}
    raises("CONTEXT_CHANGE_INVALID", lambda: fork_node(root.public_id, big, "Big.", via="api"))


def test_unknown_complete_and_canceled_nodes_and_a_missing_reason_are_errors_with_what_to_do(release, settings):
    root = node_of(release["start"])
    raises("NOT_FOUND", lambda: fork_node("123", {}, "Why.", via="api"))
    raises("NOT_FOUND", lambda: fork_node("not-a-node", {}, "Why.", via="api"))
    for reason in ("", "   ", None, "x" * 1001):
        raises("INVALID_INPUT", lambda reason=reason: fork_node(root.public_id, {}, reason, via="api"))
    answer = release["next"]
    while answer["kind"] != "complete":
        answer = ack(answer)
    done = raises("NODE_COMPLETE", lambda: fork_node(node_of(answer).public_id, {}, "Redo.", via="api"))
    assert "earlier node" in done.suggestion
    other = start_workflow(RELEASE, context=START_CONTEXT)
    session_actions.cancel_run(other["session"]["runId"])
    assert node_of(other).run.status == RunStatus.CANCELED
    raises("RUN_CANCELED", lambda: fork_node(node_of(other).public_id, {}, "Redo.", via="api"))
    assert not Event.objects.filter(kind=EventKind.OPERATOR_FORKED).exists()


def test_forks_are_rate_limited_like_other_writes_to_a_run(release, settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 2
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 1
    root = node_of(release["start"])
    fork_node(root.public_id, {}, "One.", via="api")
    fork_node(root.public_id, {}, "Two.", via="api")
    error = raises("RATE_LIMITED", lambda: fork_node(root.public_id, {}, "Three.", via="api"))
    assert error.retryable and error.details["retryAfterMs"] > 0
    assert Event.objects.filter(kind=EventKind.OPERATOR_FORKED).count() == 2


def test_the_state_token_handed_over_is_a_valid_token_of_this_store(release, settings):
    root = node_of(release["start"])
    result = fork_node(root.public_id, {}, "Check the token.", via="api")
    assert tokens.parse(settings.WORKRAIL_HOME, result.state_token, TokenKind.STATE).id == int(result.node_id)
    assert tokens.parse(settings.WORKRAIL_HOME, result.ack_token, TokenKind.ACK).id > 0
