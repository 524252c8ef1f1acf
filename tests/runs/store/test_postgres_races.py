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
from django.utils import timezone

from runs.contract.dashboard import PreferencesChange
from runs.execution import session_actions
from runs.models import Checkpoint, Event, EventKind, PinnedWorkflow, RateBucket, Run, Session
from runs.store import ratelimit
from runs.store.pinned import pin
from runs.store.retention import delete_unused_pinned_workflows
from tests.support.mcp_calls import checkpoint_workflow, start_session, start_workflow

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
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
    start = start_workflow("wr.evidence_first_bug_fix")
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


def test_a_run_started_while_cleanup_deletes_its_pinned_workflow_pins_it_again(service_catalog):
    """The cleanup locked the unused snapshot and deletes it; the start that read it meanwhile waits,
    then stores it again, instead of failing at commit on the run's foreign key."""
    start_workflow("wr.evidence_first_bug_fix")
    pinned_hash = Run.objects.get().pinned_id
    Run.objects.all().delete()  # the snapshot is unused now: a cleanup would delete it

    def cleanup_in_progress() -> None:
        list(PinnedWorkflow.objects.select_for_update().filter(pk=pinned_hash))
        PinnedWorkflow.objects.filter(pk=pinned_hash).delete()

    answers = collide(cleanup_in_progress, lambda: start_workflow("wr.evidence_first_bug_fix"))

    assert [answer["kind"] for answer in answers] == ["step", "step"]
    assert Run.objects.filter(pinned_id=pinned_hash).count() == 2
    assert PinnedWorkflow.objects.filter(pk=pinned_hash).exists()


def test_cleanup_skips_a_snapshot_a_starting_run_holds_and_deletes_it_once_unused(service_catalog):
    start_workflow("wr.evidence_first_bug_fix")
    pinned_hash = Run.objects.get().pinned_id
    Run.objects.all().delete()
    holding, release = threading.Event(), threading.Event()

    def starting_run() -> None:  # pinned, its run not yet committed
        from django.db import connections

        try:
            with transaction.atomic():
                pin(pinned_hash, "wr.evidence_first_bug_fix", {}, timezone.now())
                holding.set()
                release.wait(10)
        finally:
            connections.close_all()

    thread = threading.Thread(target=starting_run)
    thread.start()
    assert holding.wait(10)
    try:
        assert delete_unused_pinned_workflows() == 0  # skipped, not waited for:
        assert thread.is_alive()  # the row it skipped is still locked by the run being started
    finally:
        release.set()
        thread.join(30)
    assert delete_unused_pinned_workflows() == 1
    assert not PinnedWorkflow.objects.filter(pk=pinned_hash).exists()


def test_the_same_preferences_change_twice_at_once_is_recorded_once(service_catalog):
    """Both read the session before the journal locked its row; the second must see the first's change
    (and record nothing), not record a second change from a stale baseline."""
    start = start_workflow("wr.evidence_first_bug_fix")
    session = Session.objects.get()
    # The start may record one already: the run follows the workflow's recommended risk policy.
    before = Event.objects.filter(session=session, kind=EventKind.PREFERENCES_CHANGED).count()

    collide(
        lambda: list(Session.objects.select_for_update().filter(pk=session.pk)),
        lambda: session_actions.change_preferences(
            start["session"]["sessionId"], PreferencesChange(mode="unattended")
        ).model_dump(),
    )

    changes = Event.objects.filter(session=session, kind=EventKind.PREFERENCES_CHANGED)
    baseline_changes = [event for event in changes if event.data.get("nodeId") is None]
    assert len(baseline_changes) == 1
    assert len(changes) - before == 2  # the baseline and the run's open tip, once each
