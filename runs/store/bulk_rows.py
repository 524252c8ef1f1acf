"""Inserting many new rows of one model fast, for replays of a whole event log (rebuild, bundle import).

Django's bulk_create compiles an expression per value; on a replay of 40,000 events that compiling,
not the database, was most of the time. Here each table gets one INSERT statement (runs/store/statements.py),
run with executemany over the rows' values (each value prepared by its field, as Django would), and
the rows other rows point at (nodes, attempts) learn their primary keys from one lookup by their
public id. Only for rows that are new and complete: no signals, no defaults computed, no conflicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Model

from runs.store import statements

_LOOKUP_CHUNK = 900  # public ids per IN (...): under every backend's limit on bound parameters


def insert_rows(model: type[Model], rows: Sequence[Model]) -> None:
    """INSERTs `rows` (new instances of `model`); when the model has a public_id, sets each row's pk."""
    if not rows:
        return
    statements.insert_many(model, rows)
    if any(field.name == "public_id" for field in model._meta.concrete_fields):
        _learn_pks(model, rows)


def _learn_pks(model: type[Model], rows: Sequence[Model]) -> None:
    by_public_id = {row.public_id: row for row in rows}  # type: ignore[attr-defined]
    public_ids = list(by_public_id)
    manager = model._default_manager
    for start in range(0, len(public_ids), _LOOKUP_CHUNK):
        chunk = public_ids[start : start + _LOOKUP_CHUNK]
        for public_id, pk in manager.filter(public_id__in=chunk).values_list("public_id", "pk"):
            by_public_id[public_id].pk = pk
