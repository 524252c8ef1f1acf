"""An artifact as sections a person reads: a hand-off's "Key decisions", "Tests added", "Files changed"
as lists, its branch name as text, never the raw JSON (which stays one click away on the node page).

Field names are the contracts' camelCase keys, said as words ("keyDecisions" -> "Key decisions"); the
artifact's own title comes from its kind by WorkRail's naming (`wr.coding_handoff` -> "Coding hand-off").
Only a value nested deeper than a list of flat objects is kept as JSON. Pure: the dashboard and the
reports show the same fields.
"""

from __future__ import annotations

import json
import re
from typing import Any

from runs.contract.dashboard import ArtifactField
from workflows_app.engine.jsontypes import JsonObject

# Keys a reader gains nothing from: the kind is the entry's title, the version the contract's own.
_LEFT_OUT = frozenset({"kind", "version"})
_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Keys whose words, said as they are, would mislead: WorkRail's hand-off calls git's branch "branchName", and on
# the dashboard "branch" alone is a branch of a run (its glossary says git's are always "git branch").
_SAID = {"branchName": "Git branch"}


def title_of(kind: str) -> str:
    """`wr.coding_handoff` -> "Coding hand-off"; `mr_review.findings` -> "Findings"; a kind without a
    namespace is said as it is."""
    name = kind.rsplit(".", 1)[-1] if "." in kind else kind
    words = name.replace("handoff", "hand-off").replace("_", " ").strip()
    return (words[:1].upper() + words[1:]) if words else kind


def label_of(key: str) -> str:
    """A field's key in words: "keyDecisions" -> "Key decisions", "files_changed" -> "Files changed"; a few as the
    dashboard says them ("branchName" -> "Git branch": _SAID)."""
    if key in _SAID:
        return _SAID[key]
    words = _WORD_START.sub(" ", key).replace("_", " ").strip().lower()
    return (words[:1].upper() + words[1:]) if words else key


def fields_of(artifact: JsonObject) -> list[ArtifactField]:
    """The fields in one order on every store: PostgreSQL's jsonb does not keep the order an agent wrote
    its keys in, so the page cannot either. Short text (a branch name, a summary) leads; lists and
    objects follow; each group by its label."""
    keys = sorted((str(key) for key in artifact if key not in _LEFT_OUT), key=lambda key: _place(key, artifact[key]))
    return [_field(key, artifact[key]) for key in keys]


def _place(key: str, value: Any) -> tuple[int, str]:
    return (1 if isinstance(value, dict | list) else 0, label_of(key))


def _field(key: str, value: Any) -> ArtifactField:
    label = label_of(key)
    if isinstance(value, list):
        if not value:
            return ArtifactField(label=label, empty=True)
        said = [_item(entry) for entry in value]
        if all(item is not None for item in said):
            return ArtifactField(label=label, items=[item for item in said if item is not None])
        return ArtifactField(label=label, json_text=_json(value))
    if isinstance(value, dict):
        flat = _flat_object(value)
        if flat is not None:
            return ArtifactField(label=label, text=flat) if flat else ArtifactField(label=label, empty=True)
        return ArtifactField(label=label, json_text=_json(value))
    text = _scalar(value)
    return ArtifactField(label=label, text=text) if text else ArtifactField(label=label, empty=True)


def _item(entry: Any) -> str | None:
    """A list entry in words: a scalar as it is, a flat object as "Label: x; other: y"; None when
    nested deeper."""
    if isinstance(entry, dict):
        return _flat_object(entry)
    if isinstance(entry, list):
        return None
    return _scalar(entry)


# A pair of keys that read as one sentence, in this order, whatever order the object keeps (friction15 23: a
# corrected assumption read "Actual: …; Assumed: …", backwards): "Assumed orders are few → actually 2 million".
_SAID_AS_ONE = (("assumed", "actual", "Assumed {} → actually {}"),)


def _flat_object(value: JsonObject) -> str | None:
    """Its keys by label, as fields_of orders fields: PostgreSQL's jsonb does not keep the agent's order. A
    pair of _SAID_AS_ONE leads, as its sentence."""
    if any(isinstance(inner, dict | list) for inner in value.values()):
        return None
    parts = []
    rest = dict(value)
    for first, second, sentence in _SAID_AS_ONE:
        if first in rest and second in rest:
            parts.append(sentence.format(_scalar(rest.pop(first)), _scalar(rest.pop(second))))
    for key, inner in sorted(rest.items(), key=lambda pair: label_of(str(pair[0]))):
        parts.append(f"{label_of(str(key))}: {_scalar(inner)}")
    return "; ".join(parts)


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).strip()


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
