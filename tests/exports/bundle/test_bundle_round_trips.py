"""What WorkRail exports, it imports: sessions of any shape (many branches from one node, checkpoints,
operator forks, rewinds) survive export, an empty store and import with every projection unchanged, and
beside the original as a copy. Sessions are built by the tools an agent calls, as random programs of
moves (hypothesis), so no shape the live path can make is left out."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from exports.bundles import export_session_bundle, import_session_bundle
from runs.execution import operator_fork
from runs.models import Session
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.exports.bundle.support import declared_ids, empty_the_store, id_renaming, projections
from tests.support.fuzz_budget import examples
from tests.support.mcp_calls import checkpoint_workflow, continue_workflow, notes_for, start_workflow

pytestmark = pytest.mark.django_db

PLAN = "wr.routine-focused_plan"


def _node_of(answer: dict[str, Any]) -> int:
    return tokens.parse(settings.WORKRAIL_HOME, answer["stateToken"], TokenKind.STATE).id


def _branch_from(answer: dict[str, Any], notes: str) -> dict[str, Any]:
    """A rewind to `answer`'s node, then its step acknowledged with `notes`: a new child of that node."""
    fresh = continue_workflow(stateToken=answer["stateToken"])
    output = {**notes_for(fresh["pending"]), "notesMarkdown": notes}
    return continue_workflow(stateToken=fresh["stateToken"], ackToken=fresh["ackToken"], output=output)


def _round_trips(session_id: str) -> None:
    before, ids_before = projections(), declared_ids(Session.objects.get(public_id=session_id).pk)
    data = export_session_bundle(session_id, via="command")
    empty_the_store()
    result = import_session_bundle(data, via="command")
    assert result.kept_ids
    assert projections(id_renaming(ids_before, declared_ids(result.session.pk), {})) == before
    # And once more beside it, as a copy: new ids, the same shape.
    copy = import_session_bundle(data, via="command", as_copy=True)
    assert copy.session.branch_count == Session.objects.get(public_id=session_id).branch_count


def test_a_node_with_three_children_round_trips(service_catalog):
    start = start_workflow(PLAN)
    for n in range(3):
        _branch_from(start, f"Attempt {n}: another plan.")
    session = Session.objects.get(public_id=start["session"]["sessionId"])
    assert session.branch_count == 3  # three children of one node: the first branch and two forks
    _round_trips(session.public_id)


def test_three_checkpoints_and_an_operator_fork_from_one_node_round_trip(service_catalog):
    start = start_workflow(PLAN)
    for n in range(3):
        checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": f"Checkpoint {n}."})
    _branch_from(start, "Went on.")
    _branch_from(start, "Went on again.")
    operator_fork.fork_node(_node_of(start), {"focus": "tests"}, "Try it test-first.", via="api")
    _round_trips(start["session"]["sessionId"])


# A move: (what, which earlier answer it starts from, as an index into those made so far).
MOVES = st.lists(
    st.tuples(st.sampled_from(["advance", "rewind", "checkpoint", "fork"]), st.integers(min_value=0, max_value=50)),
    min_size=1,
    max_size=12,
)


@hypothesis_settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(moves=MOVES)
def test_any_session_the_tools_make_round_trips(service_catalog, moves):
    empty_the_store()
    answers = [start_workflow(PLAN)]
    for n, (move, pick) in enumerate(moves):
        answer = answers[pick % len(answers)]
        if answer.get("isComplete"):
            continue
        if move == "advance":
            answers.append(
                continue_workflow(
                    stateToken=answer["stateToken"], ackToken=answer["ackToken"], output=notes_for(answer["pending"])
                )
            )
        elif move == "rewind":
            answers.append(_branch_from(answer, f"Move {n}: a branch of its own."))
        elif move == "checkpoint":
            checkpoint_workflow(stateToken=answer["stateToken"], output={"notesMarkdown": f"Move {n}: checkpoint."})
        else:
            forked = operator_fork.fork_node(_node_of(answer), {"focus": f"move {n}"}, "By hand.", via="api")
            answers.append(continue_workflow(stateToken=forked.state_token))
    _round_trips(answers[0]["session"]["sessionId"])


def test_a_run_linked_to_a_step_with_parentStateToken_round_trips(service_catalog: Any) -> None:
    """A linked run names its parent run and node without a delegation index (no parallel step numbered it)."""
    start = start_workflow(PLAN, {"ticketId": "LINK-1"})
    child = start_workflow(PLAN, parentStateToken=start["stateToken"])
    continue_workflow(stateToken=child["stateToken"], ackToken=child["ackToken"], output=notes_for(child["pending"]))
    _round_trips(start["session"]["sessionId"])
