"""The browser tests' teardown waits for the live server's requests (tests/support/in_flight.py): a request
still being answered holds the wait; once it is answered, the wait returns at once."""

from __future__ import annotations

import threading

from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from tests.support import in_flight


def test_waiting_for_idle_holds_while_a_request_is_answered():
    release, entered = threading.Event(), threading.Event()

    def slow(request: HttpRequest) -> HttpResponse:
        entered.set()
        release.wait(10)
        return HttpResponse("ok")

    middleware = in_flight.InFlight(slow)
    answering = threading.Thread(target=middleware, args=(RequestFactory().get("/"),))
    answering.start()
    assert entered.wait(10)
    assert in_flight.wait_idle(0.05) is False  # still answering
    release.set()
    answering.join(10)
    assert in_flight.wait_idle(5) is True


def test_the_test_settings_count_every_request_first():
    from django.conf import settings

    assert settings.MIDDLEWARE[0] == "tests.support.in_flight.InFlight"
