"""Every private Django API the compiled statements (runs/store/statements.py) use, and nothing else.

The statements let Django compile their SQL, convert their values and build their model instances once,
then replay that work: it keeps them equal to the ORM's own queries without writing the ORM's SQL by
hand. That takes parts of Django it documents nowhere and may change in any feature release:
- the SQL compiler's output: `Query.get_compiler`, `SQLCompiler.as_sql` and what it fills in
  (`select`, `klass_info`, `col_count`), and `get_converters`;
- `UpdateQuery`, reached through `Query.chain`, and its `add_update_values`;
- the populators that build select_related objects (`get_related_populators`, `RelatedPopulator`);
- a queryset's fetch mode (`QuerySet._fetch_mode`, new in Django 6.1, which also added a `fetch_mode`
  argument to the populators and to `Model.from_db`): the one version switch here;
- a relation field's cache of its related object (`is_cached`, `get_cached_value`).
tests/runs/store/test_django_internals.py names the Django versions this module was checked on (the version
in requirements/locked.txt and the one in requirements/lowest.txt), fails on any other, and fails when
one of these signatures changes: moving Django on means reading this module again.

Not here, being documented or the backend interface every third-party backend implements:
`Model.from_db`'s first three arguments, `Model._state`, `Field.get_db_prep_save`, `Model._meta`'s
fields, `connection.ops.quote_name` and `connection.features`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import django
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model, QuerySet
from django.db.models import query as django_query
from django.db.models.sql import UpdateQuery

# Django 6.1 gave querysets a fetch mode (what touching a deferred field or an unloaded relation does),
# which the populators and Model.from_db take; Django 6.0 has neither.
HAS_FETCH_MODE = django.VERSION[:2] >= (6, 1)

# Typed loosely on purpose: its arguments differ between the versions above (django-stubs knows one).
_get_related_populators: Callable[..., list[Any]] = django_query.get_related_populators


def compile_update(
    connection: BaseDatabaseWrapper,
    model: type[Model],
    lookups: Mapping[str, Any],
    assignments: Mapping[str, Any],
) -> tuple[str, list[Any]]:
    """The SQL and parameters of `model.objects.filter(**lookups).update(**assignments)`, compiled by
    Django for `connection` without running it."""
    update = cast(UpdateQuery, model._default_manager.filter(**lookups).query.chain(UpdateQuery))
    update.add_update_values(dict(assignments))
    sql, params = update.get_compiler(connection=connection).as_sql()
    return str(sql), list(params)


@dataclass(frozen=True)
class CompiledSelect:
    """A queryset compiled by Django: its SQL and parameters, and how to turn one of its rows into the
    model instance (with its select_related objects) that iterating the queryset would give."""

    sql: str
    params: list[Any]
    _columns: int
    _converters: list[tuple[int, list[Any], Any]]  # column, its converters, its expression
    _build: Callable[[list[Any]], Model]

    def instance(self, row: Sequence[Any], connection: BaseDatabaseWrapper) -> Model:
        values = list(row[: self._columns])
        for index, converters, expression in self._converters:
            for converter in converters:
                values[index] = converter(values[index], expression, connection)
        return self._build(values)


def compile_select(queryset: QuerySet[Any]) -> CompiledSelect:
    """Compiles `queryset` as ModelIterable (Django's own `for obj in queryset`) would, without running it."""
    compiler = queryset.query.get_compiler(using=queryset.db)
    sql, params = compiler.as_sql()  # also fills compiler.select, compiler.klass_info, compiler.col_count
    select, klass_info = compiler.select, compiler.klass_info
    assert klass_info is not None  # set for every query of model instances
    columns = compiler.col_count
    converters = [
        (index, converters, expression)
        for index, (converters, expression) in compiler.get_converters([entry[0] for entry in select[:columns]]).items()
    ]
    model = klass_info["model"]
    start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
    init_list = [entry[0].target.attname for entry in select[start:end]]
    db = queryset.db
    if HAS_FETCH_MODE:
        fetch_mode = queryset._fetch_mode  # type: ignore[attr-defined]
        populators = _get_related_populators(klass_info, select, db, fetch_mode)

        def build(row: list[Any]) -> Model:
            obj = model.from_db(db, init_list, row[start:end], fetch_mode=fetch_mode)
            for populator in populators:
                populator.populate(row, obj)
            return cast(Model, obj)

    else:
        populators = _get_related_populators(klass_info, select, db)

        def build(row: list[Any]) -> Model:
            obj = model.from_db(db, init_list, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            return cast(Model, obj)

    return CompiledSelect(str(sql), list(params), columns, converters, build)


def cached_related(field: Field[Any, Any], row: Model) -> Model | None:
    """The related object `row` holds for the relation `field` (set as an object, e.g. `node.run = run`),
    or None when it holds none: the object may have been saved, and given its key, after being set."""
    if field.is_cached(row):  # type: ignore[attr-defined]
        return cast(Model | None, field.get_cached_value(row))  # type: ignore[attr-defined]
    return None
