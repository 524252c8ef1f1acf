"""Where each node's pending step sits in its workflow's outline: "step 3 of 7", "step 3 of 7, round 2".

A person reads a step's place against the outline the workflow page shows (its top-level entries, a
loop counted once, as inspect_workflow numbers them), never against the count of steps taken, which
runs past the outline's length as soon as a loop repeats. The place comes from the engine's own cursor
(workflows_app/engine/state.py): `cursor.position[0]` is the top-level entry the pending step is in,
`cursor.loops[0].iteration` the round of the loop around it (the outermost, the one the outline shows).
One query per run or per set of nodes, reading those two values of each state, never its context.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.db.models import QuerySet
from django.db.models.fields.json import KT

from runs.contract.dashboard import StepPlace
from runs.models import Node, Run
from runs.store.pinned import compiled_workflow
from workflows_app import engine


def place(entry: object, round_: object, length: int) -> StepPlace | None:
    """The place of a pending step at top-level index `entry` (0-based, as the cursor holds it) in an
    outline of `length` entries, in round `round_` of its loop; None at completion (the cursor stands one
    past the last entry) or for anything the cursor does not hold."""
    top = _number(entry)
    if top is None or not 0 <= top < length:
        return None
    rounds = _number(round_)
    return StepPlace(position=top + 1, length=length, round=rounds if rounds is not None and rounds >= 1 else None)


def of_run(run: Run) -> dict[int, StepPlace]:
    """By node pk: the place of every unfinished node of `run`."""
    return _read(run.nodes.all(), lengths([run.pinned_id]))


def of_nodes(nodes: Mapping[int, Run]) -> dict[int, StepPlace]:
    """By node pk: the places of the nodes `nodes` names (each with its run), in one query."""
    if not nodes:
        return {}
    return _read(Node.objects.filter(pk__in=list(nodes)), lengths({run.pinned_id for run in nodes.values()}))


def _read(nodes: QuerySet[Node], sizes: dict[str, int]) -> dict[int, StepPlace]:
    # KT: the key as text (SQLite's ->>, PostgreSQL's #>>); a number in the path indexes a list.
    rows = nodes.filter(is_complete=False).annotate(
        entry=KT("engine_state__cursor__position__0"), round=KT("engine_state__cursor__loops__0__iteration")
    )
    found = {}
    for pk, entry, round_, pinned in rows.values_list("pk", "entry", "round", "run__pinned_id"):
        where = place(entry, round_, sizes.get(pinned, 0))
        if where is not None:
            found[pk] = where
    return found


def lengths(hashes: Iterable[str]) -> dict[str, int]:
    """The outline length of each pinned workflow, by hash (read once per process: store.pinned caches it)."""
    return {workflow_hash: engine.outline_length(compiled_workflow(workflow_hash)) for workflow_hash in set(hashes)}


def _number(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None
