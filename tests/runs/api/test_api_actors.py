"""The HTTP API acts for its caller: what an endpoint records says who (the API token's owner, or the staff
user's name) and that it came through the API."""

from __future__ import annotations

import pytest
from django.test import Client

from runs.models import Event, EventKind
from runs.store import api_tokens

pytestmark = pytest.mark.django_db

API = "/api/v1"


def canceled_by(run_id: str) -> tuple[str, str]:
    event = Event.objects.filter(kind=EventKind.RUN_STATUS_CHANGED, data__runId=run_id, data__to="canceled").get()
    return event.actor, event.door


def test_a_bearer_token_acts_for_its_owner(built):
    token = api_tokens.create("alice-laptop", owner="alice")[1]
    client = Client(headers={"Authorization": f"Bearer {token}"})
    assert client.post(f"{API}/runs/{built.plan_run}/cancel").status_code == 200
    assert canceled_by(built.plan_run) == ("alice", "api")


def test_a_staff_login_acts_for_the_user(client, django_user_model, built):
    client.force_login(django_user_model.objects.create_user("bob", password="pw", is_staff=True))
    response = client.post(
        f"{API}/sessions/{built.session_id}/preferences", {"mode": "unattended"}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    changed = Event.objects.filter(kind=EventKind.PREFERENCES_CHANGED).values_list("actor", "door")
    assert set(changed) == {("bob", "api")}


def test_reads_record_nothing_and_leave_no_actor_behind(built):
    token = api_tokens.create("carol-ci", owner="carol")[1]
    client = Client(headers={"Authorization": f"Bearer {token}"})
    assert client.get(f"{API}/sessions").status_code == 200
    # The next dashboard request on the same thread is not carol's.
    Client().post(f"/runs/{built.plan_run}/cancel")
    assert canceled_by(built.plan_run) == ("", "dashboard")


def test_the_api_answers_say_who(client, django_user_model, service_catalog):
    """A staff login is one of the dashboard's people: it reads the whole store, and sees who did what."""
    from tests.support.team_session import team_sessions

    team = team_sessions()
    client.force_login(django_user_model.objects.create_user("dana", password="pw", is_staff=True))
    api = client
    listing = api.get(f"{API}/sessions").json()
    assert listing["hasOwners"] is True
    assert {item["sessionId"]: item["owner"] for item in listing["items"]} == {
        team.alice_session: "alice",
        team.local_session: "",
    }
    detail = api.get(f"{API}/sessions/{team.alice_session}").json()
    assert detail["people"] == ["alice", "bob"]
    run = api.get(f"{API}/runs/{team.local_run}").json()
    assert [(s["owner"], s["door"], s["by"]) for s in run["steps"]] == [("bob", "http", "by bob's agent (over HTTP)")]
    events = api.get(f"{API}/sessions/{team.local_session}/events").json()["items"]
    assert {(e["actor"], e["door"]) for e in events} == {("", ""), ("bob", "http")}


def test_an_owners_token_may_not_change_another_owners_session(service_catalog):
    """The API's writes refuse a session another owner started, as the MCP tools do; the dashboard's people
    still may (they see and manage the whole store)."""
    from tests.support.team_session import team_sessions

    team = team_sessions()
    carol = Client(headers={"Authorization": f"Bearer {api_tokens.create('carol-ci', owner='carol')[1]}"})
    before = Event.objects.count()
    refusals = [
        carol.post(f"{API}/runs/{team.alice_run}/cancel"),
        carol.post(
            f"{API}/sessions/{team.alice_session}/preferences", {"mode": "unattended"}, content_type="application/json"
        ),
        carol.post(
            f"{API}/nodes/{team.answered_node}/fork",
            {"context": {"goal": "Mine now"}, "reason": "take it over"},
            content_type="application/json",
        ),
    ]
    assert [(r.status_code, r.json()["error"]["code"]) for r in refusals] == [(403, "NOT_YOUR_SESSION")] * 3
    assert "alice" in refusals[0].json()["error"]["message"]
    assert Event.objects.count() == before  # nothing recorded
    alice = Client(headers={"Authorization": f"Bearer {api_tokens.create('alice-ci', owner='alice')[1]}"})
    assert alice.post(f"{API}/runs/{team.alice_run}/cancel").status_code == 200
    # An unowned (local) session stays usable by anyone on the store.
    assert carol.post(f"{API}/runs/{team.local_run}/cancel").status_code == 200


def test_an_owners_token_reads_only_its_own_and_unowned_sessions(service_catalog, caplog):
    """The API's reads ask the same owner check as its writes and the MCP tools: carol's token lists only the
    sessions she may use, and reading alice's session, its events, runs, nodes, report or bundle is refused
    (NOT_YOUR_SESSION), each refusal recorded for the operator with carol's token and address."""
    from tests.support.team_session import team_sessions

    team = team_sessions()
    carol = Client(headers={"Authorization": f"Bearer {api_tokens.create('carol-ci', owner='carol')[1]}"})
    listed = carol.get(f"{API}/sessions").json()
    assert [item["sessionId"] for item in listed["items"]] == [team.local_session]
    assert listed["total"] == 1
    reads = [
        f"{API}/sessions/{team.alice_session}",
        f"{API}/sessions/{team.alice_session}/events",
        f"{API}/sessions/{team.alice_session}/bundle",
        f"{API}/sessions/{team.alice_session}/report?format=md",
        f"{API}/runs/{team.alice_run}",
        f"{API}/runs/{team.alice_run}/graph",
        f"{API}/nodes/{team.answered_node}",
    ]
    for path in reads:
        response = carol.get(path)
        assert (response.status_code, response.json()["error"]["code"]) == (403, "NOT_YOUR_SESSION"), path
    refusals = [r.getMessage() for r in caplog.records if r.name == "workrail.refusals"]
    assert len(refusals) == len(reads)
    assert all("carol (token carol-ci) through api from 127.0.0.1" in line for line in refusals), refusals
    assert f"[GET {API}/runs/{team.alice_run}]" in refusals[4]
    assert carol.get(f"{API}/sessions/{team.local_session}").status_code == 200
    alice = Client(headers={"Authorization": f"Bearer {api_tokens.create('alice-ci', owner='alice')[1]}"})
    assert alice.get(f"{API}/sessions/{team.alice_session}/bundle").status_code == 200


def test_a_refused_api_request_is_recorded_for_the_operator(service_catalog, caplog):
    Client(headers={"Authorization": "Bearer not-a-token"}).get(f"{API}/sessions")
    Client().get(f"{API}/runs/run_1")
    refusals = [r.getMessage() for r in caplog.records if r.name == "workrail.refusals"]
    said = "refused UNAUTHENTICATED: a local process (token -) through api from 127.0.0.1: no valid token"
    assert refusals == [f"{said} [GET {API}/sessions]", f"{said} [GET {API}/runs/run_1]"]
