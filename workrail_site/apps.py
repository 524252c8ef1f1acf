"""Third-party apps under the names the admin shows people."""

from __future__ import annotations

from axes.apps import AppConfig as AxesAppConfig


class LoginThrottleConfig(AxesAppConfig):
    """django-axes (admin login throttling): its section of the admin index says what it keeps, not "Axes"."""

    verbose_name = "Admin sign-in attempts"
