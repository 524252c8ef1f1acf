"""Editing an exported bundle as a user could (docs/sharing.md): change the document, then recompute
what can be recomputed from it (the graph index and the manifest's digests), so that only the
checks of what the bundle says can refuse it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from exports.bundle import document as fmt
from exports.bundle.graph_index import graph_index
from workflows_app.hashing import workflow_hash

Document = dict[str, Any]


def forged(data: bytes, change: Callable[[Document], Any]) -> bytes:
    """The bundle after `change(document)`, with its graph index and manifest made to match again."""
    document = json.loads(data)
    change(document)
    return resealed(document)


def resealed(document: Document) -> bytes:
    document["graph"] = graph_index(document["events"])
    document.pop(fmt.MANIFEST, None)
    document[fmt.MANIFEST] = fmt.manifest_for(document)
    return fmt.dumps(document)


def events_of(document: Document, kind: str) -> list[dict[str, Any]]:
    return [event for event in document["events"] if event["kind"] == kind]


def append_event(document: Document, kind: str, data: dict[str, Any]) -> None:
    """A new last event, at the time of the last one (so the session's last activity stays the same)."""
    last = document["events"][-1]
    document["events"].append({"seq": last["seq"] + 1, "kind": kind, "at": last["at"], "data": data})


def rename_run(document: Document, old: str, new: str) -> None:
    """Every mention of run id `old` in the events replaced by `new` (whatever `new` is)."""
    text = json.dumps(document["events"]).replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
    document["events"] = json.loads(text)


def repin(document: Document, index: int, compiled: Any) -> None:
    """Workflow `index` replaced by `compiled`, under its new hash, and the runs pinned to it moved too."""
    workflow = document["workflows"][index]
    old, new = workflow["workflowHash"], workflow_hash(compiled)
    workflow.update(workflowHash=new, compiled=compiled)
    for event in events_of(document, "run_started"):
        if event["data"]["workflowHash"] == old:
            event["data"]["workflowHash"] = new
    document["workflows"].sort(key=lambda w: w["workflowHash"])


def replaced_bytes(data: bytes, old: bytes, new: bytes) -> bytes:
    """`data` with its first `old` replaced by `new`, as a text editor would (nothing recomputed)."""
    assert old in data, old
    return data.replace(old, new, 1)
