"""The bundle's format: its fixed names, its byte-exact serialization and its manifest of digests.

A bundle is JSON written one way only: keys sorted, no insignificant whitespace, UTF-8, one final
newline. So the same session always gives the same bytes, and reading a bundle can insist that its
bytes are exactly that serialization of what they parse to: a changed space or a reordered key is
caught as surely as a changed value. Every top-level section has a sha256 digest (of that same
serialization of the section alone) in the manifest, so a change inside a section names the section
that was damaged. (Not RFC 8785: node and attempt ids are 63-bit integers, beyond the integers JCS
allows; readers in other languages should parse ids as 64-bit integers.)
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

BUNDLE_KIND = "workrail.session-bundle"
BUNDLE_SCHEMA_VERSION = 1
DIGEST_ALGORITHM = "sha256"
CANONICALIZATION = "sorted-keys-compact-utf8"
MANIFEST = "manifest"
# The sections the manifest covers: everything but the manifest itself.
SECTIONS = ("bundleSchemaVersion", "events", "graph", "kind", "producer", "session", "workflows")
# Nesting a bundle may have: the envelope is six levels deep around a compiled workflow (itself at most
# 64 levels when loaded) or an agent's context; far past either, and far below what the parser survives.
MAX_DEPTH = 256


def dumps(document: dict[str, Any]) -> bytes:
    """The one serialization of a bundle. Python's C encoder does this fast for large sessions."""
    return serialize(document) + b"\n"


def serialize(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def assemble(sections: dict[str, bytes]) -> bytes:
    """`dumps` of a document whose sections are already serialized: the same bytes, without encoding
    any section twice (a large session's events are most of the file)."""
    members = b",".join(serialize(name) + b":" + sections[name] for name in sorted(sections))
    return b"{" + members + b"}\n"


def manifest_from(sections: dict[str, bytes], event_count: int, workflow_count: int) -> dict[str, Any]:
    return {
        "algorithm": DIGEST_ALGORITHM,
        "canonicalization": CANONICALIZATION,
        "digests": {name: digest_bytes(sections[name]) for name in SECTIONS},
        "eventCount": event_count,
        "workflowCount": workflow_count,
    }


def digest_bytes(data: bytes) -> str:
    return f"{DIGEST_ALGORITHM}:{hashlib.sha256(data).hexdigest()}"


def manifest_for(document: dict[str, Any]) -> dict[str, Any]:
    sections = {name: serialize(document[name]) for name in SECTIONS}
    return manifest_from(sections, len(document["events"]), len(document["workflows"]))


def timestamp(moment: datetime) -> str:
    """UTC with microseconds and a Z: one spelling per instant, so exports are byte-stable."""
    if moment.utcoffset() != _ZERO:
        moment = moment.astimezone(UTC)
    return moment.isoformat(timespec="microseconds")[:26] + "Z"  # isoformat is C; strftime is slow


_ZERO = timedelta(0)


_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z", re.ASCII)


def parse_timestamp(text: str) -> datetime:
    """The inverse of `timestamp`; ValueError for any other spelling (strptime is slow: checked by shape,
    then parsed by fromisoformat, which refuses impossible dates)."""
    if not isinstance(text, str) or not _TIMESTAMP.fullmatch(text):
        raise ValueError(f"not a bundle timestamp: {str(text)[:40]!r}")
    return datetime.fromisoformat(text)
