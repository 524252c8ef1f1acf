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
from datetime import UTC, datetime
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


def digest_bytes(data: bytes) -> str:
    return f"{DIGEST_ALGORITHM}:{hashlib.sha256(data).hexdigest()}"


def section_digest(value: Any) -> str:
    return digest_bytes(serialize(value))


def manifest_for(document: dict[str, Any]) -> dict[str, Any]:
    return {
        "algorithm": DIGEST_ALGORITHM,
        "canonicalization": CANONICALIZATION,
        "digests": {name: section_digest(document[name]) for name in SECTIONS},
        "eventCount": len(document["events"]),
        "workflowCount": len(document["workflows"]),
    }


def timestamp(moment: datetime) -> str:
    """UTC with microseconds and a Z: one spelling per instant, so exports are byte-stable."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_timestamp(text: str) -> datetime:
    """The inverse of `timestamp`; ValueError for any other spelling."""
    moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    if timestamp(moment) != text:
        raise ValueError(f"not a bundle timestamp: {text!r}")
    return moment
