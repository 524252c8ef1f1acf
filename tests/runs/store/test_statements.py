"""runs/store/statements.py: statements compiled once, then only executed, on the continue_workflow hot path.

They must write and read exactly what the ORM would, and an advance must not compile SQL at all once
its statements are warm (that compiling was ~40% of an advance's time)."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import Q
from django.db.models.sql import compiler as sql_compiler
from django.test.utils import CaptureQueriesContext

from runs.models import Attempt, Node, PinnedWorkflow, Run, SearchEntry
from runs.store import statements
from runs.store.journal import new_session, random_id
from runs.store.projections import SEARCH_NOTES_CHARS, _append_notes
from runs.store.statements import Select, SelectOne
from tests.support.mcp_calls import ack, start_workflow
from tests.support.workflow_files import workflow_doc, write_json

pytestmark = pytest.mark.django_db

AT = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


@pytest.fixture
def run() -> Run:
    session = new_session(AT)
    pinned = PinnedWorkflow.objects.create(
        workflow_hash="sha256:" + "0" * 64, workflow_id="w", compiled={}, created_at=AT
    )
    return Run.objects.create(
        public_id="run_0000000000000001", session=session, workflow_id="w", pinned=pinned, created_at=AT, updated_at=AT
    )


def node_for(run: Run, parent: Node | None = None, **changes: Any) -> Node:
    values: dict[str, Any] = {
        "public_id": random_id(),
        "run": run,
        "parent": parent,
        "depth": 0 if parent is None else parent.depth + 1,
        "engine_state": {"context": {"ünïcode": "✓", "n": [1, 2.5, None]}},
        "preferences": {"autonomy": "guided"},
        "pending_step_id": "one",
        "created_at": AT,
    }
    return Node(**{**values, **changes})


def stored(model: Any, pk: int) -> dict[str, Any]:
    row = model.objects.filter(pk=pk).values().get()
    row.pop("id")
    row.pop("public_id", None)
    return row


def test_an_inserted_row_is_stored_exactly_as_save_stores_it_and_gets_its_key(run):
    by_orm = node_for(run)
    by_orm.save(force_insert=True)
    by_statement = node_for(run, parent=by_orm, depth=0)
    by_statement.parent = None
    statements.insert(by_statement)
    assert by_statement.pk is not None and by_statement.pk != by_orm.pk
    assert not by_statement._state.adding
    assert stored(Node, by_statement.pk) == stored(Node, by_orm.pk)
    assert Node.objects.get(pk=by_statement.pk).engine_state == by_orm.engine_state


def test_a_row_pointing_at_a_row_saved_after_it_was_made_stores_that_rows_key(run):
    parent = node_for(run)
    child = node_for(run, parent=parent)  # the parent had no key yet when the child was made
    statements.insert(parent)
    statements.insert(child)
    assert Node.objects.get(pk=child.pk).parent_id == parent.pk


def test_an_update_changes_only_the_named_columns(run):
    node = node_for(run)
    node.save(force_insert=True)
    other = node_for(run)
    other.save(force_insert=True)
    before = stored(Node, node.pk)
    statements.update(Node, node.pk, latest_child_id=other.pk, preferences={"autonomy": "full_auto_never_stop"})
    after = stored(Node, node.pk)
    assert after == {**before, "latest_child_id": other.pk, "preferences": {"autonomy": "full_auto_never_stop"}}
    assert stored(Node, other.pk)["latest_child_id"] is None


def test_an_update_with_an_expression_appends_and_keeps_the_newest_characters(run):
    entry = SearchEntry.objects.create(session=run.session, run=run, updated_at=AT, notes_text="old")
    own = SearchEntry.objects.create(session=run.session, run=None, updated_at=AT, notes_text="session's")
    later = datetime(2026, 2, 1, tzinfo=UTC)
    appended = {"notes_text": (_append_notes, " new")}
    statements.update_where(SearchEntry, {"run_id": run.pk}, {"updated_at": later, "git_branch": "main"}, appended)
    entry.refresh_from_db()
    own.refresh_from_db()
    assert (entry.notes_text, entry.updated_at, entry.git_branch) == ("old new", later, "main")
    assert (own.notes_text, own.updated_at) == ("session's", AT)  # another row: untouched
    statements.update_where(
        SearchEntry,
        {"session_id": run.session.pk, "run__isnull": True},
        {"updated_at": later},
        {"notes_text": (_append_notes, "x" * (SEARCH_NOTES_CHARS + 10))},
    )
    own.refresh_from_db()
    entry.refresh_from_db()
    assert own.notes_text == "x" * SEARCH_NOTES_CHARS
    assert entry.notes_text == "old new"


def test_a_compiled_query_builds_the_same_objects_as_the_queryset_in_one_query(run):
    node = node_for(run)
    node.save(force_insert=True)
    attempt = Attempt.objects.create(public_id=random_id(), node=node, created_at=AT)
    lookup = SelectOne(
        lambda value: Attempt.objects.select_related("node__run__session", "ack").filter(public_id=value)
    )
    lookup.get(random_id())  # compiles
    with CaptureQueriesContext(connection) as queries:
        found = lookup.get(attempt.public_id)
        assert found is not None
        assert found.node.run.session.public_id == run.session.public_id
        assert getattr(found, "ack", None) is None  # no ack yet: known without asking
    assert len(queries) == 1
    expected = Attempt.objects.select_related("node__run__session").get(pk=attempt.pk)
    assert (found.pk, found.created_at, found.node.engine_state, found.node.run.created_at) == (
        expected.pk,
        expected.created_at,
        expected.node.engine_state,
        expected.node.run.created_at,
    )
    assert found.created_at.tzinfo is not None
    assert lookup.get(random_id()) is None


def test_a_compiled_select_gives_the_querysets_rows_in_its_order_by_an_integer_or_a_text(run):
    parent = node_for(run)
    parent.save(force_insert=True)
    children = []
    for index in range(3):
        child = node_for(run, parent=parent, pending_step_id=f"step-{index}")
        child.save(force_insert=True)
        children.append(child)
    newest = Select(lambda pk: Node.objects.filter(parent_id=pk).order_by("-pk")[:2])
    assert [n.pk for n in newest.all(parent.pk)] == [c.pk for c in children[:0:-1]]
    assert newest.first(parent.pk).pk == children[-1].pk
    assert newest.all(random_id()) == [] and newest.first(random_id()) is None
    by_step = Select(lambda step: Node.objects.filter(pending_step_id=step).only("pk", "engine_state"))
    with CaptureQueriesContext(connection) as queries:
        found = by_step.all("step-1")
    assert [(n.pk, n.engine_state) for n in found] == [(children[1].pk, children[1].engine_state)]
    assert len(queries) == 1
    assert by_step.all("step-9") == []
    pinned = SelectOne(lambda key: PinnedWorkflow.objects.only("workflow_hash").filter(workflow_hash=key))
    assert pinned.get(run.pinned_id).pk == run.pinned_id and pinned.get("sha256:" + "f" * 64) is None


def test_a_compiled_query_must_use_its_value_exactly_once(run):
    twice = SelectOne(lambda value: Node.objects.filter(Q(public_id=value) | Q(parent__public_id=value)))
    with pytest.raises(RuntimeError, match="exactly once"):
        twice.get(1)


@contextmanager
def counting_compiles():
    """Counts every SQL compilation the ORM does (selects, inserts, updates, deletes)."""
    counted = {"compiles": 0}
    classes = [
        sql_compiler.SQLCompiler,
        sql_compiler.SQLInsertCompiler,
        sql_compiler.SQLUpdateCompiler,
        sql_compiler.SQLDeleteCompiler,
        sql_compiler.SQLAggregateCompiler,
    ]
    originals = {cls: cls.__dict__["as_sql"] for cls in classes}

    def counted_as_sql(original: Any) -> Any:
        def as_sql(self: Any, *args: Any, **kwargs: Any) -> Any:
            counted["compiles"] += 1
            return original(self, *args, **kwargs)

        return as_sql

    for cls, original in originals.items():
        cls.as_sql = counted_as_sql(original)  # type: ignore[method-assign]
    try:
        yield counted
    finally:
        for cls, original in originals.items():
            cls.as_sql = original  # type: ignore[method-assign]


@pytest.fixture
def looping(service_catalog):
    body = [{"id": "work", "title": "Work", "prompt": "Work.", "notesOptional": True}]
    loop = {"type": "while", "condition": {"var": "keepGoing", "not_equals": False}, "maxIterations": 100}
    steps = [{"id": "main-loop", "type": "loop", "title": "Loop", "loop": loop, "body": body}]
    path = service_catalog["project"] / ".workrail" / "workflows" / "loop.json"
    write_json(path, workflow_doc("project.loop", steps=steps))
    return "project.loop"


def test_a_warm_advance_compiles_no_sql_and_runs_the_same_statements_at_any_depth(looping):
    response = start_workflow(looping)
    for _ in range(3):
        response = ack(response)
    counts = []
    for _ in range(5):
        with counting_compiles() as counted, CaptureQueriesContext(connection) as queries:
            response = ack(response)
        assert response["kind"] == "step", response
        assert counted["compiles"] == 0
        counts.append(len(queries))
    assert len(set(counts)) == 1, counts
    # BEGIN, the ack's attempt with its node/run/session, the rate bucket, the child node, its parent's
    # link, its attempt, the notes, the ack, the events, the session, the run, the search entry, COMMIT;
    # on PostgreSQL also the session row's lock (SQLite's IMMEDIATE transaction is the lock there).
    assert counts[0] <= (13 if connection.vendor == "sqlite" else 14)


def test_statements_roll_back_with_their_transaction(run):
    node = node_for(run)

    def abandoned() -> None:
        with transaction.atomic():
            statements.insert(node)
            assert Node.objects.filter(public_id=node.public_id).exists()
            raise RuntimeError("abandon")

    with pytest.raises(RuntimeError):
        abandoned()
    assert not Node.objects.filter(public_id=node.public_id).exists()


def test_the_models_written_by_statements_have_nothing_that_save_would_run_and_they_skip():
    """statements.insert/update skip Model.save's signals and pre_save hooks: that is only right while
    these models have none. A receiver or an auto_now field added later must come with a change here."""
    from django.apps import apps
    from django.db.models import DateField, signals

    for model in apps.get_app_config("runs").get_models():
        for signal in (signals.pre_save, signals.post_save):
            assert not signal.has_listeners(model), (model, signal)
        for field in model._meta.concrete_fields:
            assert not (isinstance(field, DateField) and (field.auto_now or field.auto_now_add)), field
