"""A path holding U+0000 names nothing: 404 on every backend (PostgreSQL refuses NUL in text, so
without workrail_site.middleware an id lookup there failed with a 500 where SQLite answered 404)."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db
API = "/api/v1"


@pytest.fixture
def api(api_token: str) -> Client:
    """An API client that answers a view's exception as the server would (a 500), not by raising it."""
    return Client(raise_request_exception=False, headers={"Authorization": f"Bearer {api_token}"})


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/sessions/ses_%00x"),
        ("get", "/sessions/ses_%00x/events"),
        ("post", "/sessions/ses_%00x/preferences"),
        ("get", "/runs/run_%00x"),
        ("get", "/runs/run_%00x/graph"),
        ("post", "/runs/run_%00x/cancel"),
        ("get", "/nodes/%00"),
        ("get", "/workflows/wr.%00"),
    ],
)
def test_the_api_answers_not_found_for_a_nul_in_the_path(api, built, method, path):
    response = getattr(api, method)(f"{API}{path}", {}, content_type="application/json")
    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize(
    "path",
    ["/sessions/ses_%00x/", "/runs/run_%00x/", "/nodes/%00/", "/workflows/wr.%00/", "/live/sessions/ses_%00x"],
)
def test_a_dashboard_page_with_a_nul_in_the_path_is_not_found(admin_client, built, path):
    admin_client.raise_request_exception = False
    response = admin_client.get(path)
    assert response.status_code == 404
    assert response["X-Frame-Options"] == "DENY"  # the header middlewares still ran


def test_a_nul_in_a_cancel_action_path_is_not_found(admin_client, built):
    admin_client.raise_request_exception = False
    assert admin_client.post("/runs/run_%00x/cancel").status_code == 404
