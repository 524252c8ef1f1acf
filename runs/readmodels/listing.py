"""One way to list words in a sentence: "a", "a and b", "a, b and c" (no Oxford comma, as every page writes it)."""

from __future__ import annotations

from collections.abc import Sequence


def joined(words: Sequence[str]) -> str:
    if len(words) < 2:
        return "".join(words)
    return ", ".join(words[:-1]) + f" and {words[-1]}"
