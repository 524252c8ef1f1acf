"""Notes whose tables cost too much to format, priced on their Markdown before python-markdown sees them.

python-markdown formats each table cell through its inline parser: about 30 microseconds a cell on this
machine, more under load. A 64 KiB note can hold 32,000 cells (400 columns of one letter), a second or
more per note, for every report and every copy of it. runs/readmodels/markdown.py prices the parser's other slow
paths, not this one. So here, a note with more than MAX_NOTE_CELLS cell borders (`|` not escaped) is
"heavy", and reports never hand it to python-markdown whole:

* the Markdown report shows it as written, in a code block, under a line saying why (safe_markdown.py):
  nothing of it is lost;
* the PDF shows its table lines cut to MAX_COLUMNS cells, and no more than MAX_ROWS of them, formatted,
  under a line naming what was left out and saying that the Markdown report has it all (html_report.py).

Cells are split the simple way (at every `|` without a backslash before it): a `|` inside a code span
splits there too. That only changes how a heavy table looks in the PDF; the text still goes through the
sanitizer like every note.
"""

from __future__ import annotations

import re

MAX_NOTE_CELLS = 4_000
MAX_COLUMNS = 12
MAX_ROWS = 200

_BORDER = re.compile(r"(?<!\\)\|")
_SEPARATOR_CELL = re.compile(r":?-+:?")


def cell_borders(text: str) -> int:
    return len(_BORDER.findall(text))


def is_heavy(text: str) -> bool:
    return text.count("|") > MAX_NOTE_CELLS and cell_borders(text) > MAX_NOTE_CELLS


def _cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip() for cell in _BORDER.split(body)]


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _is_separator(cells: list[str]) -> bool:
    return all(_SEPARATOR_CELL.fullmatch(cell) for cell in cells)


def for_paper(text: str) -> str:
    """A heavy note as Markdown that costs little to format: its table lines (lines holding a `|`) cut to
    MAX_COLUMNS cells, no more than MAX_ROWS of them in the whole note, and a line above the note saying
    what was left out."""
    lines: list[str] = []
    widest = rows = kept = 0
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not _BORDER.search(line):
            lines.append(line)
            continue
        cells = _cells(line)
        widest = max(widest, len(cells))
        rows += not _is_separator(cells)
        if kept < MAX_ROWS:
            kept += 1
            lines.append("| " + " | ".join(cells[:MAX_COLUMNS]) + " |")
    omitted = []
    if widest > MAX_COLUMNS:
        omitted.append(_plural(widest - MAX_COLUMNS, "column"))
    if kept < rows:
        omitted.append(_plural(rows - kept, "row"))
    if not omitted:
        return "\n".join(lines)
    notice = (
        f"**{' and '.join(omitted)} of this note's table omitted to keep the PDF printable "
        f"(it has {_plural(widest, 'column')} and {_plural(rows, 'row')}). The Markdown report has them all.**"
    )
    return notice + "\n\n" + "\n".join(lines)
