"""runs/store/django_internals.py: the private Django APIs the compiled statements use, checked on the
Django versions named in CHECKED_ON and nowhere else.

CHECKED_ON holds the Django of requirements/locked.txt and the one of requirements/lowest.txt, with the
signatures each has for the internals the module calls. A Django not named here (a new release in the
lock, or a hand-installed one) fails the first test: read runs/store/django_internals.py against that
release's django/db/models/query.py and sql/compiler.py, then add it here with its signatures.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import django
import pytest
from django.db import connection
from django.db.models import Model, QuerySet
from django.db.models.query import RelatedPopulator, get_related_populators
from django.db.models.sql import Query, UpdateQuery
from django.db.models.sql.compiler import SQLCompiler, SQLUpdateCompiler

from runs.models import Attempt, Node, PinnedWorkflow, Run
from runs.store import django_internals
from runs.store.journal import new_session, random_id

AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[3]

# The same on every checked version.
COMMON = {
    "RelatedPopulator.populate": "self, row, from_obj",
    "SQLCompiler.as_sql": "self, with_limits, with_col_aliases",
    "SQLCompiler.get_converters": "self, expressions",
    "SQLUpdateCompiler.as_sql": "self",
    "Query.get_compiler": "self, using, connection, elide_empty",
    "Query.chain": "self, klass",
    "UpdateQuery.add_update_values": "self, values",
    "ForeignKey.is_cached": "self, instance",
    "ForeignKey.get_cached_value": "self, instance, default",
}
BEFORE_FETCH_MODES = {
    **COMMON,
    "get_related_populators": "klass_info, select, db",
    "RelatedPopulator.__init__": "self, klass_info, select, db",
    "Model.from_db": "db, field_names, values",
}
WITH_FETCH_MODES = {
    **COMMON,
    "get_related_populators": "klass_info, select, db, fetch_mode",
    "RelatedPopulator.__init__": "self, klass_info, select, db, fetch_mode",
    "Model.from_db": "db, field_names, values, *, fetch_mode",
}
CHECKED_ON = {
    "6.0": BEFORE_FETCH_MODES,  # requirements/lowest.txt
    "6.1.3": WITH_FETCH_MODES,  # requirements/locked.txt
}

INTERNALS: dict[str, Callable[..., Any]] = {
    "get_related_populators": get_related_populators,
    "RelatedPopulator.__init__": RelatedPopulator.__init__,
    "RelatedPopulator.populate": RelatedPopulator.populate,
    "Model.from_db": Model.from_db,
    "SQLCompiler.as_sql": SQLCompiler.as_sql,
    "SQLCompiler.get_converters": SQLCompiler.get_converters,
    "SQLUpdateCompiler.as_sql": SQLUpdateCompiler.as_sql,
    "Query.get_compiler": Query.get_compiler,
    "Query.chain": Query.chain,
    "UpdateQuery.add_update_values": UpdateQuery.add_update_values,
    "ForeignKey.is_cached": Node._meta.get_field("run").is_cached,
    "ForeignKey.get_cached_value": Node._meta.get_field("run").get_cached_value,
}


def parameters(function: Callable[..., Any]) -> str:
    """The parameter names in order, '*' before keyword-only ones; defaults left out (their reprs hold
    addresses). Bound methods show `self` as their unbound function does."""
    target = getattr(function, "__func__", function)
    names: list[str] = []
    for parameter in inspect.signature(target).parameters.values():
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and "*" not in names:
            names.append("*")
        names.append(parameter.name)
    if inspect.ismethod(function) and isinstance(function.__self__, type):
        names = names[1:]  # a classmethod's cls, which callers do not pass
    return ", ".join(names)


def test_the_running_django_is_one_the_internals_were_checked_on():
    assert django.get_version() in CHECKED_ON, (
        f"Django {django.get_version()} is not one runs/store/django_internals.py was checked on "
        f"({', '.join(CHECKED_ON)}): check the module against it and add it to CHECKED_ON"
    )


@pytest.mark.parametrize("lock", ["requirements/locked.txt", "requirements/lowest.txt"])
def test_each_lock_file_pins_a_checked_django(lock):
    pinned = re.search(r"^django==(\S+)", (ROOT / lock).read_text(), re.MULTILINE)
    assert pinned is not None, f"{lock} pins no Django"
    assert pinned[1] in CHECKED_ON, f"{lock} pins Django {pinned[1]}, which CHECKED_ON does not name"


def test_the_internals_have_the_signatures_they_were_checked_with():
    expected = CHECKED_ON.get(django.get_version())
    if expected is None:
        pytest.fail(f"Django {django.get_version()} is not in CHECKED_ON")
    assert {name: parameters(function) for name, function in INTERNALS.items()} == expected


def test_the_version_switch_follows_what_querysets_have():
    assert hasattr(QuerySet(Node), "_fetch_mode") == django_internals.HAS_FETCH_MODE


@pytest.fixture
def run(db: None) -> Run:
    pinned = PinnedWorkflow.objects.create(
        workflow_hash="sha256:" + "1" * 64, workflow_id="w", compiled={}, created_at=AT
    )
    return Run.objects.create(
        public_id="run_0000000000000002",
        session=new_session(AT),
        workflow_id="w",
        pinned=pinned,
        created_at=AT,
        updated_at=AT,
    )


def make_node(run: Run, **changes: Any) -> Node:
    values: dict[str, Any] = {
        "public_id": random_id(),
        "run": run,
        "engine_state": {"n": [1, 2.5, None], "é": "✓"},
        "created_at": AT,
    }
    return Node.objects.create(**{**values, **changes})


def test_a_compiled_select_builds_what_iterating_the_queryset_builds(run):
    node = make_node(run)
    attempt = Attempt.objects.create(public_id=random_id(), node=node, created_at=AT)
    queryset = Attempt.objects.select_related("node__run__session").filter(pk=attempt.pk)
    compiled = django_internals.compile_select(queryset)
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, compiled.params)
        (row,) = cursor.fetchall()
    built = compiled.instance(row, connection)
    (expected,) = list(queryset)
    assert isinstance(built, Attempt)
    assert (built.pk, built.public_id, built.created_at, built._state.adding, built._state.db) == (
        expected.pk,
        expected.public_id,
        expected.created_at,
        False,
        expected._state.db,
    )
    assert built.created_at.tzinfo is not None  # the converters ran
    assert Attempt.node.is_cached(built) and Node.run.is_cached(built.node)
    assert built.node.engine_state == expected.node.engine_state == {"n": [1, 2.5, None], "é": "✓"}
    assert built.node.run.session.public_id == expected.node.run.session.public_id


def test_a_compiled_update_changes_what_the_orm_update_changes(run):
    node, other = make_node(run), make_node(run)
    sql, params = django_internals.compile_update(connection, Node, {"pk": node.pk}, {"pending_step_id": "two"})
    assert sql.startswith("UPDATE")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
    node.refresh_from_db()
    other.refresh_from_db()
    assert (node.pending_step_id, other.pending_step_id) == ("two", "")


def test_the_cached_related_object_is_the_one_set_even_before_it_had_a_key(run):
    unsaved = Node(public_id=random_id(), run=run, engine_state={}, created_at=AT)
    child = Node(public_id=random_id(), run=run, parent=unsaved, engine_state={}, created_at=AT)
    unsaved.save()
    run_field = Node._meta.get_field("run")
    parent_field = Node._meta.get_field("parent")
    latest_field = Node._meta.get_field("latest_child")
    assert django_internals.cached_related(parent_field, child) is unsaved
    assert django_internals.cached_related(run_field, child) is run
    assert django_internals.cached_related(latest_field, child) is None
