"""Which loop iteration each node of a run stands in, for the graph's "↻ 2" marks.

A node's engine state names its pending step's instance, "<loop>#<iteration>/.../<step>" (one
"<loop>#<n>" per enclosing loop, outermost first: workflows_app/engine/view.py, step_instance). The
innermost loop is the one a reader counts; its title comes from the pinned workflow. One query per
run, reading only that string of each state (never the context it holds).
"""

from __future__ import annotations

from typing import NamedTuple

from django.db.models.fields.json import KT

from runs.models import Run
from runs.store.pinned import steps_by_id


class LoopMark(NamedTuple):
    iteration: int  # 1 for the first
    loop_title: str


def innermost(step_instance: object) -> tuple[str, int] | None:
    """The innermost (loop id, iteration) of a step instance, or None outside any loop (or for
    anything that is not a step instance: the state of a complete node has none)."""
    if not isinstance(step_instance, str) or "/" not in step_instance:
        return None
    loop_id, _, iteration = step_instance.split("/")[-2].rpartition("#")
    if not loop_id or not iteration.isdigit():
        return None
    return loop_id, int(iteration)


def loop_marks(run: Run) -> dict[int, LoopMark]:
    """By node pk: the iteration its pending step is in, for the nodes inside a loop."""
    titles: dict[str, str] = {}
    marks: dict[int, LoopMark] = {}
    # KT: the key as text (SQLite's ->>, PostgreSQL's #>>), without the type checks of a JSON value.
    for pk, instance in run.nodes.annotate(instance=KT("engine_state__pending__stepInstance")).values_list(
        "pk", "instance"
    ):
        found = innermost(instance)
        if found is None:
            continue
        loop_id, iteration = found
        if loop_id not in titles:
            loop = steps_by_id(run.pinned_id).get(loop_id)
            titles[loop_id] = str((loop.get("title") if loop is not None else None) or "the loop")
        marks[pk] = LoopMark(iteration, titles[loop_id])
    return marks
