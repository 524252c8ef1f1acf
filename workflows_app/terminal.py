"""Text from outside (a file name in a repository, git's words, a diagnostic quoting either) made safe to
print on a terminal: a control character (an escape sequence that clears the screen or retitles the
window, a newline that forges a line of output) or a bidirectional override is shown as its escape."""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, direction marks and overrides, and lone surrogates (a file name that is not
# UTF-8, as Python reads it: printing one would fail).
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str) -> str:
    """`text` with each control character written as an escape (`\\x1b`, `\\n`, `\\u202e`); a backslash
    stays as it is."""
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
