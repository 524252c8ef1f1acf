"""How many requests this process's live server is answering: a browser test's teardown waits until none is.

A page a test leaves can have a request in flight (live.js fetching the page again, a report being made):
closing the browser does not stop the server's thread answering it, and the database's flush after a
transactional test then meets a table that thread still reads ("database table is locked" on SQLite), which
failed a CI run. The middleware (tests/settings.py, outermost) counts; `wait_idle` waits for zero."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

_idle = threading.Condition()
_answering = 0


class InFlight:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        global _answering
        with _idle:
            _answering += 1
        try:
            return self.get_response(request)
        finally:
            with _idle:
                _answering -= 1
                _idle.notify_all()


def wait_idle(timeout: float) -> bool:
    """True once no request is being answered; False if one still is after `timeout` seconds."""
    with _idle:
        return _idle.wait_for(lambda: _answering == 0, timeout)
