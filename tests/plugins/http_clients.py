"""Django test clients as the API's callers are: with a valid API token."""

from __future__ import annotations

import pytest
from django.test import Client

from runs.store import api_tokens


@pytest.fixture
def api_token(service_catalog: object) -> str:
    """A valid API token (the catalog pointed at empty temporary directories, as for every request)."""
    return api_tokens.create("tests")[1]


@pytest.fixture
def api(api_token: str) -> Client:
    """A client that sends a valid API token on every request."""
    return Client(headers={"Authorization": f"Bearer {api_token}"})


@pytest.fixture
def bearer(api_token: str) -> dict[str, str]:
    """The Authorization header of a valid API token, as extra arguments of client.get()."""
    return {"HTTP_AUTHORIZATION": f"Bearer {api_token}"}
