"""Retention: `manage.py cleanup` deletes whole sessions with no activity past the cutoff and the pinned
workflows no run uses, and never a session with activity inside the window, even one written to while
the cleanup runs. Sessions are built through the services; time moves by ageing Session.updated_at."""

from __future__ import annotations

import logging
import subprocess
from dataclasses import dataclass
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import connection, models
from django.test import override_settings
from django.utils import timezone

from harness.projections import snapshot
from runs.models import (
    AppendOnlyError,
    Checkpoint,
    Event,
    Gap,
    Node,
    Observation,
    PinnedWorkflow,
    RateBucket,
    Run,
    RunSynthesis,
    Session,
)
from runs.store import retention
from runs.store.rebuild import rebuild_projections
from tests.support.mcp_calls import ack, checkpoint_workflow, continue_workflow, start_session, start_workflow
from tests.support.sample_session import SESSION_KEY, two_runs_one_forked_twice

pytestmark = pytest.mark.django_db

PLAN = "wr.routine-focused_plan"  # three steps: finishing it gives a synthesis
REVIEW = "wr.risk_scaled_mr_review"
BUG = "wr.evidence_first_bug_fix"
CODE_REVIEW = "wr.code_review"
LONG_AGO = 90  # days: past the default retention of 60


def age(public_id: str, days: int) -> None:
    """Moves a session's last activity `days` into the past, as if nothing had happened since."""
    Session.objects.filter(public_id=public_id).update(updated_at=timezone.now() - timedelta(days=days))


def finished_plan(session_key: str) -> dict[str, Any]:
    answer = start_workflow(PLAN, context={"sessionKey": session_key})
    while answer["kind"] != "complete":
        answer = ack(answer)
    return answer


def events_of(public_ids: list[str]) -> list[tuple[Any, ...]]:
    rows = Event.objects.filter(session__public_id__in=public_ids).select_related("session")
    return sorted((e.session.public_id, e.seq, e.kind, repr(e.data), e.created_at) for e in rows)


def row_counts() -> dict[str, int]:
    return {model._meta.label: model._default_manager.count() for model in apps.get_models()}


def run_cleanup(*args: str) -> str:
    out = StringIO()
    call_command("cleanup", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


@dataclass
class Store:
    kept: str  # the session inside the window
    expired: list[str]
    kept_snapshot: dict[str, Any]  # every projection row, taken when only the kept session existed
    kept_events: list[tuple[Any, ...]]
    kept_hashes: set[str]  # the pinned workflows the kept session's runs use
    kept_buckets: set[str]  # the write-rate buckets of the kept session's runs
    expired_run_ids: list[str]


@pytest.fixture
def git_project(tmp_path: Path, settings: Any) -> Path:
    """A git repository as the project, so runs record observations (branch and HEAD)."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    env |= {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "one"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, env=env)
    settings.WORKRAIL_PROJECT_DIR = tmp_path
    return tmp_path


@pytest.fixture
def store(service_catalog: Any, git_project: Path, settings: Any) -> Store:
    """One session inside the window (a finished plan, a bug investigation, a code review) and two past it: a review
    forked twice with a checkpoint, a gap, a finished plan (its pinned workflow shared with the kept
    session), and a notes-only session with checkpoints. Plus a pinned workflow left unused from before."""
    settings.WORKRAIL_ENABLE_START_SESSION = True
    kept = finished_plan("KEPT-1")
    start_workflow(BUG, context={"sessionKey": "KEPT-1"})
    start_workflow(CODE_REVIEW, context={"sessionKey": "KEPT-1"})
    kept_id = kept["session"]["sessionId"]
    kept_snapshot, kept_events = snapshot(), events_of([kept_id])
    kept_hashes = set(Run.objects.values_list("pinned_id", flat=True))
    kept_buckets = set(RateBucket.objects.filter(key__startswith="run:").values_list("key", flat=True))

    reviewed = two_runs_one_forked_twice()
    unattended = start_workflow(REVIEW, context={"sessionKey": SESSION_KEY, "reviewAreas": ["api"]}, mode="unattended")
    ack(unattended)  # past a user-only dependency: a gap
    finished_plan(SESSION_KEY)
    notes = start_session(title="Caching spike", sessionKey="cache-spike")
    for text in ("LRU beats TTL.", "Measured: 3x fewer misses."):
        checkpoint_workflow(sessionToken=notes["sessionToken"], output={"notesMarkdown": text})
    PinnedWorkflow.objects.create(
        workflow_hash="sha256:" + "0" * 64, workflow_id="project.gone", compiled={}, created_at=timezone.now()
    )
    expired = [reviewed.session_id, notes["session"]["sessionId"]]
    for public_id in expired:
        age(public_id, LONG_AGO)
    expired_runs = list(Run.objects.filter(session__public_id__in=expired).values_list("public_id", flat=True))
    return Store(kept_id, expired, kept_snapshot, kept_events, kept_hashes, kept_buckets, expired_runs)


def test_it_deletes_exactly_the_expired_sessions_with_everything_under_them(store: Store) -> None:
    # The expired sessions hold a row in every table a session has, so each has to go.
    under_expired = {"session__public_id__in": store.expired}
    through_run = {"run__session__public_id__in": store.expired}
    assert Checkpoint.objects.filter(**under_expired, node__isnull=True).count() == 2
    assert Checkpoint.objects.filter(**under_expired, node__isnull=False).exists()
    assert Observation.objects.filter(**under_expired).exists()
    assert Gap.objects.filter(**through_run).exists()
    assert RunSynthesis.objects.filter(**through_run).exists()
    assert Node.objects.filter(**through_run).values("run").distinct().count() == 4
    assert RateBucket.objects.filter(key=f"session:{store.expired[1]}").exists()

    run_cleanup()

    assert list(Session.objects.values_list("public_id", flat=True)) == [store.kept]
    assert snapshot() == store.kept_snapshot  # the kept session's projections, row for row
    assert events_of([store.kept]) == store.kept_events
    assert Event.objects.count() == len(store.kept_events)
    expired_buckets = [f"run:{run_id}" for run_id in store.expired_run_ids]
    expired_buckets += [f"session:{public_id}" for public_id in store.expired]
    assert not RateBucket.objects.filter(key__in=expired_buckets).exists()
    assert store.kept_buckets
    assert set(RateBucket.objects.filter(key__startswith="run:").values_list("key", flat=True)) == store.kept_buckets


def test_it_deletes_the_rate_buckets_of_many_runs_a_few_keys_at_a_time(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(retention, "KEYS_PER_DELETE", 1)
    expired = [f"run:{run_id}" for run_id in store.expired_run_ids] + [f"session:{store.expired[1]}"]
    assert RateBucket.objects.filter(key__in=expired).count() >= 3

    result = retention.cleanup()

    assert not RateBucket.objects.filter(key__in=expired).exists()
    assert result.extra["runs_ratebucket"] >= 3
    assert set(RateBucket.objects.filter(key__startswith="run:").values_list("key", flat=True)) == store.kept_buckets


def test_it_deletes_the_pinned_workflows_no_run_uses_and_keeps_those_a_kept_run_uses(store: Store) -> None:
    plan_hash = Run.objects.get(session__public_id=store.kept, workflow_id=PLAN).pinned_id
    assert Run.objects.filter(session__public_id__in=store.expired, pinned_id=plan_hash).exists()  # shared
    assert PinnedWorkflow.objects.count() == len(store.kept_hashes) + 2  # the review's and the old one

    run_cleanup()

    assert set(PinnedWorkflow.objects.values_list("pk", flat=True)) == store.kept_hashes
    assert plan_hash in store.kept_hashes


def test_it_deletes_nothing_on_a_dry_run_and_reports_what_a_cleanup_then_deletes(store: Store) -> None:
    before = row_counts()
    out = run_cleanup("--dry-run")
    assert row_counts() == before
    would = retention.cleanup(dry_run=True)
    assert "Dry run, nothing deleted." in out
    assert retention.format_cutoff(would.cutoff) in out
    assert f"{'sessions':<30}{2:>10,}" in out
    assert f"{'pinned workflows no run uses':<30}{2:>10,}" in out

    done = retention.cleanup()
    counts = ("sessions", "runs", "events", "pinned_workflows")
    assert [getattr(would, name) for name in counts] == [getattr(done, name) for name in counts]
    assert (done.sessions, done.runs, done.pinned_workflows) == (2, 4, 2)
    assert done.events == before["runs.Event"] - len(store.kept_events)


def test_it_keeps_a_session_written_to_during_the_cleanup(service_catalog: Any) -> None:
    answers = [start_workflow(PLAN, context={"sessionKey": f"old-{index}"}) for index in range(3)]
    ids = [answer["session"]["sessionId"] for answer in answers]
    for public_id in ids:
        age(public_id, LONG_AGO)

    def agent_writes_meanwhile(done: int, total: int) -> None:
        if done == 0:  # the sessions are chosen, none deleted yet: an agent records a checkpoint on one
            checkpoint_workflow(stateToken=answers[1]["stateToken"], output={"notesMarkdown": "Still on it."})

    result = retention.cleanup(progress=agent_writes_meanwhile)

    assert list(Session.objects.values_list("public_id", flat=True)) == [ids[1]]
    assert (result.sessions, result.kept_meanwhile) == (2, 1)
    survivor = Run.objects.get(session__public_id=ids[1])
    assert survivor.nodes.count() == 2  # its root and the checkpoint's node
    assert PinnedWorkflow.objects.filter(pk=survivor.pinned_id).exists()
    continue_workflow(stateToken=answers[1]["stateToken"])  # and it goes on


@pytest.mark.django_db(transaction=True)
def test_it_holds_the_write_lock_for_one_batch_at_a_time(service_catalog: Any) -> None:
    for index in range(5):
        age(start_workflow(PLAN, context={"sessionKey": f"old-{index}"})["session"]["sessionId"], LONG_AGO)
    seen: list[tuple[int, int, bool]] = []

    retention.cleanup(batch_size=2, progress=lambda done, total: seen.append((done, total, connection.in_atomic_block)))

    assert seen == [(0, 5, False), (2, 5, False), (4, 5, False), (5, 5, False)]
    assert not Session.objects.exists()


@pytest.mark.parametrize(
    ("setting", "option", "left"),
    [
        (None, [], [10, 40]),  # the default retention: 60 days
        (30, [], [10]),  # WORKRAIL_RETENTION_DAYS
        (30, ["--older-than", "50"], [10, 40]),  # --older-than wins over the setting
        (None, ["--older-than", "5"], []),
    ],
)
def test_it_takes_the_retention_from_the_setting_or_older_than(
    service_catalog: Any, setting: int | None, option: list[str], left: list[int]
) -> None:
    by_age = {}
    for days in (10, 40, 100):
        by_age[days] = start_workflow(PLAN, context={"sessionKey": f"aged-{days}"})["session"]["sessionId"]
        age(by_age[days], days)
    with override_settings(**({} if setting is None else {"WORKRAIL_RETENTION_DAYS": setting})):
        out = run_cleanup(*option)
    assert set(Session.objects.values_list("public_id", flat=True)) == {by_age[days] for days in left}
    expected_days = int(option[1]) if option else (setting or 60)
    assert f"(retention {expected_days} days)" in out


@pytest.mark.parametrize("value", ["0", "-3", "abc", "1.5", "40000", ""])
def test_it_refuses_an_older_than_that_is_not_a_positive_number_of_days(value: str) -> None:
    with pytest.raises(CommandError, match="--older-than: expected"):
        run_cleanup("--older-than", value)


def test_it_writes_one_summary_line_to_the_log_per_cleanup(store: Store, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="workrail.cleanup"):
        run_cleanup("--dry-run")
        run_cleanup()
    lines = [record.getMessage() for record in caplog.records if record.name == "workrail.cleanup"]
    assert len(lines) == 2
    dry, real = lines
    assert dry.startswith("cleanup (dry run): would delete 2 sessions (4 runs, ")
    assert real.startswith("cleanup: deleted 2 sessions (4 runs, ")
    assert "and 2 pinned workflows; no activity since " in real
    assert "(retention 60 days); in " in real


def test_it_leaves_a_store_that_rebuilds_to_the_same_projections(store: Store) -> None:
    run_cleanup()
    rebuild_projections()
    assert snapshot() == store.kept_snapshot


def test_it_lets_a_workflow_whose_pinned_snapshot_it_deleted_start_again(store: Store) -> None:
    review_hash = Run.objects.filter(workflow_id=REVIEW).values_list("pinned_id", flat=True).distinct().get()
    assert review_hash not in store.kept_hashes
    run_cleanup()
    assert not PinnedWorkflow.objects.filter(pk=review_hash).exists()

    again = start_workflow(REVIEW, context={"changeRef": "MR !43", "reviewAreas": ["api"]})

    assert again["workflow"]["workflowHash"] == review_hash
    assert PinnedWorkflow.objects.filter(pk=review_hash).exists()  # pinned again
    assert ack(again)["kind"] in {"step", "blocked"}


def test_it_keeps_refusing_to_delete_events_any_other_way(store: Store) -> None:
    run_cleanup()
    with pytest.raises(AppendOnlyError):
        Event.objects.filter(session__public_id=store.kept).delete()
    with pytest.raises(AppendOnlyError):
        Event.objects.first().delete()  # type: ignore[union-attr]


def test_its_deletion_order_covers_every_table_below_a_session() -> None:
    """A model pointing at a session, run, node or attempt must be deleted with them: add it to
    retention.DELETION_ORDER (children first), or the cleanup would leave it dangling."""
    covered = {model for model, _ in retention.DELETION_ORDER}
    below: set[type[models.Model]] = set()
    pending: list[type[models.Model]] = [Session]
    while pending:
        for relation in pending.pop()._meta.related_objects:
            child = relation.related_model
            if isinstance(child, type) and child not in below:
                below.add(child)
                pending.append(child)
    assert below <= covered, f"not deleted by the cleanup: {below - covered}"
