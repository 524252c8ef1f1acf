"""The dashboard's writes are recorded as made in the dashboard: by the logged-in user when there is one,
else by nobody in particular (the dashboard has no login of its own: it is the person at this machine)."""

from __future__ import annotations

import pytest

from runs.models import Event, EventKind

pytestmark = pytest.mark.django_db


def canceled_by(run_id: str) -> tuple[str, str]:
    event = Event.objects.filter(kind=EventKind.RUN_STATUS_CHANGED, data__runId=run_id, data__to="canceled").get()
    return event.actor, event.door


def test_a_write_in_the_unlocked_dashboard_is_the_dashboards_with_no_owner(client, built):
    assert client.post(f"/runs/{built.plan_run}/cancel").status_code == 302
    assert canceled_by(built.plan_run) == ("", "dashboard")


def test_a_logged_in_users_write_is_theirs(client, django_user_model, built):
    client.force_login(django_user_model.objects.create_user("bob", password="pw", is_staff=True))
    assert client.post(f"/sessions/{built.session_id}/preferences", {"mode": "unattended"}).status_code == 302
    changed = Event.objects.filter(kind=EventKind.PREFERENCES_CHANGED).values_list("actor", "door")
    assert set(changed) == {("bob", "dashboard")}
