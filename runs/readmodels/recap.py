"""Recaps: the durable notes an agent lost when its chat was rewound, within a byte budget, and the
pages of every note on a path for when the recap left some out.

Entries are outputs (notes and artifact kinds) of acknowledged steps and checkpoints. Each has a
position on its path: 1 for the first entry after the run's start, and so on (the position is the
`notes_on_path` of the node it led to, so it never changes once recorded).

A recap over budget keeps the first entry of the path (the intake: ticket, criteria, baseline), the
entries that set what the pending step works through (the plan a slice loop goes through: found from
the workflow's structure, engine/sources.py, and the path's recorded context, `sources`), and the
newest entries that fit, and drops the rest. It says which positions it left out and the exact
resource URI that pages through them (`workrail://runs/{runId}/notes?stateToken=...&cursor=N`).

The newest entries are read with one recursive query bounded by MAX_ENTRIES hops; the first entry,
when it is further up, and a page of notes are read by walking up the path only as far as the
position they start at.

A recap is measured in bytes of its JSON, so it is built as its JSON (runs/readmodels/shapes.py: the
shapes an agent reads; runs/contract/execution.py's Recap validates them in an execution answer, the
run resource and the dashboard's node page pass them on as they are).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, cast
from urllib.parse import urlencode

from django.conf import settings
from django.db import connection

from runs.models import Checkpoint, Node, Output
from runs.readmodels.shapes import Recap, RecapEntry, RecapGap
from runs.store import tokens
from runs.store.statements import SelectOne
from runs.store.tokens import TokenKind
from workflows_app.engine.sources import Source

RECAP_BUDGET_BYTES = 8 * 1024
MAX_ENTRIES = 64
HEAD_SHARE = 2  # the first entry takes at most 1/HEAD_SHARE of the budget; longer notes are cut
PAGE_ENTRIES = 20  # a page of notes holds at most this many entries ...
PAGE_BYTES = 64 * 1024  # ... and at most this many bytes of JSON (but always at least one entry)
NOTES_URI = "workrail://runs/{runId}/notes"
CUT_MARK = " …[cut: read this entry in full with the notes resource]"


@dataclass(frozen=True)
class NotesPage:
    """A page of the notes on a path, and the position the next page starts at (None: the last page)."""

    entries: list[RecapEntry]
    total_entries: int
    next_cursor: int | None


def _entry(
    kind: Literal["step", "checkpoint"],
    step_id: str,
    title: str,
    notes: str,
    artifacts: list[Any],
    position: int,
) -> RecapEntry:
    item: RecapEntry = {
        "kind": kind,
        "stepId": step_id,
        "title": title,
        "notesMarkdown": notes,
        "artifactKinds": [a.get("kind") for a in artifacts if isinstance(a, dict)],
        "position": position,
    }
    return item


def _size(item: RecapEntry) -> int:
    return len(json.dumps(item, ensure_ascii=False).encode())


def _cut_to(item: RecapEntry, budget: int) -> RecapEntry:
    """`item` with its notes cut so that its JSON fits in `budget` bytes (when it does not already)."""
    if _size(item) <= budget:
        return item
    notes = item["notesMarkdown"]
    room = max(0, budget - _size({**item, "notesMarkdown": CUT_MARK}))
    text = notes.encode()[:room].decode(errors="ignore")
    while text and _size({**item, "notesMarkdown": text + CUT_MARK}) > budget:
        text = text[: -max(1, len(text) // 20)]
    return {**item, "notesMarkdown": text + CUT_MARK}


def notes_uri(run_id: str, state_token: str | None = None, cursor: int | None = None) -> str:
    """The resource that pages through the notes on the path to the node of `state_token`."""
    query = {key: value for key, value in (("stateToken", state_token), ("cursor", cursor)) if value is not None}
    base = NOTES_URI.format(runId=run_id)
    return f"{base}?{urlencode(query)}" if query else base


def fit(
    newest_first: list[RecapEntry],
    total: int | None,
    *,
    head: RecapEntry | None = None,
    pinned: list[RecapEntry] | None = None,
    node: Node | None = None,
    lowest: int = 1,
    budget: int | None = None,
) -> Recap:
    """The recap: `head` (the first entry of the path, when given) and the newest entries that fit in
    the byte budget, in path order. The head takes at most 1/HEAD_SHARE of the budget, then `pinned`
    (the entries that set what the pending step works through, each with its keptBecause) at most half
    of what is left, and the newest entry is always kept (each cut to fit when it is longer). `total`
    counts every entry from position `lowest` on (None when not known); `node` is where the path ends,
    to name the resource that pages what was left out. `budget` is in bytes of the entries' JSON
    (RECAP_BUDGET_BYTES without it)."""
    budget = RECAP_BUDGET_BYTES if budget is None else budget
    used = 0
    kept_head: list[RecapEntry] = []
    if head is not None:
        kept_head.append(_cut_to(head, budget // HEAD_SHARE))
        used += _size(kept_head[0])
    held = {e["position"] for e in kept_head if "position" in e}
    for item in pinned or []:
        if item.get("position") in held:
            continue
        room = (budget - used) // 2 // max(1, len(pinned or []))
        kept_head.append(_cut_to(item, room))
        used += _size(kept_head[-1])
        held.add(item.get("position", -1))
    kept: list[RecapEntry] = []
    for item in (item for item in newest_first if item.get("position") not in held):
        if not kept:
            item = _cut_to(item, budget - used)
        size = _size(item)
        if kept and used + size > budget:
            break
        kept.append(item)
        used += size
    kept.reverse()
    entries = sorted(kept_head + kept, key=lambda e: e.get("position", 0))
    omitted = None if total is None else max(0, total - len(entries))
    also = ", the entries that set what the pending step works through" if pinned else ""
    recap: Recap = {
        "entries": entries,
        "truncated": omitted is None or omitted > 0 or any(CUT_MARK in e["notesMarkdown"] for e in entries),
        "omittedEntries": omitted,
        "policy": f"kept the first entry (the intake){also} and the most recent entries that fit in {budget} "
        "bytes, in path order",
    }
    if total is not None:
        recap["totalEntries"] = total
    if recap["truncated"] and node is not None:
        recap["omitted"] = _gap(entries, lowest, node)
    return recap


def _gap(entries: list[RecapEntry], lowest: int, node: Node) -> RecapGap:
    """Which positions the recap left out (the first hole after the kept head), and how to read them.
    When nothing is left out but a long entry was cut, the page starts at the first entry."""
    positions = sorted(e["position"] for e in entries if "position" in e)
    start = lowest
    for position in positions:
        if position != start:
            break
        start += 1
    later = [p for p in positions if p > start]
    end = (later[0] - 1) if later else node.notes_on_path
    if start > end:  # nothing left out: only cut
        start, end = lowest, node.notes_on_path
    token = tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, node.public_id)
    uri = notes_uri(node.run.public_id, token, start)
    return {
        "fromPosition": start,
        "toPosition": end,
        "uri": uri,
        "howToRead": f"read the resource {uri}: its pages run in path order from entry {start}, at most "
        f"{PAGE_ENTRIES} entries each, and each names the next",
    }


# Each entry's content comes with its row (the step's notes and artifacts, or the checkpoint's with its
# node's step), so a recap is one query, not one for the path and one per kind of entry.
_ENTRIES = """
SELECT 'o', a.notes_on_path, o.step_id, o.step_title, o.notes_markdown, o.artifacts, a.id
FROM runs_output o JOIN ancestors a ON o.child_id = a.id {where}
UNION ALL
SELECT 'c', a.notes_on_path, COALESCE(n.pending_step_id, ''), '', c.notes_markdown, c.artifacts, a.id
FROM runs_checkpoint c JOIN ancestors a ON c.child_id = a.id LEFT JOIN runs_node n ON n.id = c.node_id {where}
ORDER BY 2 DESC
"""

# The path up from a node (first parameter), at most so many hops (second): each ancestor with its distance.
_ANCESTORS_BY_HOPS = """
WITH RECURSIVE ancestors(id, parent_id, notes_on_path, hops) AS (
    SELECT id, parent_id, notes_on_path, 0 FROM runs_node WHERE id = %s
    UNION ALL
    SELECT n.id, n.parent_id, n.notes_on_path, a.hops + 1 FROM runs_node n JOIN ancestors a ON n.id = a.parent_id
    WHERE a.hops < %s
)"""

_NEWEST = _ANCESTORS_BY_HOPS + _ENTRIES.format(where="")

# Up the path only while the entries above can still be at `first` or later: the walk stops at the
# node whose notes_on_path is below `first`.
_SPAN = """
WITH RECURSIVE ancestors(id, parent_id, notes_on_path) AS (
    SELECT id, parent_id, notes_on_path FROM runs_node WHERE id = %s
    UNION ALL
    SELECT n.id, n.parent_id, n.notes_on_path FROM runs_node n JOIN ancestors a ON n.id = a.parent_id
    WHERE a.notes_on_path >= %s
)""" + _ENTRIES.format(where="WHERE a.notes_on_path BETWEEN %s AND %s")


_OUTPUT_ARTIFACTS = Output._meta.get_field("artifacts")
_CHECKPOINT_ARTIFACTS = Checkpoint._meta.get_field("artifacts")


def _decoded(field: Any, value: Any) -> list[Any]:
    """A JSON column a raw query read, decoded as the ORM decodes it (both SQLite and PostgreSQL hand
    Django the JSON's text). `None` for the expression: a plain column, not a key of one."""
    return cast(list[Any], field.from_db_value(value, None, connection))


def _query(sql: str, params: list[int]) -> list[RecapEntry]:
    """Recap entries of the rows of `sql` (see _ENTRIES), in the rows' order."""
    return [placed.entry for placed in _placed(sql, params)]


def _placed(sql: str, params: list[int]) -> list[PlacedEntry]:
    """The rows of `sql` (see _ENTRIES) as entries with their nodes, in the rows' order."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    entries: list[PlacedEntry] = []
    for kind, position, step_id, title, notes, artifacts, node_pk in rows:
        if kind == "o":
            stored = _decoded(_OUTPUT_ARTIFACTS, artifacts)
            entries.append(PlacedEntry(node_pk, _entry("step", step_id, title, notes, stored, position)))
        else:
            stored = _decoded(_CHECKPOINT_ARTIFACTS, artifacts)
            entries.append(PlacedEntry(node_pk, _entry("checkpoint", step_id, "Checkpoint", notes, stored, position)))
    return entries


def newest_entries(node: Node, *, lowest: int = 1) -> list[RecapEntry]:
    """The entries of the last MAX_ENTRIES hops of the path to `node` at position `lowest` or later,
    newest first."""
    if node.notes_on_path < lowest:  # every entry on the path is at or above its node's notes_on_path
        return []
    return [placed.entry for placed in newest_placed(node) if placed.entry["position"] >= lowest]


@dataclass(frozen=True)
class PlacedEntry:
    """A recap entry with the node it led to (its step's or checkpoint's child): which step of a page it is,
    said by id (the entry's own JSON, which agents read, does not carry it)."""

    node_pk: int
    entry: RecapEntry


def newest_placed(node: Node) -> list[PlacedEntry]:
    """The entries of the last MAX_ENTRIES hops of the path to `node`, newest first, each with its node."""
    if node.notes_on_path < 1:
        return []
    return _placed(_NEWEST, [node.pk, MAX_ENTRIES])


def span_entries(node: Node, first: int, last: int) -> list[RecapEntry]:
    """The entries at positions `first` to `last` of the path to `node`, in path order."""
    if last < first or first > node.notes_on_path:
        return []
    return _query(_SPAN, [node.pk, first, first, last, first, last])[::-1]


def path_recap(node: Node, *, budget: int | None = None, sources: list[Source] | None = None) -> Recap:
    """Notes recorded on the way from the run's start to `node`: the first, those that set the context
    values in `sources` (what the pending step works through), and the newest."""
    pinned: list[RecapEntry] = []
    for position, source in setting_entries(node, sources or []).items():
        for item in span_entries(node, position, position):
            kept: RecapEntry = {**item, "keptBecause": f"it set {source.var}, {source.why}"}
            pinned.append(kept)
    return _recap(node, lowest=1, total=node.notes_on_path, budget=budget, pinned=pinned)


_PATH_UP = (
    _ANCESTORS_BY_HOPS
    + """
SELECT id, notes_on_path FROM ancestors ORDER BY hops
"""
)
SOURCE_HOPS = 1024  # how far up the path the step that set a value is looked for
SOURCE_CHUNK = 64  # nodes whose recorded value is read at once, from the tip up


def setting_entries(node: Node, sources: list[Source]) -> dict[int, Source]:
    """The path position of the entry whose step set each source's value as `node` holds it now: going
    up from `node`, the last node that holds that value, when an entry led into it. A value given at the
    start, or not set, has none."""
    context = node.engine_state.get("context") or {}
    wanted = [source for source in sources if source.var in context and source.var.isidentifier()]
    if not wanted:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_PATH_UP, [node.pk, SOURCE_HOPS])
        path: list[tuple[int, int]] = cursor.fetchall()  # (id, notes_on_path), from node up to the root
    found: dict[int, Source] = {}
    for source in wanted:
        position = _set_at(path, source.var, context[source.var])
        if position is not None:
            found.setdefault(position, source)
    return found


def _set_at(path: list[tuple[int, int]], var: str, value: Any) -> int | None:
    for start in range(0, len(path), SOURCE_CHUNK):
        chunk = path[start : start + SOURCE_CHUNK]
        held = dict(
            Node.objects.filter(pk__in=[pk for pk, _ in chunk]).values_list("pk", f"engine_state__context__{var}")
        )
        for offset, (pk, _notes) in enumerate(chunk):
            if held.get(pk) == value:
                continue
            index = start + offset  # the first node up the path that holds another value (or none)
            if index == 0:
                return None
            setter, before = path[index - 1], path[index]
            return setter[1] if setter[1] == before[1] + 1 else None
    return None  # held since the start


def _recap(
    node: Node,
    *,
    lowest: int,
    total: int,
    budget: int | None = None,
    pinned: list[RecapEntry] | None = None,
) -> Recap:
    newest = newest_entries(node, lowest=lowest)
    head = None
    if newest and newest[-1].get("position") == lowest:
        head, newest = newest[-1], newest[:-1]
    elif total > 0:  # the first entry is further up than the newest ones read
        found = span_entries(node, lowest, lowest)
        head = found[0] if found else None
    return fit(newest, total, head=head, pinned=pinned, node=node, lowest=lowest, budget=budget)


_LATEST_CHAIN = """
WITH RECURSIVE chain(id, latest_child_id, hops) AS (
    SELECT id, latest_child_id, 0 FROM runs_node WHERE id = %s
    UNION ALL
    SELECT n.id, n.latest_child_id, c.hops + 1 FROM runs_node n JOIN chain c ON n.id = c.latest_child_id
)
SELECT id FROM chain ORDER BY hops DESC LIMIT 1
"""


def branch_tip(first: Node) -> Node:
    """Where the branch that starts at `first` stands now: down its latest children to the end."""
    if first.latest_child_id is None:
        return first
    with connection.cursor() as cursor:
        cursor.execute(_LATEST_CHAIN, [first.pk])
        (tip_id,) = cursor.fetchone()
    tip = _node_with_run.get(tip_id)
    assert tip is not None, "the chain's last node exists"
    return tip


_node_with_run = SelectOne(lambda pk: Node.objects.select_related("run").filter(pk=pk))


def downstream_recap(parent: Node, tip: Node) -> Recap:
    """Notes along a branch below `parent`, down to the branch's tip `tip` (branch_tip of the
    branch's first node): its first entry and the newest."""
    above = parent.notes_on_path
    return _recap(tip, lowest=above + 1, total=tip.notes_on_path - above)


def notes_page(node: Node, cursor: int) -> NotesPage:
    """One page of the notes on the path to `node`, in path order from position `cursor`: at most
    PAGE_ENTRIES entries and PAGE_BYTES bytes (at least one entry), and where the next page starts."""
    total = node.notes_on_path
    entries = span_entries(node, cursor, cursor + PAGE_ENTRIES - 1)
    page: list[RecapEntry] = []
    used = 0
    for item in entries:
        size = _size(item)
        if page and used + size > PAGE_BYTES:
            break
        page.append(item)
        used += size
    following = (page[-1]["position"] + 1) if page else cursor
    return NotesPage(entries=page, total_entries=total, next_cursor=following if following <= total else None)
