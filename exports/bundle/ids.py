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
_TEXT_IDS = re.compile(r"\b(?:run|ses)_[0-9a-f]{16}\b")
_NESTED_JSON_TEXT = ("response",)  # data fields holding an answer as JSON text
_NESTED_VALUES = ("synthesis",)


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

    def _space(self, space: str) -> dict[Any, Any]:
        spaces: dict[str, dict[Any, Any]] = {"run": self.runs, "node": self.nodes, "attempt": self.attempts}
        return spaces[space]

    def event_data(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        """The event's data with every id rewritten (a new dict; the bundle's is left as it was)."""
        out = {key: self._value(value, key) for key, value in data.items()}
        for name, space in _REFERENCES.items():
            if out.get(name) is not None:
                out[name] = self._space(space)[data[name]]
        if kind == "session_created":
            out["sessionId"] = self.session[1]
            out["sessionKey"] = self.session_key
        for name in _NESTED_JSON_TEXT:
            if isinstance(data.get(name), str):
                out[name] = json.dumps(self._value(json.loads(data[name]), name), ensure_ascii=False)
        for name in _NESTED_VALUES:
            if name in data:
                out[name] = self._value(data[name], name)
        return out

    def _value(self, value: Any, key: str | None) -> Any:
        if isinstance(value, dict):
            return {k: self._value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._value(v, key) for v in value]
        if isinstance(value, str):
            return _TEXT_IDS.sub(self._text_id, value)
        if isinstance(value, int) and not isinstance(value, bool) and key in ("nodeId", "parentNodeId", "childNodeId"):
            return self.nodes.get(value, value)
        return value

    def _text_id(self, match: re.Match[str]) -> str:
        text = match.group(0)
        if text == self.session[0]:
            return self.session[1]
        return self.runs.get(text, text)
