"""The admin shows who: each event's actor and door, each session's owner, each API token's owner."""

from __future__ import annotations

import pytest
from django.urls import reverse

from runs.store import api_tokens
from tests.support.team_session import team_sessions

pytestmark = pytest.mark.django_db


def test_events_sessions_and_tokens_show_their_owners(admin_client, service_catalog):
    team = team_sessions()
    api_tokens.create("alice-laptop", owner="alice")
    events = admin_client.get(reverse("admin:runs_event_changelist"), {"q": "alice"}).content.decode()
    assert "column-actor" in events and "column-door" in events
    assert '<td class="field-actor">alice</td>' in events and '<td class="field-door">http</td>' in events
    assert "?door=http" in events  # the door filter
    sessions = admin_client.get(reverse("admin:runs_session_changelist")).content.decode()
    assert "column-owner" in sessions and '<td class="field-owner">alice</td>' in sessions
    assert team.alice_session in sessions
    tokens = admin_client.get(reverse("admin:runs_apitoken_changelist")).content.decode()
    assert '<td class="field-owner">alice</td>' in tokens
