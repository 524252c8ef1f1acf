"""Workflow ids: `namespace.name`, the reserved `wr` namespace, and legacy dot-less ids."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

SEGMENT = re.compile(r"[a-z][a-z0-9_-]*")
LEGACY = re.compile(r"[a-z0-9_-]+")
RESERVED_NAMESPACE = "wr"


class IdStatus(StrEnum):
    NAMESPACED = "namespaced"
    LEGACY = "legacy"


@dataclass(frozen=True)
class ParsedId:
    raw: str
    status: IdStatus
    namespace: str | None
    name: str

    @property
    def is_reserved(self) -> bool:
        return self.namespace == RESERVED_NAMESPACE


class InvalidId(ValueError):
    pass


def parse_id(raw: object) -> ParsedId:
    """Parses an id or raises InvalidId with a message that says what a valid id looks like."""
    if not isinstance(raw, str) or not raw:
        raise InvalidId("the id must be a non-empty string")
    if "." in raw:
        parts = raw.split(".")
        if len(parts) != 2:
            raise InvalidId(f"{raw!r} has {len(parts) - 1} dots; a namespaced id has exactly one (namespace.name)")
        namespace, name = parts
        for label, segment in (("namespace", namespace), ("name", name)):
            if not SEGMENT.fullmatch(segment):
                raise InvalidId(
                    f"the {label} {segment!r} of {raw!r} must start with a lowercase letter and contain "
                    "only lowercase letters, digits, '-' and '_'"
                )
        return ParsedId(raw, IdStatus.NAMESPACED, namespace, name)
    if not LEGACY.fullmatch(raw):
        raise InvalidId(f"{raw!r} may contain only lowercase letters, digits, '-' and '_'")
    return ParsedId(raw, IdStatus.LEGACY, None, raw)


def suggest_namespaced(legacy_id: str, namespace: str) -> str:
    """A valid namespaced id for a legacy id: the name must start with a letter."""
    name = legacy_id if legacy_id[:1].isalpha() else f"w{legacy_id}"
    return f"{namespace}.{name}"
