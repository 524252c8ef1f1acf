"""What legitimately differs between two runs of the same code, replaced by stable placeholders.

Tokens and session/run ids are random: each distinct value becomes a placeholder named by its kind and
numbered in order of first appearance (`<stateToken-1>`, `<runId-2>`), so the transcript keeps which answers
share a value (a replay that returns the same token, a branch tip named again by resume_session) while two
runs of the same code give the same bytes.

Times are clock-made and become `<time>`, without a number: whether two times are equal depends on the
clock (two calls in the same minute, or the same tick of a coarse clock), not on the code, so numbering
them would make the transcript flaky. Everything else is kept as sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# Token bodies are unpadded base64url; ids are hex. The look-arounds keep a match from starting or ending
# inside a longer word, so a tampered token (one character changed) is a value of its own.
_EDGE_BEFORE, _EDGE_AFTER = r"(?<![A-Za-z0-9_-])", r"(?![A-Za-z0-9_-])"
NUMBERED: dict[str, str] = {
    "stateToken": r"st1_[A-Za-z0-9_-]{24}",
    "ackToken": r"ak1_[A-Za-z0-9_-]{24}",
    "sessionToken": r"ss1_[A-Za-z0-9_-]{24}",
    "sessionId": r"ses_[0-9a-f]{16}",
    "runId": r"run_[0-9a-f]{16}",
}
# ISO 8601 times to the minute or finer (the resume text shows minutes, the JSON microseconds).
TIME = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
_SCAN = re.compile(
    "|".join(
        [
            *(f"(?P<{kind}>{_EDGE_BEFORE}{pattern}{_EDGE_AFTER})" for kind, pattern in NUMBERED.items()),
            f"(?P<time>{TIME})",
        ]
    ),
    re.ASCII,
)


def matches(value: Any) -> set[str]:
    """Every token, id or time in `value` (strings and dict keys, at any depth)."""
    found: set[str] = set()
    if isinstance(value, str):
        found.update(match.group() for match in _SCAN.finditer(value))
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= matches(key) | matches(item)
    elif isinstance(value, list):
        for item in value:
            found |= matches(item)
    return found


class Normalizer:
    """Replaces values as it meets them; one instance per transcript, so numbering starts at 1.

    `literals` are exact strings with their replacement (the run's temporary paths). `keep` are values that
    look like tokens but are fixed by the code (the examples in the tool descriptions): kept as they are,
    so a change to them shows.
    """

    def __init__(self, literals: dict[str, str] | None = None, keep: Iterable[str] = ()) -> None:
        # Longest first: a path inside another (the project dir inside the work dir) is replaced whole.
        self.literals = sorted((literals or {}).items(), key=lambda item: -len(item[0]))
        self.seen: dict[str, str] = {value: value for value in keep}
        self.counts: dict[str, int] = {}

    def placeholder(self, kind: str, value: str) -> str:
        if kind == "time":
            return "<time>"
        if value not in self.seen:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.seen[value] = f"<{kind}-{self.counts[kind]}>"
        return self.seen[value]

    def text(self, value: str) -> str:
        for literal, replacement in self.literals:
            value = value.replace(literal, replacement)
        return _SCAN.sub(lambda match: self.placeholder(str(match.lastgroup), match.group()), value)

    def walk(self, value: Any) -> Any:
        """`value` with every string in it (dict keys too) normalized, in document order."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(key): self.walk(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.walk(item) for item in value]
        return value
