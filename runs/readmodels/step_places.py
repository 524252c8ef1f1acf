"""Where each node's pending step sits in its workflow's outline, said one way after the step's name on every view
(list rows, headings, graph cards, branch lines, the timeline, the step's page: StepPlace.brief, friction22a A1):
"step 3 of 7", and inside a loop the loop's entry then its round, "step 3 of 7 · round 2 of 4" ("slice 2 of 4" when
a `forEach` loop declares its item, `noun`); the loop's name in their tooltip (StepPlace.words: "step 3 of 7 ·
round 2 of 4 · part 2 of 2 in “Verify each slice”"); a graph card says the same, its trailing parts dropped
when it must be shorter (StepPlace.short: "step 2 of 3 · round 2 of 4", friction28a 3: a card's own "round 2/4
· part 2" read as another thing than the list's). The round alone (friction19a
8) hid the step's number: a loop's steps read "step 2", "step 3 skipped", "area 1 of 2", "step 5", step 4 missing.

One rule for every loop: a step inside a loop is placed at the loop's entry in the outline, then its round, then,
when the loop's body holds several steps, its part of the round ("step 2 of 3 · round 2 of 3 · part 2 of 2":
friction23a A5, 23b 4, two steps of one round both read "step 2"; never "2b", read as a typo, nor "step 2.2 of 3",
read as a version number, friction24a 10). A round has one format wherever it is named: "round 126 of
150", or "round 126" when the loop's length is open (a `while` or `until` loop). The workflow page's outline numbers
a loop's steps as an outline does, "2.1", "2.2" under the loop's entry 2 (dashboard/_outline.html), never "of 3".

A person reads a step's place against the outline the workflow page shows (its top-level entries, a
loop counted once, as inspect_workflow numbers them), never against the count of steps taken, which
runs past the outline's length as soon as a loop repeats. The place comes from the engine's own cursor
(workflows_app/engine/state.py): `cursor.position[0]` is the top-level entry the pending step is in,
`cursor.loops[0].iteration` the round of the loop around it (the outermost, the one the outline shows) and
`cursor.position[1]` which of that loop's steps it is (its part; the outline numbers them 3.1, 3.2, ...).
One query per run or per set of nodes, reading those two values of each state, never its context.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from django.db.models import QuerySet
from django.db.models.fields.json import KT, KeyTransform

from runs.contract.dashboard import StepPlace
from runs.models import Node, Run
from runs.readmodels import outline_words
from runs.store.pinned import compiled_workflow
from workflows_app import engine
from workflows_app.engine.model import CompiledWorkflow
from workflows_app.engine.tree import top_steps


def place(
    entry: object,
    round_: object,
    outline: tuple[int, ...],
    inner: object = None,
    *,
    loops: tuple[str, ...] = (),
    nouns: tuple[str, ...] = (),
    frame: object = None,
) -> StepPlace | None:
    """The place of a pending step at top-level index `entry` (0-based, as the cursor holds it) of an
    outline whose entries' loops hold `outline[i]` steps (0: no loop), in round `round_` of its loop, at
    index `inner` of that loop's steps (1 for a loop of one step, as the outline numbers it); None at completion
    (the cursor stands one past the last entry) or for anything the cursor does not hold. `loops`: each entry's
    loop title ("" for a step); `nouns`: each entry's loop item word (noun: "" for none); `frame`: the cursor's
    outermost loop frame, whose `count` or `items` say how many rounds the loop runs."""
    top = _number(entry)
    if top is None or not 0 <= top < len(outline):
        return None
    rounds = _number(round_)
    if rounds is None or rounds < 1:
        return StepPlace(position=top + 1, length=len(outline))
    body = _number(inner)
    told = body + 1 if body is not None and outline[top] > 0 else None
    found = StepPlace(position=top + 1, length=len(outline), round=rounds, inner=told)
    found._loop = loops[top] if top < len(loops) else ""
    found._rounds = _rounds_of(frame)
    found._parts = outline[top] if told is not None else None
    found._noun = nouns[top] if top < len(nouns) else ""
    return found


def _rounds_of(frame: object) -> int | None:
    """How many rounds a loop frame fixed on entry: a `for` loop's count, a `forEach` loop's items; None for a
    loop that repeats until a condition or the agent says stop."""
    if not isinstance(frame, dict):
        return None
    items = frame.get("items")
    if isinstance(items, list):
        return len(items) or None
    count = _number(frame.get("count"))
    return count if count else None


def named(title: str, place: StepPlace | None) -> str:
    """A step as the dashboard names it, its name first and its place after in the one locator: "Review
    storage · step 4 of 8 · round 2 of 3", "Deploy · step 3 of 5" (StepPlace.brief; the loop's name and the part of
    the round in full_words, the tooltip); the name alone when its place is not known, the place alone
    when its name is not. The one builder of that phrase for the sessions list, the run cards, a run's pending
    line, its branches, its steps and a step's page."""
    if place is None:
        return title
    return " · ".join(part for part in (title, place.brief) if part)


def full_words(place: StepPlace | None) -> str:
    """The place in full (StepPlace.words: the locator, the part of the round, the loop named) where its short
    form, the one rows, headings and cards print, leaves something out: their tooltip; "" where the short form says
    it all."""
    if place is None or place.words == place.brief:
        return ""
    return place.words


def of_run(run: Run) -> dict[int, StepPlace]:
    """By node pk: the place of every unfinished node of `run`."""
    return _read(run.nodes.all(), lengths([run.pinned_id]))


def of_nodes(nodes: Mapping[int, Run]) -> dict[int, StepPlace]:
    """By node pk: the places of the nodes `nodes` names (each with its run), in one query."""
    if not nodes:
        return {}
    return _read(Node.objects.filter(pk__in=list(nodes)), lengths({run.pinned_id for run in nodes.values()}))


def _read(nodes: QuerySet[Node], outlines: dict[str, Outline]) -> dict[int, StepPlace]:
    # KT: the key as text (SQLite's ->>, PostgreSQL's #>>); a number in the path indexes a list. The loop frame
    # whole (KeyTransform: decoded JSON), for its count or items.
    rows = nodes.filter(is_complete=False).annotate(
        entry=KT("engine_state__cursor__position__0"),
        inner=KT("engine_state__cursor__position__1"),
        round=KT("engine_state__cursor__loops__0__iteration"),
        frame=KeyTransform("0", KeyTransform("loops", KeyTransform("cursor", "engine_state"))),
    )
    found = {}
    values = rows.values_list("pk", "entry", "inner", "round", "frame", "run__pinned_id")
    for pk, entry, inner, round_, frame, pinned in values:
        outline = outlines.get(pinned, Outline((), ()))
        where = place(entry, round_, outline.sizes, inner, loops=outline.loops, nouns=outline.nouns, frame=frame)
        if where is not None:
            found[pk] = where
    return found


class Outline(NamedTuple):
    """A pinned workflow's outline as places read it: per top-level entry the size of its loop's body (0: no
    loop), its loop's title ("" for a step) and the word for one of its rounds (noun: "" for "round")."""

    sizes: tuple[int, ...]
    loops: tuple[str, ...]
    nouns: tuple[str, ...] = ()


def lengths(hashes: Iterable[str]) -> dict[str, Outline]:
    """Each pinned workflow's outline, by hash (read once per process: store.pinned caches the workflow)."""
    return {workflow_hash: _outline(compiled_workflow(workflow_hash)) for workflow_hash in set(hashes)}


def _outline(compiled: CompiledWorkflow) -> Outline:
    sizes = engine.loop_sizes(compiled)
    steps = top_steps(compiled)
    titles = tuple(
        outline_words.title_words(str(step.get("title") or "")) if size else ""
        for step, size in zip(steps, sizes, strict=True)
    )
    return Outline(sizes, titles, tuple(noun(step) if size else "" for step, size in zip(steps, sizes, strict=True)))


def noun(step: Mapping[str, Any]) -> str:
    """What one round of the loop `step` is in its workflow's words (outline_words.loop_unit, the one reading
    the workflow page's outline uses too): "slice", "area"; "" says "round"."""
    return outline_words.loop_unit(step)


def _number(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None
