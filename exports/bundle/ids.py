"""The ids inside a bundle's events: checking that each is well formed and declared before it is used,
and giving them new values on import.

Events name sessions, runs, nodes and attempts by public id. On import those ids must not reach rows
of another session of this store (the projector looks them up store-wide), so every id an event uses
must have been declared by an earlier event of the bundle itself, and the importer rewrites them all
through one `IdMap`. Each id must also be one this server could have made (`ses_`/`run_` and 16 hex
digits, as runs/store/journal.py and runs/execution/nodes.py make them; node and attempt ids positive
63-bit integers, runs/eventlog.random_id): anything else is refused before it reaches the renaming
or the store.

Session and run ids also appear inside recorded answers, syntheses, notes and warnings; those
mentions are rewritten too. A mention is a whole word: the id with no letter, digit or _ beside it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from exports.bundle.problems import BundleProblem, pointer_to

# Which fields of an event's data declare an id, and which refer to one, by id space.
_DECLARES = {
    "run_started": ("runId", "run"),
    "node_created": ("nodeId", "node"),
    "attempt_issued": ("attemptId", "attempt"),
}
_REFERENCES = {
    "runId": "run",
    "parentRunId": "run",
    "nodeId": "node",
    "parentNodeId": "node",
    "childNodeId": "node",
    "attemptId": "attempt",
}
SESSION_ID = re.compile(r"ses_[0-9a-f]{16}")
RUN_ID = re.compile(r"run_[0-9a-f]{16}")
MAX_NUMBERED_ID = 2**63 - 1  # node and attempt ids: BigIntegerField, and what tokens carry
_WORD = re.compile(r"\w")  # what \b in a regex counts as part of a word
_NUMBERED = {name: space for name, space in _REFERENCES.items() if space in ("node", "attempt")}


class IdProblem(BundleProblem):
    """An id that is malformed, used before any event declared it, or declared twice."""


def check_references(events: list[dict[str, Any]]) -> None:
    """Raises IdProblem unless every id is well formed and every id an event uses was declared by an
    earlier event of the list (a node's parent in the same run)."""
    declared: dict[str, set[Any]] = {"run": set(), "node": set(), "attempt": set()}
    node_runs: dict[Any, Any] = {}
    for index, event in enumerate(events):
        kind, data = event["kind"], event["data"]
        declaring = _DECLARES.get(kind)
        for name, space in _REFERENCES.items():
            value = data.get(name)
            if value is None:
                continue
            if not _well_formed(space, value):
                raise IdProblem(
                    f"event {event['seq']} ({kind}): {name} is {str(value)[:60]!r}, not {_FORMS[space]}",
                    pointer_to("events", index, "data", name),
                )
            if declaring is not None and declaring[0] == name:
                continue
            if value not in declared[space]:
                raise IdProblem(
                    f"event {event['seq']} ({kind}) uses {name} {value!r}, which no earlier event declares",
                    pointer_to("events", index, "data", name),
                )
        if declaring is not None:
            name, space = declaring
            value = data[name]
            if value in declared[space]:
                raise IdProblem(
                    f"event {event['seq']} ({kind}) declares {name} {value!r} a second time",
                    pointer_to("events", index, "data", name),
                )
            declared[space].add(value)
            if kind == "node_created":
                node_runs[value] = data["runId"]
                parent = data.get("parentNodeId")
                if parent is not None and node_runs.get(parent) != data["runId"]:
                    raise IdProblem(
                        f"event {event['seq']}: node {value} has a parent in another run",
                        pointer_to("events", index, "data", "parentNodeId"),
                    )


_FORMS = {
    "run": "a run id (run_ and 16 hex digits)",
    "node": "a node id (a positive 63-bit integer)",
    "attempt": "an attempt id (a positive 63-bit integer)",
}


def _well_formed(space: str, value: Any) -> bool:
    if space == "run":
        return isinstance(value, str) and RUN_ID.fullmatch(value) is not None
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_NUMBERED_ID


def declared_ids(events: list[dict[str, Any]]) -> dict[str, list[Any]]:
    ids: dict[str, list[Any]] = {"run": [], "node": [], "attempt": []}
    for event in events:
        declaring = _DECLARES.get(event["kind"])
        if declaring is not None:
            ids[declaring[1]].append(event["data"][declaring[0]])
    return ids


@dataclass
class IdMap:
    session: tuple[str, str]  # (bundle's, this store's)
    runs: dict[str, str] = field(default_factory=dict)
    nodes: dict[int, int] = field(default_factory=dict)
    attempts: dict[int, int] = field(default_factory=dict)
    session_key: str | None = None  # this store's key for the session (renamed when taken here)
    session_title: str | None = None  # this store's title for the session, when not the bundle's (a copy's)

    def events(self, events: list[dict[str, Any]], text: bytes = b"") -> list[dict[str, Any]]:
        """The events with every id rewritten (new objects; the bundle's are left as they were).

        The id fields themselves (runId, nodeId, ...) are set from the map, whatever their values.
        Mentions of session and run ids elsewhere (in recorded answers, syntheses, notes, warnings,
        and keys of recorded data) are replaced where they are whole words, for ids of the `ses_`/
        `run_` form only: an id of another form could be an ordinary word, so only its fields are
        renamed. The format's own field names never match that form, so they are never touched.
        `text` is the events' serialization, when the caller has it already (it saves encoding them)."""
        renamed = {old: new for old, new in [self.session, *self.runs.items()] if old != new}
        mentions = {old: new for old, new in renamed.items() if _is_text_id(old) and _is_text_id(new)}
        if mentions:
            serialized = text.decode() if text else json.dumps(events, ensure_ascii=False)
            copies = json.loads(_rename(serialized, mentions))
        else:
            copies = events
        return [
            {**copy, "data": self._fields(original["kind"], original["data"], copy["data"])}
            for original, copy in zip(events, copies, strict=True)
        ]

    def _fields(self, kind: str, original: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        """`data` with its id fields set from the map, looked up by their values in the bundle."""
        out = dict(data)
        for name, space in _REFERENCES.items():
            value = original.get(name)
            if value is None:
                continue
            if space == "run":
                out[name] = self.runs.get(value, value)
            else:
                out[name] = (self.nodes if space == "node" else self.attempts)[value]
        if kind == "session_created":
            if original.get("sessionId") == self.session[0]:
                out["sessionId"] = self.session[1]
            out["sessionKey"] = self.session_key
            if self.session_title is not None:
                out["title"] = self.session_title
        return out


def _is_text_id(value: str) -> bool:
    return bool(SESSION_ID.fullmatch(value) or RUN_ID.fullmatch(value))


def _rename(text: str, renamed: dict[str, str]) -> str:
    """`text`, a JSON serialization, with every whole-word mention of an old id (`ses_`/`run_` form)
    replaced by its new one (the same form, so no JSON escaping is needed). One scan for the ids' tail
    (`_` and 16 hex digits: a literal start, which the regex engine finds fast), whatever the number of
    ids: a session's text holds tens of thousands of mentions (each event names its run).

    A mention must be a whole word of the string it is in, not only of the text: the character before
    it in the text may end an escape (the n of \\n, a hex digit of \\u001f, a backslash), and then
    the text alone cannot tell; those rare texts are parsed and each string renamed on its own."""
    pieces: list[str] = []
    done = 0
    for match in _ID_TAIL.finditer(text):
        start, end = match.start() - 3, match.end()
        new = renamed.get(text[start:end]) if start >= 0 else None
        if new is None or (end < len(text) and _WORD.match(text, end)):
            continue
        before = text[start - 1] if start > 0 else " "
        if before in _ESCAPE_ENDS:
            return json.dumps(_rename_strings(json.loads(text), renamed), ensure_ascii=False)
        if _WORD.match(before):
            continue
        pieces += [text[done:start], new]
        done = end
    return "".join([*pieces, text[done:]]) if pieces else text


_ID_TAIL = re.compile(r"_[0-9a-f]{16}")  # the last 17 characters of a ses_/run_ id
_MENTION = re.compile(r"(?<!\w)(?:ses|run)_[0-9a-f]{16}(?!\w)")
# What may end a JSON escape sequence (\n, \u001f, \\): before an id in the text, the string may hold a
# newline, a control character or a backslash there (the id is a whole word), or a letter or digit (not).
_ESCAPE_ENDS = frozenset("\\bfnrt0123456789abcdefABCDEF")


def _rename_strings(value: Any, renamed: dict[str, str]) -> Any:
    """`value` with the whole-word mentions of old ids in its strings (keys too) replaced."""

    def rename(text: str) -> str:
        return _MENTION.sub(lambda match: renamed.get(match.group(0), match.group(0)), text) if "_" in text else text

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return rename(item)
        if isinstance(item, list):
            return [walk(child) for child in item]
        if isinstance(item, dict):
            return {rename(key): walk(child) for key, child in item.items()}
        return item

    return walk(value)
