"""Writing a session's bundle: its event log (sharing records aside), the workflows its runs are pinned
to, a summary of the session, the graph index and the manifest, in the one serialization of
`document.py`. Tokens and keys are never written: the log holds none but inside recorded answers and
whatever an agent pasted into its notes, and those are replaced by a marker (tokens are re-minted
from the imported nodes, so nothing needs them)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from exports.bundle import document as fmt
from exports.bundle.graph_index import graph_index
from runs.models import Event, PinnedWorkflow, Session
from runs.store.events import SHARING_KINDS
from runs.store.tokens import VERSION as TOKEN_VERSION
from runs.store.tokens import TokenKind
from workrail_site.version import VERSION

PRODUCER = {"name": "WorkRail for Python", "version": VERSION}
TOKEN_MARKER = "[token not exported]"
# The tail of a token as runs/store/tokens.py writes them (st1_, ak1_, ss1_ + 24 base64url characters), found
# by its literal version and underscore: Python's regex engine searches a literal start with a fast
# scan, five times faster on a large bundle than a pattern that opens with a lookbehind. The kind
# before it, and no token character before that, are checked for each hit.
_TOKEN_TAIL = re.compile(rb"%d_[A-Za-z0-9_-]{24}(?![A-Za-z0-9_-])" % TOKEN_VERSION)
_KINDS = {kind.value.encode() for kind in TokenKind}
_TOKEN_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def export_bundle(session: Session, progress: Callable[[int, int], None] | None = None) -> bytes:
    """The bundle of `session`, as bytes. `progress` is told (events read, events in all) now and then.

    Consistent without holding a lock: the session row is read once, and its summary (status, counts)
    is written in the same transaction as the events it sums up, so the events up to its last_seq are
    exactly what that summary describes, whatever an agent writes meanwhile."""
    session = Session.objects.get(pk=session.pk)
    events = _events(session, progress)
    hashes = sorted({event["data"]["workflowHash"] for event in events if event["kind"] == "run_started"})
    pinned = {p.workflow_hash: p for p in PinnedWorkflow.objects.filter(workflow_hash__in=hashes)}
    workflows = [
        {"workflowHash": h, "workflowId": pinned[h].workflow_id, "compiled": pinned[h].compiled} for h in hashes
    ]
    sections = {
        "bundleSchemaVersion": fmt.serialize(fmt.BUNDLE_SCHEMA_VERSION),
        "kind": fmt.serialize(fmt.BUNDLE_KIND),
        "producer": fmt.serialize(PRODUCER),
        # What an agent wrote can hold tokens anywhere; they are masked in the serialized text (a token
        # has no character JSON escapes, so it is spelt the same there), once per section. The pinned
        # workflows are authored files, hashed as they are: they are not masked.
        "session": _without_tokens(fmt.serialize(session_section(session, events))),
        "graph": _without_tokens(fmt.serialize(graph_index(events))),
        "events": _without_tokens(fmt.serialize(events)),
        "workflows": fmt.serialize(workflows),
    }
    sections[fmt.MANIFEST] = fmt.serialize(fmt.manifest_from(sections, len(events), len(workflows)))
    return fmt.assemble(sections)


def _events(session: Session, progress: Callable[[int, int], None] | None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    rows = (
        Event.objects.filter(session=session, seq__lte=session.last_seq).exclude(kind__in=SHARING_KINDS).order_by("seq")
    )
    for row in rows.values_list("kind", "created_at", "data", "actor", "door", "client_name").iterator(chunk_size=2000):
        kind, at, data, actor, door, client_name = row
        event = {"seq": len(events) + 1, "kind": kind, "at": fmt.timestamp(at), "data": data}
        # Who made it and through which door: only when recorded, so a bundle of work from before owners
        # reads as it did (and an older WorkRail's bundles, without them, import with "").
        if actor:
            event["actor"] = actor
        if door:
            event["door"] = door
        if client_name:  # the MCP client that made it, by its declared name
            event["clientName"] = client_name
        events.append(event)
        if progress is not None and len(events) % 1000 == 0:
            progress(len(events), session.last_seq)
    return events


def session_section(session: Session, events: list[dict[str, Any]]) -> dict[str, Any]:
    """What a reader wants to know before opening the events. Every field can be worked out from the
    events by the projector, and the importer checks that it was."""
    return {
        "sessionId": session.public_id,
        "sessionKey": session.session_key,
        "title": session.title,
        "kind": session.kind,
        "tags": list(session.tags),
        "preferences": dict(session.preferences),
        "status": session.status,
        "workflowIds": session.workflow_ids.split(),
        "runCount": session.run_count,
        "branchCount": session.branch_count,
        "gitBranch": session.git_branch,
        "workspacePath": session.workspace_path,
        "createdAt": fmt.timestamp(session.created_at),
        "lastActivityAt": events[-1]["at"] if events else fmt.timestamp(session.created_at),
    }


def _without_tokens(text: bytes) -> bytes:
    pieces, done = [], 0
    for match in _TOKEN_TAIL.finditer(text):
        start = match.start() - 2
        if start < 0 or text[start : start + 2] not in _KINDS or (start > 0 and text[start - 1] in _TOKEN_CHARS):
            continue
        pieces += [text[done:start], _MARKER]
        done = match.end()
    return b"".join([*pieces, text[done:]]) if pieces else text


_MARKER = TOKEN_MARKER.encode()
