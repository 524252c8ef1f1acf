"""The operator forks of a run: which branches a developer started by hand, from which node and why. Read
from the event log (`operator_forked`), one query per run or node, like the run's warnings."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from runs.contract.fork import OperatorForkNote
from runs.models import Checkpoint, Event, EventKind, Node, Output, Run
from runs.readmodels import people
from runs.store.statements import Select

# Whether a step or a checkpoint made a node (by the node's pk): compiled, a rewound agent asks at every rehydrate.
_output_into = Select(lambda pk: Output.objects.filter(child_id=pk).only("pk")[:1])
_checkpoint_into = Select(lambda pk: Checkpoint.objects.filter(child_id=pk).only("pk")[:1])


def _note(data: dict[str, Any], at: datetime, actor: str = "", door: str = "") -> OperatorForkNote:
    context_set = dict(data.get("contextSet") or {})
    removed = [str(key) for key in data.get("contextRemoved") or []]
    return OperatorForkNote(
        node_id=str(data["childNodeId"]),
        forked_from=str(data["nodeId"]),
        reason=str(data.get("reason", "")),
        context_set=context_set,
        context_removed=removed,
        change=change_in_words(context_set, removed),
        via="api" if data.get("via") == "api" else "dashboard",
        created_at=at,
        by=people.by_words(actor, door),
    )


def change_in_words(context_set: dict[str, Any], removed: list[str]) -> str:
    """What a fork changed in the context, for people: 'target set to "production"; dryRun removed'."""
    parts = [f"{key} set to {_shown(value)}" for key, value in context_set.items()]
    parts += [f"{key} removed" for key in removed]
    return "; ".join(parts) if parts else "no change to the context"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:79] + "…"


def forks_of_run(run: Run) -> dict[int, OperatorForkNote]:
    """The run's operator forks, by the public id of the first node of the branch each started."""
    rows = Event.objects.filter(
        session_id=run.session_id, kind=EventKind.OPERATOR_FORKED, data__runId=run.public_id
    ).values_list("data", "created_at", "actor", "door")
    return {int(row[0]["childNodeId"]): _note(*row) for row in rows}


def fork_into(node: Node) -> OperatorForkNote | None:
    """The operator fork that made `node`, if a developer started its branch there."""
    if node.parent_id is None:
        return None
    # A node a step or a checkpoint made was not made by a fork: two indexed lookups spare reading the
    # session's events (a rewound agent asks this at every rehydrate).
    if _output_into.first(node.pk) is not None or _checkpoint_into.first(node.pk) is not None:
        return None
    row = (
        Event.objects.filter(
            session_id=node.run.session_id, kind=EventKind.OPERATOR_FORKED, data__childNodeId=node.public_id
        )
        .values_list("data", "created_at", "actor", "door")
        .first()
    )
    return _note(*row) if row is not None else None


def forked_children(node: Node, children: list[int]) -> dict[int, OperatorForkNote]:
    """Of `children` (public ids of `node`'s children), those a developer started, by public id."""
    if not children:
        return {}
    rows = Event.objects.filter(
        session_id=node.run.session_id, kind=EventKind.OPERATOR_FORKED, data__nodeId=node.public_id
    ).values_list("data", "created_at", "actor", "door")
    wanted = set(children)
    return {int(row[0]["childNodeId"]): _note(*row) for row in rows if row[0]["childNodeId"] in wanted}
