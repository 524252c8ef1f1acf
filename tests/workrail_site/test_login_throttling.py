"""Admin login throttling: a few failed attempts for a username, then that username waits."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"


def attempt(password: str, username: str = "admin") -> int:
    client = Client()
    return client.post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}, HTTP_HOST="127.0.0.1"
    ).status_code


def test_five_failed_logins_then_even_the_right_password_waits(settings):
    get_user_model().objects.create_superuser("admin", "admin@example.com", PASSWORD)
    assert [attempt("wrong") for _ in range(4)] == [200] * 4  # the form again, with an error
    assert attempt("wrong") == 429  # the fifth failure locks the username
    response = Client().post("/admin/login/", {"username": "admin", "password": PASSWORD})
    assert response.status_code == 429
    assert b"Too many failed logins" in response.content and b"changepassword" in response.content
    assert attempt(PASSWORD, username="someone-else") == 200  # other usernames are not locked


def test_the_lock_lifts_after_the_cooloff_and_a_success_resets_the_count(settings):
    from axes.models import AccessAttempt

    get_user_model().objects.create_superuser("admin", "admin@example.com", PASSWORD)
    for _ in range(5):
        attempt("wrong")
    assert attempt(PASSWORD) == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))
    assert attempt(PASSWORD) == 302  # logged in: redirected to the admin
    assert attempt("wrong") == 200  # a success reset the count: one failure does not lock again
    assert AccessAttempt.objects.filter(username="admin").count() <= 1
