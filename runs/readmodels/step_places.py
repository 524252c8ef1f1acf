"""Where each node's pending step sits in its workflow's outline, said one way after the step's name on every view
(list rows, headings, graph cards, branch lines, the timeline, the step's page: StepPlace.brief): "step 3 of 7",
and inside a loop the loop's entry, lettered by the step's place in the loop's body when the body holds more than
one step, then, in brackets, its round: "step 3b of 7 (round 2 of 4)", "step 4a of 8 (area 2 of 2)" when a
`forEach` loop declares its item (`noun`), "(area 2 of 2: api)" when the step's title does not name the item it is
on (`item`); the loop's name in their tooltip (StepPlace.words); a graph card says the same, the round's total
dropped when it must be shorter, never the step's (StepPlace.short). One format from one function.

Letters, not "part 2 of 2" (friction60a 4, 60b 2: needed the glossary) nor nothing (friction61a 6, 61b 1: "Verify
slice 1" and "Record what the slice showed" both read "step 2 of 3 (round 1 of 3)"), nor "step 2.2 of 3" (read as a
version number, friction24a 10). A round has one format wherever it is named: "round 126 of 150", or "round 126"
when the loop's length is open (a `while` or `until` loop). The workflow page's outline numbers a loop's steps as
an outline does, "2.1", "2.2" under the loop's entry 2 (dashboard/_outline.html), never "of 3".

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
from workflows_app.conditions import lookup
from workflows_app.engine.model import CompiledWorkflow
from workflows_app.engine.templating import placeholders, render
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
    items_titled: tuple[tuple[bool, ...], ...] = (),
) -> StepPlace | None:
    """The place of a pending step at top-level index `entry` (0-based, as the cursor holds it) of an
    outline whose entries' loops hold `outline[i]` steps (0: no loop), in round `round_` of its loop, at
    index `inner` of that loop's steps (1 for a loop of one step, as the outline numbers it); None at completion
    (the cursor stands one past the last entry) or for anything the cursor does not hold. `loops`: each entry's
    loop title ("" for a step); `nouns`: each entry's loop item word (noun: "" for none); `frame`: the cursor's
    outermost loop frame, whose `count` or `items` say how many rounds the loop runs; `items_titled`: per entry,
    whether each step of its loop's body names the loop's item in its title (the place then leaves it out)."""
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
    found._parts = outline[top]
    found._noun = nouns[top] if top < len(nouns) else ""
    titled = items_titled[top] if top < len(items_titled) else ()
    said = body is not None and 0 <= body < len(titled) and titled[body]
    found._item = "" if said else item(frame, rounds)
    return found


ITEM_CHARS = (
    24  # an item said after its round ("area 2 of 2: api") at most this long: a phone's label keeps to two lines
)


def item(frame: object, round_: int) -> str:
    """The item a `forEach` loop frame is on in round `round_`, as its place says it after the round: a short
    one-line text ("api"); "" for a longer one, a list or an object (the step's page shows those whole)."""
    items = frame.get("items") if isinstance(frame, dict) else None
    if not isinstance(items, list) or not 0 < round_ <= len(items):
        return ""
    value = items[round_ - 1]
    if not isinstance(value, str) or not value.strip() or len(value) > ITEM_CHARS or "\n" in value:
        return ""
    return value.strip()


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


class Ahead(NamedTuple):
    """A step not reached yet as a run's progress names it (`ahead`)."""

    title: str  # as the rows will name it: a loop's items said ("Review storage, api"), else the loop's title
    words: str  # its place: "step 4 of 8 (each area)"
    condition: str = ""  # when it runs, in the catalog's words ("complexity is 'complex'"); "" when always


ITEMS_LISTED = 4  # a loop of more items says "each area" instead: a chip keeps to one line or two


def ahead(step: Mapping[str, Any], position: int, length: int, context: Mapping[str, Any] | None = None) -> list[Ahead]:
    """An outline entry not reached yet, as a run's progress shows it greyed: one per step it holds. A loop is its
    body's steps, each titled and placed as the rows will name it once reached ("step 4 of 8 (each area)"; "step
    2a of 3 (each slice)", "step 2b of 3 (each slice)"), not the loop's own title (friction61a 6: "Review Each Focus
    Area" in the progress bar, "Review api · step 4 of 8 (area 1 of 2)" in the rows). A title that names the loop's
    item says its items when `context` (the run's newest) holds them, "Review storage, api", else the loop's own title
    as the outline says it, "Review Each Focus Area" (friction63a 10), never the workflow file's "Review [area]"
    only its page explains (friction62a 2, 62b 15). A step that
    runs only under a condition says it (friction62b 15: it read as a step that will happen)."""
    title = str(step.get("title") or step.get("id") or "")
    body = step.get("body")
    loop = step.get("loop")
    if not isinstance(loop, Mapping) or not isinstance(body, list) or not body:
        return [Ahead(title, f"step {position} of {length}", _condition(step))]
    unit = noun(step) or "round"
    each = f"(each {unit})"
    said = []
    for inner, part in enumerate(body, start=1):
        where = StepPlace(position=position, length=length, inner=inner)
        where._parts = len(body)
        part = part if isinstance(part, Mapping) else {}
        name = str(part.get("title") or part.get("id") or "")
        filled, said_each = _item_said(name, loop, context or {}, unit)
        # Its items not known yet: the loop's own title, as the workflow's outline names it (friction63a 10, 63b 12:
        # "Review Each Focus Area" there, "Review each area" here), which says what it repeats for: no "(each area)".
        if said_each:
            filled = title or filled
        said.append(
            Ahead(filled or title, where.step_words if said_each else f"{where.step_words} {each}", _condition(part))
        )
    return said


def _condition(step: Mapping[str, Any]) -> str:
    condition = step.get("runCondition")
    return outline_words.condition_words(condition) if isinstance(condition, Mapping) and condition else ""


def _item_said(title: str, loop: Mapping[str, Any], context: Mapping[str, Any], unit: str) -> tuple[str, bool]:
    """`title` with the loop's item placeholder said, and whether it says "each ...": its items when the context
    holds a short list of short texts, else "each <unit>"; the title as it is when it names anything else."""
    var = str(loop.get("itemVar") or "")
    names = placeholders(title)
    if not var or not names or any(name != var for name in names):
        return title, False
    items = lookup(context, loop["items"]) if isinstance(loop.get("items"), str) else None
    if (
        isinstance(items, list)
        and 0 < len(items) <= ITEMS_LISTED
        and all(isinstance(one, str) and one.strip() and len(one) <= ITEM_CHARS and "\n" not in one for one in items)
    ):
        return render(title, {var: ", ".join(one.strip() for one in items)}), False
    return render(title, {var: f"each {'item' if unit == 'round' else unit}"}), True


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
        where = place(
            entry,
            round_,
            outline.sizes,
            inner,
            loops=outline.loops,
            nouns=outline.nouns,
            frame=frame,
            items_titled=outline.items_titled,
        )
        if where is not None:
            found[pk] = where
    return found


class Outline(NamedTuple):
    """A pinned workflow's outline as places read it: per top-level entry the size of its loop's body (0: no
    loop), its loop's title ("" for a step), the word for one of its rounds (noun: "" for "round") and whether each
    step of its loop's body names the loop's item in its title (`{{area}}` in "Review {{area}}")."""

    sizes: tuple[int, ...]
    loops: tuple[str, ...]
    nouns: tuple[str, ...] = ()
    items_titled: tuple[tuple[bool, ...], ...] = ()


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
    nouns = tuple(noun(step) if size else "" for step, size in zip(steps, sizes, strict=True))
    return Outline(sizes, titles, nouns, tuple(_items_titled(step) for step in steps))


def _items_titled(step: Mapping[str, Any]) -> tuple[bool, ...]:
    """For each step of a `forEach` loop's body, whether its title's placeholders read the loop's item variable
    (the compiled step's `itemVar`, read from its placeholders, never from the title's words); () off such a loop."""
    loop = step.get("loop")
    body = step.get("body")
    if not isinstance(loop, Mapping) or not isinstance(body, list):
        return ()
    var = str(loop.get("itemVar") or "currentItem")
    return tuple(
        any(
            name == var or name.startswith((f"{var}.", f"{var}["))
            for name in placeholders(str(inner.get("title") or ""))
        )
        if isinstance(inner, Mapping)
        else False
        for inner in body
    )


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
