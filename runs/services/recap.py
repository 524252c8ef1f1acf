"""Recaps: the durable notes an agent lost when its chat was rewound, within a byte budget.

Entries are outputs (notes and artifact kinds) of acknowledged steps. We keep the most recent
entries that fit the budget, show them oldest first, and say how many were left out. Ancestors are
read with one recursive query bounded by MAX_ENTRIES, never by walking the whole history.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import connection

from runs.models import Checkpoint, Node, Output

RECAP_BUDGET_BYTES = 8 * 1024
MAX_ENTRIES = 64


def entry(output: Output) -> dict[str, Any]:
    return {
        "kind": "step",
        "stepId": output.step_id,
        "title": output.step_title,
        "notesMarkdown": output.notes_markdown,
        "artifactKinds": [a.get("kind") for a in output.artifacts if isinstance(a, dict)],
    }


def checkpoint_entry(checkpoint: Checkpoint) -> dict[str, Any]:
    return {
        "kind": "checkpoint",
        "stepId": checkpoint.node.pending_step_id if checkpoint.node else "",
        "title": "Checkpoint",
        "notesMarkdown": checkpoint.notes_markdown,
        "artifactKinds": [a.get("kind") for a in checkpoint.artifacts if isinstance(a, dict)],
    }


def fit(entries_newest_first: list[dict[str, Any]], total: int) -> dict[str, Any]:
    """The most recent entries whose JSON fits in the byte budget; `total` counts all entries."""
    budget = RECAP_BUDGET_BYTES
    kept: list[dict[str, Any]] = []
    used = 0
    for item in entries_newest_first:
        size = len(json.dumps(item, ensure_ascii=False).encode())
        if used + size > budget:
            break
        kept.append(item)
        used += size
    kept.reverse()
    omitted = total - len(kept)
    return {
        "entries": kept,
        "truncated": omitted > 0,
        "omittedEntries": omitted,
        "policy": f"kept the most recent entries that fit in {budget} bytes, oldest first",
    }


_ANCESTOR_OUTPUTS = """
WITH RECURSIVE ancestors(id, parent_id, hops) AS (
    SELECT id, parent_id, 0 FROM runs_node WHERE id = %s
    UNION ALL
    SELECT n.id, n.parent_id, a.hops + 1 FROM runs_node n JOIN ancestors a ON n.id = a.parent_id
    WHERE a.hops < %s
)
SELECT 'o', o.id, a.hops FROM runs_output o JOIN ancestors a ON o.child_id = a.id
UNION ALL
SELECT 'c', c.id, a.hops FROM runs_checkpoint c JOIN ancestors a ON c.child_id = a.id
ORDER BY 3
"""


def _entries(query: str, node: Node) -> list[dict[str, Any]]:
    """Recap entries of the outputs `query` selects (newest first), read in two queries."""
    with connection.cursor() as cursor:
        cursor.execute(query, [node.pk, MAX_ENTRIES])
        rows = [(kind, pk) for kind, pk, _hops in cursor.fetchall()]
    outputs = {o.pk: o for o in Output.objects.filter(pk__in=[pk for kind, pk in rows if kind == "o"])}
    checkpoints = {
        c.pk: c
        for c in Checkpoint.objects.select_related("node").filter(pk__in=[pk for kind, pk in rows if kind == "c"])
    }
    return [entry(outputs[pk]) if kind == "o" else checkpoint_entry(checkpoints[pk]) for kind, pk in rows]


def path_recap(node: Node) -> dict[str, Any]:
    """Notes recorded on the way from the run's start to `node`."""
    return fit(_entries(_ANCESTOR_OUTPUTS, node), node.notes_on_path)


_DOWNSTREAM = """
WITH RECURSIVE chain(id, latest_child_id, hops) AS (
    SELECT id, latest_child_id, 0 FROM runs_node WHERE id = %s
    UNION ALL
    SELECT n.id, n.latest_child_id, c.hops + 1 FROM runs_node n JOIN chain c ON n.id = c.latest_child_id
    WHERE c.hops < %s
)
SELECT 'o', o.id, c.hops FROM runs_output o JOIN chain c ON o.child_id = c.id
UNION ALL
SELECT 'c', k.id, c.hops FROM runs_checkpoint k JOIN chain c ON k.child_id = c.id
ORDER BY 3 DESC
"""


def downstream_recap(first_child: Node) -> dict[str, Any]:
    """Notes along the preferred (latest) branch below a node, starting at `first_child`."""
    entries = _entries(_DOWNSTREAM, first_child)
    recap = fit(entries, len(entries))
    if len(entries) > MAX_ENTRIES:  # the branch goes on below what we read: how much more is not known
        recap.update(truncated=True, omittedEntries=None)
    return recap
