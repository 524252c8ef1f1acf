"""Pinned workflow snapshots: stored once per hash by the runs that use them, read once per process (a
snapshot never changes, its key is its hash, so caching it is always correct and continue_workflow
does not parse the workflow JSON every call)."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from django.db import connection, transaction

from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import PinnedWorkflow
from runs.store.statements import SelectOne
from workflows_app.engine.model import CompiledStep, CompiledWorkflow
from workflows_app.engine.tree import top_steps, walk

PIN_ATTEMPTS = 3


def pin(workflow_hash: str, workflow_id: str, compiled: CompiledWorkflow, now: datetime) -> bool:
    """Stores the snapshot unless it is stored, and keeps it until this transaction ends; True when this
    call stored it. Retention deletes snapshots no run uses (runs/store/retention.py). On SQLite this
    transaction holds the store's write lock, so that cannot happen meanwhile. On PostgreSQL the row is
    share-locked (FOR KEY SHARE): a cleanup skips it; a cleanup that locked it first makes us wait, and
    once it deleted the row we store it again, instead of failing at commit on the run's foreign key."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("a workflow is pinned inside the transaction that starts its run")
    for _ in range(PIN_ATTEMPTS):
        if _stored(workflow_hash):  # the usual case: pinned by an earlier run
            return False
        _, created = PinnedWorkflow.objects.get_or_create(
            workflow_hash=workflow_hash, defaults={"workflow_id": workflow_id, "compiled": compiled, "created_at": now}
        )
        if connection.vendor != "postgresql" or _share_lock(workflow_hash):
            return created
    raise WorkRailError(
        ErrorCode.STORE_BUSY,
        "The workflow snapshot kept being removed by a cleanup while this run pinned it.",
        "Retry the same call in a moment; nothing was recorded.",
        retryable=True,
    )


_pinned = SelectOne(lambda key: PinnedWorkflow.objects.only("workflow_hash").filter(workflow_hash=key))


def _stored(workflow_hash: str) -> bool:
    """Whether the snapshot is stored (not read: it is large); on PostgreSQL it is then share-locked too."""
    if connection.vendor == "postgresql":
        return _share_lock(workflow_hash)
    return _pinned.get(workflow_hash) is not None


def _share_lock(workflow_hash: str) -> bool:
    """FOR KEY SHARE, which Django's select_for_update does not offer: it blocks deletes of the row, not
    other runs pinning it. False when the row is gone (deleted by a cleanup we waited for)."""
    quote = connection.ops.quote_name
    table, key = quote(PinnedWorkflow._meta.db_table), quote(str(PinnedWorkflow._meta.pk.column))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM {table} WHERE {key} = %s FOR KEY SHARE", [workflow_hash])
        return cursor.fetchone() is not None


@lru_cache(maxsize=64)
def compiled_workflow(workflow_hash: str) -> CompiledWorkflow:
    compiled: CompiledWorkflow = PinnedWorkflow.objects.values_list("compiled", flat=True).get(
        workflow_hash=workflow_hash
    )
    return compiled


@lru_cache(maxsize=64)
def steps_by_id(workflow_hash: str) -> dict[str, CompiledStep]:
    """Every compiled step of a pinned workflow, loop bodies included, by id."""
    return {step["id"]: step for step in walk(top_steps(compiled_workflow(workflow_hash)))}
