"""What an agent writes back: plausible values for what a step expects (so runs take their branches
and move on), and the hostile note of issue 18."""

from __future__ import annotations

from typing import Any


def context_for(pending: dict[str, Any] | None) -> dict[str, Any]:
    """Values for what the step expects in context (the placeholders nextCall would carry)."""
    values: dict[str, Any] = {}
    for expected in (pending or {}).get("expectedContext") or []:
        kind = expected.get("type")
        if expected.get("values"):
            values[expected["key"]] = expected["values"][-1]
        elif kind == "array":
            values[expected["key"]] = ["api", "storage"]
        elif kind in ("number", "integer"):
            values[expected["key"]] = 1
        elif kind == "boolean":
            values[expected["key"]] = True
        else:
            values[expected["key"]] = "small"
    for dependency in (pending or {}).get("userDependencies") or []:
        if not dependency.get("met"):
            values[dependency["contextKey"]] = "an answer from the user"
    return values


def wide_table_note(columns: int = 400, limit: int = 64 * 1024) -> str:
    """The hostile note of issue 18: a Markdown table of `columns` one-letter columns, as many rows as fit
    in `limit` bytes (notesMarkdown's own limit). About 31,000 cells: half a minute of WeasyPrint uncut."""
    lines = ["|" + "|".join(f"c{index}" for index in range(columns)) + "|", "|" + "-|" * columns]
    row = "|" + "|".join("x" for _ in range(columns)) + "|"
    while sum(len(line) + 1 for line in lines) + len(row) <= limit:
        lines.append(row)
    return "\n".join(lines)
