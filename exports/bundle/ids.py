"""The ids inside a bundle's events: checking that every id is declared before it is used, and giving
them new values on import.

Events name sessions, runs, nodes and attempts by public id. On import those ids must not reach rows
of another session of this store (the projector looks them up store-wide), so every id an event uses
must have been declared by an earlier event of the bundle itself, and the importer rewrites them all
through one `IdMap`. Ids also appear inside recorded answers and syntheses (`runId`, `nodeId` fields,
and run ids in text), which are rewritten the same way.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

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
_WORD = re.compile(r"\w")  # what \b in a regex counts as part of a word
_NUMBERED = {name: space for name, space in _REFERENCES.items() if space in ("node", "attempt")}


class IdProblem(ValueError):
    """An event uses an id no earlier event declared, or declares one twice."""


def check_references(events: list[dict[str, Any]]) -> None:
    """Raises IdProblem unless every id an event uses was declared by an earlier event of the list."""
    declared: dict[str, set[Any]] = {"run": set(), "node": set(), "attempt": set()}
    node_runs: dict[Any, Any] = {}
    for event in events:
        kind, data = event["kind"], event["data"]
        declaring = _DECLARES.get(kind)
        for name, space in _REFERENCES.items():
            value = data.get(name)
            if value is None or (declaring is not None and declaring[0] == name):
                continue
            if value not in declared[space]:
                raise IdProblem(f"event {event['seq']} ({kind}) uses {name} {value!r}, which no earlier event declares")
        if declaring is not None:
            name, space = declaring
            value = data[name]
            if value in declared[space]:
                raise IdProblem(f"event {event['seq']} ({kind}) declares {name} {value!r} a second time")
            declared[space].add(value)
            if kind == "node_created":
                node_runs[value] = data["runId"]
                parent = data.get("parentNodeId")
                if parent is not None and node_runs.get(parent) != data["runId"]:
                    raise IdProblem(f"event {event['seq']}: node {value} has a parent in another run")


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

    def events(self, events: list[dict[str, Any]], text: bytes = b"") -> list[dict[str, Any]]:
        """The events with every id rewritten (new objects; the bundle's are left as they were).

        Session and run ids are text (`ses_…`, `run_…`) and also appear inside recorded answers,
        syntheses and warnings: they are replaced wherever they appear, in one pass over the events'
        serialized text (`text`, when the caller has it already). Node and attempt ids are integers
        and appear only in the events' own fields."""
        renamed = {old: new for old, new in [self.session, *self.runs.items()] if old != new}
        if renamed:
            serialized = text.decode() if text else json.dumps(events, ensure_ascii=False)
            events = json.loads(_rename(serialized, renamed))
        return [{**event, "data": self._numbers(event["kind"], event["data"])} for event in events]

    def _numbers(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        out = dict(data)
        for name, space in _NUMBERED.items():
            if out.get(name) is not None:
                out[name] = (self.nodes if space == "node" else self.attempts)[out[name]]
        if kind == "session_created":
            out["sessionKey"] = self.session_key
        return out


def _rename(text: str, renamed: dict[str, str]) -> str:
    """`text` with every whole-word occurrence of an old id replaced by its new one. A session's text
    holds tens of thousands of them (each event names its run): plain replacing, done in C, when every
    occurrence is a whole word and no new id is an old one; otherwise one regex pass with a callback."""
    if not set(renamed.values()) & set(renamed) and all(_only_whole_words(text, old) for old in renamed):
        for old, new in renamed.items():
            text = text.replace(old, new)
        return text
    whole = re.compile(r"\b(?:" + "|".join(map(re.escape, renamed)) + r")\b")
    return whole.sub(lambda match: renamed[match.group(0)], text)


def _only_whole_words(text: str, word: str) -> bool:
    """Whether every occurrence of `word` in `text` stands alone (no letter, digit or _ beside it)."""
    at = text.find(word)
    while at != -1:
        end = at + len(word)
        if (at > 0 and _WORD.match(text, at - 1)) or (end < len(text) and _WORD.match(text, end)):
            return False
        at = text.find(word, end)
    return True
