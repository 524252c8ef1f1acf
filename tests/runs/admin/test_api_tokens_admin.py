"""API tokens in the admin: names and times, read-only, never a digest; one action revokes them."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from runs.models import ApiToken
from runs.store import api_tokens

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:runs_apitoken_changelist")


def change_url(token: ApiToken) -> str:
    return reverse("admin:runs_apitoken_change", args=[token.pk])


@pytest.fixture
def viewer_client(django_user_model: Any) -> Client:
    """A staff user who may look at tokens but not change them."""
    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_apitoken"))
    client = Client()
    client.force_login(viewer)
    return client


@pytest.fixture
def tokens() -> dict[str, str]:
    return {name: api_tokens.create(name)[1] for name in ("laptop", "ci", "old")}


def revoke(client: Client, *rows: ApiToken) -> Any:
    return client.post(
        CHANGELIST, {"action": "revoke_selected", "_selected_action": [row.pk for row in rows]}, follow=True
    )


def test_the_model_is_registered_and_anonymous_users_are_sent_to_log_in(client: Client) -> None:
    assert admin.site.is_registered(ApiToken)
    response = client.get(CHANGELIST)
    assert response.status_code == 302 and response["Location"].startswith(reverse("admin:login"))


def test_the_list_and_detail_show_names_and_times_but_never_a_digest(superuser_client, tokens) -> None:
    api_tokens.revoke("old")
    page = superuser_client.get(CHANGELIST).content.decode()
    for name in tokens:
        assert name in page
    assert "revoked" in page and "live" in page
    assert "Revoke selected tokens" in page
    assert "delete_selected" not in page
    for row in ApiToken.objects.all():
        assert row.digest not in page
        detail = superuser_client.get(change_url(row)).content.decode()
        assert row.name in detail
        assert row.digest not in detail and tokens[row.name] not in detail
        assert 'name="digest"' not in detail and "Digest" not in detail
        assert 'name="_save"' not in detail


def test_nothing_can_add_change_or_delete_a_token(superuser_client, tokens) -> None:
    row = ApiToken.objects.get(name="laptop")
    before = ApiToken.objects.filter(pk=row.pk).values().get()
    forged = {"name": "forged", "digest": "0" * 64, "created_at": "2030-01-01 00:00:00"}
    assert superuser_client.get(reverse("admin:runs_apitoken_add")).status_code == 403
    assert superuser_client.post(reverse("admin:runs_apitoken_add"), forged).status_code == 403
    assert superuser_client.post(change_url(row), forged).status_code == 403
    assert superuser_client.post(reverse("admin:runs_apitoken_delete", args=[row.pk]), {"post": "yes"}).status_code == (
        403
    )
    superuser_client.post(CHANGELIST, {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"})
    assert ApiToken.objects.filter(pk=row.pk).values().get() == before
    assert ApiToken.objects.count() == 3


def test_the_action_revokes_the_selected_tokens_and_keeps_their_rows(superuser_client, tokens) -> None:
    laptop, ci = ApiToken.objects.get(name="laptop"), ApiToken.objects.get(name="ci")
    api = {name: Client(headers={"Authorization": f"Bearer {token}"}) for name, token in tokens.items()}
    assert api["laptop"].get("/api/v1/sessions").status_code == 200

    response = revoke(superuser_client, laptop, ci)
    assert "Revoked 2 API token(s)." in response.content.decode()
    assert ApiToken.objects.count() == 3
    assert set(ApiToken.objects.filter(revoked_at__isnull=False).values_list("name", flat=True)) == {"laptop", "ci"}

    refused = api["laptop"].get("/api/v1/sessions")
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "UNAUTHENTICATED"
    assert "revoked" in refused.json()["error"]["message"]
    assert api["old"].get("/api/v1/sessions").status_code == 200

    first = ApiToken.objects.get(name="laptop").revoked_at
    again = revoke(superuser_client, laptop)
    assert "Revoked 0 API token(s) (1 were revoked already)." in again.content.decode()
    assert ApiToken.objects.get(name="laptop").revoked_at == first


def test_a_staff_user_who_may_only_view_sees_the_tokens_but_cannot_revoke(viewer_client, tokens) -> None:
    page = viewer_client.get(CHANGELIST)
    assert page.status_code == 200
    assert "laptop" in page.content.decode()
    assert 'value="revoke_selected"' not in page.content.decode()  # the action is not offered
    revoke(viewer_client, ApiToken.objects.get(name="laptop"))
    assert api_tokens.verify(tokens["laptop"]) == "laptop"


def section(index: str, app_label: str) -> str:
    """The index's table for the app `app_label`, as HTML."""
    return index.split(f'<div class="app-{app_label} module')[1].split("</table>")[0]


def test_the_index_lists_tokens_with_users_under_access_not_among_the_run_records(superuser_client, tokens) -> None:
    index = superuser_client.get(reverse("admin:index")).content.decode()
    access = section(index, "auth")
    assert ">Who can sign in<" in access  # the section in plain words (friction60b 11)
    assert ">API tokens</a>" in access and access.index(">Users</a>") < access.index(">API tokens</a>")
    assert ">API tokens</a>" not in section(index, "runs")
    # The access section's own page lists them too, the run records' page no longer.
    assert ">API tokens</a>" in superuser_client.get(reverse("admin:app_list", args=["auth"])).content.decode()
    assert ">API tokens</a>" not in superuser_client.get(reverse("admin:app_list", args=["runs"])).content.decode()


def test_a_viewer_without_the_access_section_still_finds_the_tokens(viewer_client, tokens) -> None:
    index = viewer_client.get(reverse("admin:index")).content.decode()
    assert "Authentication and Authorization" not in index
    assert ">API tokens</a>" in section(index, "runs")


def test_the_index_says_how_to_revoke_a_token_with_what_its_row_offers(superuser_client, tokens) -> None:
    # friction62a 12: "revoke one here" beside a row that offers only "View" read as false. Revoking is the list's
    # action: the index's line names it as the list does, and the list offers it.
    access = section(superuser_client.get(reverse("admin:index")).content.decode(), "auth")
    assert "revoke one here" not in access
    assert "to revoke one, tick it in the list, then “Revoke selected tokens”." in access
    assert "Revoke selected tokens" in superuser_client.get(CHANGELIST).content.decode()
