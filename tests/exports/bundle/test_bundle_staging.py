"""Importing a bundle in short transactions (exports/bundle/importing.py, runs/store/staged.py): agents write
between them, the session is shown nowhere until it is whole, and an import that fails or is killed
midway leaves nothing behind, or a staged session that cleanup removes. Small chunks (CHUNK_EVENTS)
make a small bundle take many transactions."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from typing import Any

import pytest
from django.apps import apps
from django.db import connection, connections
from django.utils import timezone

from exports.bundle import importing
from exports.bundles import export_session_bundle, import_session_bundle
from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Event, Node, PinnedWorkflow, Run, SearchEntry, Session
from runs.readmodels import overview, run_view
from runs.store import retention, staged, tokens
from runs.store.rebuild import rebuild_projections
from runs.store.tokens import TokenKind
from tests.exports.bundle.support import (
    declared_ids,
    empty_the_store,
    id_renaming,
    projections,
    session_with_everything,
)
from tests.support.mcp_calls import ack, continue_workflow, resume_session, start_workflow
from tests.support.sample_session import SESSION_KEY

pytestmark = pytest.mark.django_db
PLAN = "wr.routine-focused_plan"


@pytest.fixture
def exported(service_catalog: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A bundle of a session with forks, checkpoints and a gap, exported from a store that is then
    emptied (the import keeps its ids, as on another machine); imports of it take 5 events a transaction."""
    built = session_with_everything()
    data = export_session_bundle(built.session_id, via="command")
    document = json.loads(data)
    original = {"rows": projections(), "ids": declared_ids(Session.objects.get(public_id=built.session_id).pk)}
    empty_the_store()
    monkeypatch.setattr(importing, "CHUNK_EVENTS", 5)
    assert len(document["events"]) > 20, "enough events for many transactions"
    return {"data": data, "document": document, "built": built, "original": original}


def row_counts() -> dict[str, int]:
    """Every table's rows, staged ones included (the base manager hides nothing)."""
    return {model._meta.label: model._base_manager.count() for model in apps.get_models()}


@pytest.mark.django_db(transaction=True)
def test_an_agent_writes_from_another_connection_while_a_large_import_runs(exported: dict[str, Any]) -> None:
    agent = start_workflow(PLAN, context={"sessionKey": "AGENT-1"})
    order: list[str] = []
    between: list[tuple[bool, int, int]] = []  # (inside a transaction?, events written, events in all)
    failures: list[BaseException] = []

    def agent_advances() -> None:
        try:
            ack(agent)
            order.append("agent wrote")
        except BaseException as exc:
            failures.append(exc)
        finally:
            connections.close_all()

    def between_transactions(done: int, total: int) -> None:
        between.append((connection.in_atomic_block, done, total))
        if len(between) == 2:  # midway: another thread, on its own connection, writes and is done
            thread = threading.Thread(target=agent_advances)
            thread.start()
            thread.join(30)
            assert not thread.is_alive(), "the agent's write waited for the import"

    result = import_session_bundle(exported["data"], via="command", progress=between_transactions)
    order.append("import finished")

    assert not failures, failures
    assert order == ["agent wrote", "import finished"]
    total = len(exported["document"]["events"])
    assert len(between) >= total // 5 and all(not inside for inside, _, _ in between)
    assert between[1][1] < total  # the agent wrote when the import was partway
    assert Run.objects.get(public_id=agent["session"]["runId"]).node_count == 2
    assert result.kept_ids and Session.objects.get(public_id=exported["built"].session_id).importing is False


@pytest.mark.django_db(transaction=True)
def test_a_session_being_imported_is_shown_nowhere_until_it_is_whole(exported: dict[str, Any], settings: Any) -> None:
    settings.WORKRAIL_ENABLE_RESUME_SESSION = True
    built, document = exported["built"], exported["document"]
    node_id = next(e["data"]["nodeId"] for e in document["events"] if e["kind"] == "node_created")
    seen: list[dict[str, Any]] = []

    def look_around(done: int, total: int) -> None:
        if done < total and not seen:
            staged_row = Session.objects.get(importing=True)
            seen.append(
                {
                    "listed": overview.list_sessions().total,
                    "resumable": resume_session(query=SESSION_KEY)["candidates"],
                    "entries": SearchEntry.objects.count(),
                    "staged entries": SearchEntry.every_row.filter(session=staged_row).count(),
                    "by id": _refused(lambda: overview.get_session(built.session_id)),
                    "run": _refused(lambda: run_view.get_run(built.review_run)),
                    "node": _refused(lambda: run_view.get_node(node_id)),
                    "token": _refused(lambda: continue_workflow(stateToken=_state_token(node_id))),
                    "key": Session.objects.filter(session_key=SESSION_KEY).exists(),
                    "rebuilt": rebuild_projections()["sessions"],
                }
            )

    import_session_bundle(exported["data"], via="command", progress=look_around)

    [mid] = seen
    assert mid["staged entries"] > 0, "the import was partway, with rows written"
    assert (mid["listed"], mid["resumable"], mid["entries"], mid["key"], mid["rebuilt"]) == (0, [], 0, False, 0)
    assert mid["by id"] == mid["run"] == mid["node"] == ErrorCode.NOT_FOUND
    assert mid["token"] == ErrorCode.TOKEN_UNKNOWN
    # Once published: listed, resumable from its own tokens, found by its own ids and key.
    assert overview.list_sessions().total == 1
    assert {c["sessionId"] for c in resume_session(query=SESSION_KEY)["candidates"]} == {built.session_id}
    assert run_view.get_node(node_id).run.public_id == built.review_run
    assert Session.objects.get(session_key=SESSION_KEY).public_id == built.session_id


def _refused(call: Any) -> ErrorCode | None:
    try:
        call()
    except WorkRailError as exc:
        return exc.code
    return None


def _state_token(node_id: int) -> str:
    from django.conf import settings

    return tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, node_id)


def test_an_import_that_fails_at_its_last_check_leaves_no_session_and_no_rows(
    exported: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check after the replay (what the rows say against the bundle's session section) fails, as it
    would if the projector and the bundle's reader disagreed: everything written is removed again."""
    real_section = importing.session_section
    monkeypatch.setattr(importing, "session_section", lambda *args: {**real_section(*args), "status": "canceled"})
    before = row_counts()
    written: list[int] = []

    with pytest.raises(WorkRailError) as caught:
        import_session_bundle(exported["data"], via="command", progress=lambda done, total: written.append(done))

    assert caught.value.code == ErrorCode.BUNDLE_INVALID and "status" in caught.value.message
    assert len(written) > 10 and written[-1] == len(exported["document"]["events"]), "all written, in many transactions"
    assert row_counts() == before  # the staged session, its rows and the workflows it pinned are gone


def test_an_import_that_fails_midway_leaves_no_session_and_no_rows(exported: dict[str, Any]) -> None:
    before = row_counts()

    def fail_midway(done: int, total: int) -> None:
        if done >= 15:
            raise RuntimeError("the disk is full")

    with pytest.raises(RuntimeError, match="disk is full"):
        import_session_bundle(exported["data"], via="command", progress=fail_midway)

    assert row_counts() == before


def test_a_killed_import_leaves_a_staged_session_that_cleanup_removes(
    exported: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = row_counts()
    monkeypatch.setattr(staged, "discard", lambda *args, **kwargs: False)  # killed: nothing removes its rows

    def killed(done: int, total: int) -> None:
        if done >= 15:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_session_bundle(exported["data"], via="command", progress=killed)
    monkeypatch.undo()

    left = Session.objects.get()
    assert left.importing and left.public_id.startswith(staged.STAND_IN) and left.session_key is None
    assert Event.objects.filter(session=left).count() == 15 and Node.objects.filter(run__session=left).exists()
    assert overview.list_sessions().total == 0
    # A cleanup while the import could still be writing keeps it; one past ABANDONED_AFTER removes it.
    assert retention.cleanup().abandoned_imports == 0 and Session.objects.exists()
    later = timezone.now() + staged.ABANDONED_AFTER + timedelta(minutes=1)
    assert retention.cleanup(now=later, dry_run=True).abandoned_imports == 1
    result = retention.cleanup(now=later)
    assert result.abandoned_imports == 1 and "1 abandoned import" in result.summary()
    assert row_counts() == before  # its pinned workflows went too: no run uses them
    assert PinnedWorkflow.objects.count() == 0


def test_a_paused_import_whose_session_cleanup_removed_stops_and_leaves_nothing(exported: dict[str, Any]) -> None:
    before = row_counts()

    def paused_for_an_hour(done: int, total: int) -> None:
        if done == 10:
            staged.discard_abandoned(timezone.now() + timedelta(hours=1))

    with pytest.raises(WorkRailError) as caught:
        import_session_bundle(exported["data"], via="command", progress=paused_for_an_hour)

    assert caught.value.code == ErrorCode.STORE_BUSY and caught.value.details == {"abandoned": True}
    assert row_counts() == before


def test_a_run_started_with_the_session_key_meanwhile_makes_the_import_take_another(exported: dict[str, Any]) -> None:
    started: list[dict[str, Any]] = []

    def agent_starts_with_that_key(done: int, total: int) -> None:
        if not started:
            started.append(start_workflow(PLAN, context={"sessionKey": SESSION_KEY}))

    result = import_session_bundle(exported["data"], via="command", progress=agent_starts_with_that_key)

    [agent] = started
    assert Session.objects.get(session_key=SESSION_KEY).public_id == agent["session"]["sessionId"]
    assert result.session.session_key == f"{SESSION_KEY} (imported)" and result.kept_ids  # only the key was taken
    assert Session.objects.count() == 2 and not Session.objects.filter(importing=True).exists()
    assert Run.objects.filter(session=result.session).count() == 3


def test_a_many_transaction_import_gives_the_rows_of_the_original(exported: dict[str, Any]) -> None:
    """The replay carries over from one transaction to the next: the runs, the nodes and attempts it
    reads back, forks from older nodes, the search entries' text."""
    original = exported["original"]

    result = import_session_bundle(exported["data"], via="command")

    assert result.kept_ids
    assert projections(id_renaming(original["ids"], declared_ids(result.session.pk), {})) == original["rows"]


@pytest.mark.django_db(transaction=True)  # each slice of a removal commits: its links must hold at each commit
@pytest.mark.usefixtures("fanout")
def test_delegated_runs_import_in_many_transactions_and_go_again_when_an_import_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A delegation points at its parent run and at the node that handed it out, possibly written in an
    earlier transaction; removing a staged session lets go of those links first."""
    start = start_workflow("team.upgrade", {"moduleName": "billing"})
    parallel = ack(start)
    delegated = continue_workflow(stateToken=parallel["pending"]["delegations"][0]["stateToken"])
    while not delegated["isComplete"]:
        delegated = ack(delegated)
    session_id = start["session"]["sessionId"]
    data = export_session_bundle(session_id, via="command")
    original, ids = projections(), declared_ids(Session.objects.get(public_id=session_id).pk)
    empty_the_store()
    monkeypatch.setattr(importing, "CHUNK_EVENTS", 3)

    result = import_session_bundle(data, via="command")

    assert Run.objects.filter(session=result.session, parent_run__isnull=False).count() == 1
    assert projections(id_renaming(ids, declared_ids(result.session.pk), {})) == original
    before = row_counts()
    monkeypatch.setattr(staged, "ROWS_PER_DELETE", 2)  # links between slices: a node's to its newest child

    def fail_at_the_end(done: int, total: int) -> None:
        if done == total:
            raise RuntimeError("killed at the last moment")

    with pytest.raises(RuntimeError):
        import_session_bundle(data, via="command", as_copy=True, progress=fail_at_the_end)  # beside it: new ids
    assert row_counts() == before
