from __future__ import annotations

from typing import Any

import pytest
from django.test import Client


@pytest.fixture
def superuser_client(client: Client, django_user_model: Any) -> Client:
    """The test client logged in as a superuser."""
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw"))
    return client
