"""The pages say who did what on a shared store, in plain words; a store where nobody has an owner looks as
it did (no Owner column, nothing added to the steps)."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from tests.support.mcp_calls import ack, start_workflow
from tests.support.team_session import team_sessions

pytestmark = pytest.mark.django_db


def text(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


def test_the_pages_say_who_did_what(client, service_catalog):
    team = team_sessions()
    listing = text(client, "/sessions/")
    assert " Owner " in listing and " alice " in listing
    session = text(client, f"/sessions/{team.alice_session}/")
    assert "started by alice" in session
    assert "people: alice, bob" in session
    assert "Started by bob (dashboard)." in session  # the fork note on the run shown
    assert "by alice's agent (over HTTP)" in session
    node = text(client, f"/nodes/{team.answered_node}/")
    assert "by alice (HTTP API)" in node  # the checkpoint recorded there
    fork = text(client, f"/nodes/{team.fork_node}/")
    assert "by bob (dashboard)" in fork
    local = text(client, f"/runs/{team.local_run}/")
    assert "by bob's agent (over HTTP)" in local and "started by" not in local


def test_canceling_in_the_dashboard_says_who(client, django_user_model, service_catalog):
    team = team_sessions()
    client.force_login(django_user_model.objects.create_user("carol", password="pw", is_staff=True))
    client.post(f"/runs/{team.alice_run}/cancel")
    # Said once, in the run card's status line, in sight without opening "Why".
    said = text(client, f"/runs/{team.alice_run}/")
    assert "canceled by carol (dashboard) " in said and said.count("by carol") == 1, said


def test_a_store_without_owners_shows_no_owners(client, service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    ack(start)
    listing = text(client, "/sessions/")
    assert " Owner " not in listing
    run = text(client, f"/runs/{start['session']['runId']}/")
    assert "people:" not in run and "started by" not in run
