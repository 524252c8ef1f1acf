"""Statements compiled once per process and then only executed: the hot path of continue_workflow.

An advance runs about a dozen statements, and Django compiles each ORM call into SQL anew: measured,
that compiling (building WHERE trees, SELECT lists, INSERT placeholders) was about 40% of an advance,
more than the database's own work. The statements here have the same SQL Django would write, derived
from the models' metadata or compiled by Django itself once, and each value is still prepared by its
field (`get_db_prep_save`) exactly as `save()` or `update()` would prepare it. Services keep calling
model-level functions (`insert(row)`, `update(Model, pk, field=value)`, `SelectOne.get(id)`,
`Select.all(value)`); none of this SQL is written by hand outside this module and runs/store/bulk_rows.py.
The private Django APIs this takes (the SQL compiler, the select_related populators...) are reached only
through runs/store/django_internals.py.

What they skip, deliberately: signals (this app registers none), `pre_save` hooks (no field here
uses auto_now), and Model.save overrides (Event's refuses updates; these only insert). Rows inserted
here are complete and new; anything else goes through the ORM as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model, QuerySet, Value

from runs.store import django_internals

# The caches below are filled without a lock: one dict assignment is atomic, and two threads that compile
# the same statement at once store equal values.
_MARKER = -7_346_015_523_021_411_337  # stand-in integers for compiling: no id takes them (ids are positive)


def _connection() -> BaseDatabaseWrapper:
    """This thread's connection itself: django.db.connection is a proxy that looks it up again on every
    attribute, and preparing one row's values reads a dozen of them."""
    return connections[DEFAULT_DB_ALIAS]


def _quote(connection: BaseDatabaseWrapper, name: str) -> str:
    return str(connection.ops.quote_name(name))


def _column_fields(model: type[Model]) -> list[Field[Any, Any]]:
    return [field for field in model._meta.concrete_fields if not field.primary_key]


# --- INSERT ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Insert:
    fields: list[Field[Any, Any]]
    sql: str  # one row, answering with its primary key
    sql_many: str  # one row per executemany parameter set, answering nothing


_inserts: dict[tuple[str, type[Model]], _Insert] = {}


def _insert_statement(connection: BaseDatabaseWrapper, model: type[Model]) -> _Insert:
    key = (connection.vendor, model)
    statement = _inserts.get(key)
    if statement is None:
        fields = _column_fields(model)
        columns = ", ".join(_quote(connection, str(field.column)) for field in fields)
        sql = (
            f"INSERT INTO {_quote(connection, model._meta.db_table)} ({columns}) "
            f"VALUES ({', '.join(['%s'] * len(fields))})"
        )
        returning = f"{sql} RETURNING {_quote(connection, str(model._meta.pk.column))}"
        statement = _Insert(fields, returning if connection.features.can_return_columns_from_insert else sql, sql)
        _inserts[key] = statement
    return statement


def _prepared(connection: BaseDatabaseWrapper, row: Model, field: Field[Any, Any]) -> Any:
    if field.is_relation:
        value = getattr(row, field.attname)
        if value is None:  # a related row saved since it was set?
            related = django_internals.cached_related(field, row)
            value = related.pk if related is not None else None
        return value
    return field.get_db_prep_save(getattr(row, field.attname), connection)


def insert(row: Model) -> None:
    """INSERTs a new, complete `row` and gives it its primary key, as `row.save(force_insert=True)` would."""
    connection = _connection()
    statement = _insert_statement(connection, type(row))
    values = [_prepared(connection, row, field) for field in statement.fields]
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, values)
        if connection.features.can_return_columns_from_insert:
            row.pk = cursor.fetchone()[0]
        else:
            row.pk = cursor.lastrowid
    row._state.adding = False
    row._state.db = connection.alias


def insert_many(model: type[Model], rows: Sequence[Model]) -> None:
    """INSERTs new rows of `model` in one executemany; their primary keys are not read back."""
    connection = _connection()
    if rows:
        fields = _insert_statement(connection, model).fields
        insert_prepared(model, [[_prepared(connection, row, field) for field in fields] for row in rows])


def insert_prepared(model: type[Model], values: Sequence[Sequence[Any]]) -> None:
    """INSERTs rows given as values of all of `model`'s columns but the primary key, in field order,
    each already prepared for the database (a replay that makes no model instances)."""
    connection = _connection()
    if values:
        with connection.cursor() as cursor:
            cursor.executemany(_insert_statement(connection, model).sql_many, values)


# --- UPDATE by primary key -------------------------------------------------------------------------------

_updates: dict[tuple[str, type[Model], tuple[str, ...]], tuple[str, list[Field[Any, Any]]]] = {}


def update(model: type[Model], pk: Any, **values: Any) -> None:
    """UPDATEs the named columns (attribute names, e.g. `latest_child_id`) of one row, as
    `Model.objects.filter(pk=pk).update(...)` would for plain values."""
    connection = _connection()
    sql, fields = _update_statement(connection, model, tuple(values))
    params = [field.get_db_prep_save(values[field.attname], connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, pk])


def update_many(model: type[Model], names: Sequence[str], rows: Sequence[Model]) -> None:
    """UPDATEs the columns `names` (attribute names) of saved `rows` to their current values, in one
    executemany."""
    if rows:
        connection = _connection()
        sql, fields = _update_statement(connection, model, tuple(names))
        params = [
            [*(field.get_db_prep_save(getattr(row, field.attname), connection) for field in fields), row.pk]
            for row in rows
        ]
        with connection.cursor() as cursor:
            cursor.executemany(sql, params)


def _update_statement(
    connection: BaseDatabaseWrapper, model: type[Model], names: tuple[str, ...]
) -> tuple[str, list[Field[Any, Any]]]:
    key = (connection.vendor, model, names)
    compiled = _updates.get(key)
    if compiled is None:
        meta = model._meta
        by_attname = {field.attname: field for field in meta.concrete_fields}
        fields = [by_attname[name] for name in names]
        assignments = ", ".join(f"{_quote(connection, str(field.column))} = %s" for field in fields)
        table, pk_column = _quote(connection, meta.db_table), _quote(connection, str(meta.pk.column))
        compiled = _updates[key] = (f"UPDATE {table} SET {assignments} WHERE {pk_column} = %s", fields)
    return compiled


# --- UPDATE compiled by Django ----------------------------------------------------------------------------

TextExpression = Callable[[Value], Any]  # builds an expression around the one text parameter it gets


@dataclass(frozen=True)
class _CompiledUpdate:
    sql: str
    slots: list[int]  # where each plain value, each expression's text and each where-value go in params
    params: list[Any]
    fields: list[Field[Any, Any]]


_compiled_updates: dict[tuple[Any, ...], _CompiledUpdate] = {}


def update_where(
    model: type[Model],
    where: dict[str, int | bool],
    values: Mapping[str, object],
    expressions: Mapping[str, tuple[TextExpression, str]] | None = None,
) -> None:
    """UPDATE `model` SET `values` (plain values by attribute name) and `expressions` (field name: an
    expression built around one text, and that text) WHERE the `where` lookups hold: each lookup takes
    an integer, or a boolean (`run__isnull=True`) that is part of the statement. Compiled by Django
    once for each shape, e.g. the search entry's `notes_text = RIGHT(notes_text || text, N)`."""
    connection = _connection()
    expressions = expressions or {}
    shape = tuple((name, value) if isinstance(value, bool) else (name, int) for name, value in where.items())
    key = (connection.vendor, model, shape, tuple(values), tuple((n, b) for n, (b, _) in expressions.items()))
    compiled = _compiled_updates.get(key) or _compile_update(connection, key, model, where, values, expressions)
    params = list(compiled.params)
    given = [
        *(field.get_db_prep_save(values[field.attname], connection) for field in compiled.fields),
        *(text for _, text in expressions.values()),
        *(value for value in where.values() if not isinstance(value, bool)),
    ]
    for slot, value in zip(compiled.slots, given, strict=True):
        params[slot] = value
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, params)


def _compile_update(
    connection: BaseDatabaseWrapper,
    key: tuple[Any, ...],
    model: type[Model],
    where: dict[str, int | bool],
    values: Mapping[str, object],
    expressions: Mapping[str, tuple[TextExpression, str]],
) -> _CompiledUpdate:
    by_attname = {field.attname: field for field in model._meta.concrete_fields}
    fields = [by_attname[name] for name in values]
    texts = [f"\x00workrail-text-{index}\x00" for index in range(len(expressions))]
    taken = [name for name, value in where.items() if not isinstance(value, bool)]
    numbers = [_Marker(_MARKER - index) for index in range(len(taken))]
    markers = iter(numbers)
    lookups = {name: value if isinstance(value, bool) else next(markers) for name, value in where.items()}
    assignments: dict[str, object] = {
        field.name: Value(f"\x00workrail-value-{i}\x00") for i, field in enumerate(fields)
    }
    for (name, (build, _)), text in zip(expressions.items(), texts, strict=True):
        assignments[name] = build(Value(text))
    sql, params = django_internals.compile_update(connection, model, lookups, assignments)
    wanted = [*(f"\x00workrail-value-{i}\x00" for i in range(len(fields))), *texts, *numbers]
    slots = []
    for marker in wanted:
        found = [index for index, param in enumerate(params) if param == marker]
        if len(found) != 1:
            raise RuntimeError(f"update_where could not place a parameter of {model.__name__}'s update")
        slots.append(found[0])
    compiled = _CompiledUpdate(sql, slots, params, fields)
    _compiled_updates[key] = compiled
    return compiled


# --- compiled querysets ----------------------------------------------------------------------------------


class _Marker(int):
    """The stand-in a queryset is compiled with, found again in its parameters."""


_TEXT_MARKER = "\x00workrail-looked-up-value\x00"  # the stand-in for a text value: no stored text holds it


@dataclass(frozen=True)
class _CompiledQuery:
    select: django_internals.CompiledSelect
    slot: int  # where the looked-up value goes in the select's params


class Select[M: Model]:
    """A queryset that looks rows up by one value, an integer or a text (select_related, only, order_by
    and slicing welcome), compiled by Django on first use and then only executed: the rows become model
    instances the way iterating the queryset would (the same converters, the same related-object
    populators).

        children = Select(lambda pk: Node.objects.filter(parent_id=pk).order_by("-created_at", "-pk")[:10])
        newest = children.all(node.pk)  # [] when no row matches
        open_attempt = Select(lambda pk: Attempt.objects.filter(node_id=pk).order_by("-pk")[:1]).first(node.pk)
    """

    def __init__(self, build: Callable[[Any], QuerySet[M]]) -> None:
        self._build = build
        self._compiled: dict[tuple[str, str, type], _CompiledQuery] = {}

    def all(self, value: int | str) -> list[M]:
        """Every row the queryset gives for `value`, in its order."""
        connection, compiled, params = self._statement(value)
        with connection.cursor() as cursor:
            cursor.execute(compiled.select.sql, params)
            rows = cursor.fetchall()
        return [cast(M, compiled.select.instance(row, connection)) for row in rows]

    def first(self, value: int | str) -> M | None:
        """The queryset's first row for `value`, or None (the queryset should be sliced `[:1]`: only the
        first row is read, but the database is asked for what the queryset says)."""
        connection, compiled, params = self._statement(value)
        with connection.cursor() as cursor:
            cursor.execute(compiled.select.sql, params)
            row = cursor.fetchone()
        return None if row is None else cast(M, compiled.select.instance(row, connection))

    def _statement(self, value: int | str) -> tuple[BaseDatabaseWrapper, _CompiledQuery, list[Any]]:
        connection = _connection()
        kind = str if isinstance(value, str) else int
        compiled = self._compiled.get((connection.vendor, connection.alias, kind)) or self._compile(kind)
        params = list(compiled.select.params)
        params[compiled.slot] = value
        return connection, compiled, params

    def _compile(self, kind: type) -> _CompiledQuery:
        connection = _connection()
        marker: int | str = _TEXT_MARKER if kind is str else _Marker(_MARKER)
        select = django_internals.compile_select(self._build(marker))
        found = [index for index, param in enumerate(select.params) if param == marker]
        if len(found) != 1:
            raise RuntimeError(f"{type(self).__name__}'s queryset must use its value exactly once")
        compiled = _CompiledQuery(select, found[0])
        self._compiled[(connection.vendor, connection.alias, kind)] = compiled
        return compiled


class SelectOne[M: Model](Select[M]):
    """A Select that looks one row up (by a unique value):

    by_attempt = SelectOne(lambda value: Attempt.objects.select_related("node").filter(public_id=value))
    attempt = by_attempt.get(42)  # None when no row matches
    """

    def get(self, value: int | str) -> M | None:
        connection, compiled, params = self._statement(value)
        with connection.cursor() as cursor:
            cursor.execute(compiled.select.sql, params)
            rows = cursor.fetchmany(2)
        if not rows:
            return None
        if len(rows) > 1:
            raise RuntimeError("SelectOne's queryset matched more than one row")
        return cast(M, compiled.select.instance(rows[0], connection))
