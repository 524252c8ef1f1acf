"""Who did what, in words (runs/readmodels/people.py), and where the read models say it."""

import pytest

from runs.readmodels import overview, people, run_view
from tests.support.team_session import team_sessions

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("owner", "door", "words"),
    [
        ("alice", "http", "by alice's agent (over HTTP)"),
        ("alice", "api", "by alice (HTTP API)"),
        ("bob", "dashboard", "by bob (dashboard)"),
        ("bob", "command", "by bob (a command)"),
        ("bob", "", "by bob"),
        ("carol", "pigeon", "by carol"),  # a door a later version records
        ("", "dashboard", "in the dashboard"),
        ("", "command", "by a command on this machine"),
        ("", "stdio", ""),  # this machine's own agent: one person, nothing to say
        ("", "", ""),
    ],
)
def test_who_in_words(owner, door, words):
    assert people.by_words(owner, door) == words


def test_the_read_models_say_who_made_each_step_fork_and_session(service_catalog):
    team = team_sessions()
    detail = overview.session_detail(team.alice_session)
    assert detail.session.owner == "alice"
    assert detail.people == ["alice", "bob"]
    run = run_view.run_detail(team.alice_run)
    assert [step.by for step in run.steps] == ["by alice's agent (over HTTP)"]  # the newest branch: bob's fork
    assert [(s.owner, s.door) for s in run.steps] == [("alice", "http")]
    answered = run_view.node_detail(str(team.answered_node))
    assert answered.by == "by alice's agent (over HTTP)"
    assert [(entry.kind, entry.by) for entry in answered.recorded] == [("checkpoint", "by alice (HTTP API)")]
    assert [(b.via, b.by) for b in answered.branches] == [
        ("checkpoint", "by alice (HTTP API)"),
        ("fork", "by bob (dashboard)"),
    ]
    assert [fork.by for fork in run.operator_forks] == ["by bob (dashboard)"]
    assert run_view.node_detail(team.fork_node).by == "by bob (dashboard)"

    local = overview.session_detail(team.local_session)
    assert local.session.owner == "" and local.people == ["bob"]
    assert [step.by for step in run_view.run_detail(team.local_run).steps] == ["by bob's agent (over HTTP)"]
    assert overview.list_sessions().has_owners


def test_local_work_says_nothing_and_a_store_without_owners_has_no_owner_column(service_catalog):
    from tests.support.mcp_calls import ack, start_workflow

    start = start_workflow("wr.routine-focused_plan")
    ack(start)
    run = run_view.run_detail(start["session"]["runId"])
    assert [step.by for step in run.steps] == [""]
    assert overview.session_detail(start["session"]["sessionId"]).people == []
    assert not overview.list_sessions().has_owners
