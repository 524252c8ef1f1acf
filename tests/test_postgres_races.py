"""Two identical writes that meet on PostgreSQL, made to collide on purpose: a third transaction holds
the lock they will wait on, both are started, then it lets go. Each must find what the other recorded
(one checkpoint, one notes session), as they would one after the other. On SQLite an IMMEDIATE transaction
holds the whole store's write lock from its start, so the same calls cannot interleave there at all."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction

from runs import ratelimit
from runs.models import Checkpoint, RateBucket, Session
from tests.calls import checkpoint_workflow, start_session, start_workflow

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: SQLite serializes whole writes"),
]
WAIT = 0.5  # long enough for both calls to reach the lock they wait on


def collide(hold: Callable[[], None], call: Callable[[], dict[str, Any]]) -> list[dict[str, Any]]:
    """`call` twice in threads while another thread's transaction holds what `hold` locks."""
    from django.db import connections

    held, release = threading.Event(), threading.Event()
    answers: list[dict[str, Any]] = []
    failures: list[BaseException] = []

    def holder() -> None:
        try:
            with transaction.atomic():
                hold()
                held.set()
                release.wait(10)
        finally:
            connections.close_all()

    def caller() -> None:
        try:
            answers.append(call())
        except BaseException as exc:
            failures.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=holder)]
    threads[0].start()
    assert held.wait(10)
    threads += [threading.Thread(target=caller) for _ in range(2)]
    for thread in threads[1:]:
        thread.start()
    time.sleep(WAIT)
    release.set()
    for thread in threads:
        thread.join(30)
    assert not failures, failures
    return answers


def test_the_same_checkpoint_twice_at_once_is_recorded_once(service_catalog):
    start = start_workflow("wr.bug_investigation")
    session = Session.objects.get()

    answers = collide(
        lambda: list(Session.objects.select_for_update().filter(pk=session.pk)),
        lambda: checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": "Same progress."}),
    )

    assert answers[0] == answers[1]
    assert Checkpoint.objects.count() == 1


def test_two_notes_sessions_started_at_once_with_one_new_key_are_one_session(service_catalog, settings):
    settings.WORKRAIL_ENABLE_START_SESSION = True
    start_session(sessionKey="warm-up")  # the shared bucket of starts exists
    bucket = ratelimit.STARTS

    answers = collide(
        lambda: list(RateBucket.objects.select_for_update().filter(key=bucket)),
        lambda: start_session(sessionKey="team-notes"),
    )

    assert answers[0]["session"]["sessionId"] == answers[1]["session"]["sessionId"]
    assert sorted(answer["joined"] for answer in answers) == [False, True]
    assert Session.objects.filter(session_key="team-notes").count() == 1
