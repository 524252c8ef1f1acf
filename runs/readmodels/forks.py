"""The operator forks of a run: which branches a developer started by hand, from which node and why. Read
from the event log (`operator_forked`), one query per run or node, like the run's warnings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from runs.contract.fork import OperatorForkNote
from runs.models import Event, EventKind, Node, Run


def _note(data: dict[str, Any], at: datetime) -> OperatorForkNote:
    return OperatorForkNote(
        node_id=str(data["childNodeId"]),
        forked_from=str(data["nodeId"]),
        reason=str(data.get("reason", "")),
        context_set=dict(data.get("contextSet") or {}),
        context_removed=[str(key) for key in data.get("contextRemoved") or []],
        via="api" if data.get("via") == "api" else "dashboard",
        created_at=at,
    )


def forks_of_run(run: Run) -> dict[int, OperatorForkNote]:
    """The run's operator forks, by the public id of the first node of the branch each started."""
    rows = Event.objects.filter(
        session_id=run.session_id, kind=EventKind.OPERATOR_FORKED, data__runId=run.public_id
    ).values_list("data", "created_at")
    return {int(data["childNodeId"]): _note(data, at) for data, at in rows}


def fork_into(node: Node) -> OperatorForkNote | None:
    """The operator fork that made `node`, if a developer started its branch there."""
    if node.parent_id is None:
        return None
    row = (
        Event.objects.filter(
            session_id=node.run.session_id, kind=EventKind.OPERATOR_FORKED, data__childNodeId=node.public_id
        )
        .values_list("data", "created_at")
        .first()
    )
    return _note(*row) if row is not None else None


def forked_children(node: Node, children: list[int]) -> dict[int, OperatorForkNote]:
    """Of `children` (public ids of `node`'s children), those a developer started, by public id."""
    if not children:
        return {}
    rows = Event.objects.filter(
        session_id=node.run.session_id, kind=EventKind.OPERATOR_FORKED, data__nodeId=node.public_id
    ).values_list("data", "created_at")
    wanted = set(children)
    return {int(data["childNodeId"]): _note(data, at) for data, at in rows if data["childNodeId"] in wanted}
