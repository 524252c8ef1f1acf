"""What a PDF may hold, priced before WeasyPrint lays anything out.

WeasyPrint's cost grows with table cells far more than with text: on this machine a paragraph costs
about 30 microseconds a character, a table cell one to three milliseconds, more in wide or long
tables (bench/reports.py). One 64 KiB note holding a Markdown table of 400 columns is 31,000 cells:
half a minute and 700 MB. So, before layout, the report's HTML is fitted to a budget:

* a table keeps its first MAX_TABLE_COLUMNS columns and MAX_TABLE_ROWS rows (wider is unreadable on
  A4 anyway), and all tables together keep MAX_REPORT_CELLS cells; a table that lost anything gets a
  visible note above it naming what was left out, and saying the Markdown report has it all;
* a report whose text is still over MAX_TEXT_CHARS (or whose HTML is over MAX_HTML_CHARS, not even
  scanned) is refused with REPORT_TOO_LARGE (TooMuchText): cutting prose would hide what the agent
  wrote without saying where.

The HTML is the report's own (templates and the sanitizer's output, both well formed); the scan finds
element boundaries with the standard library's tokenizer, and the fitted HTML is the input with whole
cells and rows taken out and our notes put in: nothing else of it is rewritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from django.utils.html import escape

MAX_TABLE_COLUMNS = 12
MAX_TABLE_ROWS = 200
MAX_REPORT_CELLS = 6_000
# About 15 s of layout for plain paragraphs; a 200-step run with long notes is about 120,000.
MAX_TEXT_CHARS = 500_000
MAX_HTML_CHARS = 10 * MAX_TEXT_CHARS

CUT_NOTE = '<p class="report-cut">{text}</p>'
_TAG = re.compile(r"<[^>]*>")


class TooMuchText(Exception):
    def __init__(self, chars: int, limit: int) -> None:
        super().__init__(f"{chars:,} characters of text, over the PDF's budget of {limit:,}")
        self.chars = chars
        self.limit = limit


@dataclass
class _Row:
    start: int
    end: int = -1
    cells: list[tuple[int, int]] = field(default_factory=list)  # (start, end) of each th/td


@dataclass
class _Table:
    start: int
    end: int = -1
    rows: list[_Row] = field(default_factory=list)
    open_cell: int = -1  # start of a cell whose end tag has not come yet


@dataclass(frozen=True)
class Fitted:
    html: str
    cuts: list[str]  # what each note above a cut table says, in the document's order
    text_chars: int


class _TableScan(HTMLParser):
    """The offsets of every table, row and cell. A row or cell whose end tag is missing ends where the
    next one starts (HTML allows leaving them out; the report's own HTML never does)."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=False)
        self.html = html
        self.line_starts = [0] + [match.end() for match in re.finditer("\n", html)]
        self.open: list[_Table] = []
        self.tables: list[_Table] = []

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def _end_of_tag(self, start: int) -> int:
        return self.html.index(">", start) + 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            table = _Table(self._offset())
            self.open.append(table)
            self.tables.append(table)
            return
        if not self.open:
            return
        table = self.open[-1]
        start = self._offset()
        if tag == "tr":
            self._close_row(table, start)
            table.rows.append(_Row(start))
        elif tag in ("td", "th") and table.rows:
            self._close_cell(table, start)
            table.open_cell = start

    def handle_endtag(self, tag: str) -> None:
        if not self.open:
            return
        table = self.open[-1]
        start = self._offset()
        if tag in ("td", "th"):
            self._close_cell(table, self._end_of_tag(start))
        elif tag == "tr":
            self._close_row(table, self._end_of_tag(start))
        elif tag == "table":
            self._close_row(table, start)
            table.end = self._end_of_tag(start)
            self.open.pop()

    @staticmethod
    def _close_cell(table: _Table, end: int) -> None:
        if table.open_cell >= 0 and table.rows:
            table.rows[-1].cells.append((table.open_cell, end))
        table.open_cell = -1

    def _close_row(self, table: _Table, end: int) -> None:
        self._close_cell(table, end)
        if table.rows and table.rows[-1].end < 0:
            table.rows[-1].end = end


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _note(text: str) -> str:
    return CUT_NOTE.format(text=escape(text))


def _fit_table(table: _Table, cells_left: int) -> tuple[list[tuple[int, int, str]], str, int]:
    """The edits (start, end, replacement) that fit one table within `cells_left` cells, the note that
    says what was left out ("" when nothing was), and how many cells it keeps."""
    rows = [row for row in table.rows if row.end >= 0]
    width = max((len(row.cells) for row in rows), default=0)
    columns = min(width, MAX_TABLE_COLUMNS)
    kept_rows = min(len(rows), MAX_TABLE_ROWS, cells_left // columns if columns else len(rows))
    shape = f"it has {_plural(width, 'column')} and {_plural(len(rows), 'row')}"
    if rows and kept_rows == 0:
        note = (
            f"A table was omitted ({shape}): the report has more table cells than a PDF can lay out in time. "
            "The Markdown report has it."
        )
        return [(table.start, table.end, _note(note))], note, 0
    edits = [(row.start, row.end, "") for row in rows[kept_rows:]]
    edits += [(row.cells[columns][0], row.cells[-1][1], "") for row in rows[:kept_rows] if len(row.cells) > columns]
    omitted = []
    if width > columns:
        omitted.append(_plural(width - columns, "column"))
    if len(rows) > kept_rows:
        omitted.append(_plural(len(rows) - kept_rows, "row"))
    note = ""
    if omitted:
        note = f"{' and '.join(omitted)} of this table omitted to keep the PDF printable ({shape}). "
        note += "The Markdown report has them all."
        edits.append((table.start, table.start, _note(note)))
    return edits, note, sum(min(len(row.cells), columns) for row in rows[:kept_rows])


def _apply(html: str, edits: list[tuple[int, int, str]]) -> str:
    """`html` with each (start, end) span replaced; a span inside one already removed is skipped."""
    parts: list[str] = []
    position = 0
    # At one offset, a note put in (an empty span) comes before the span removed from there.
    for start, end, replacement in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        if start < position:
            continue
        parts.append(html[position:start])
        parts.append(replacement)
        position = end
    parts.append(html[position:])
    return "".join(parts)


def text_chars(html: str) -> int:
    """About how many characters of text the HTML holds (tags out; references count as written)."""
    return len(_TAG.sub("", html))


def fit(html: str) -> Fitted:
    """`html` within the PDF's budget: tables cut (with a note where they are), or TooMuchText."""
    if len(html) > MAX_HTML_CHARS:
        raise TooMuchText(text_chars(html), MAX_TEXT_CHARS)
    scan = _TableScan(html)
    scan.feed(html)
    scan.close()
    edits: list[tuple[int, int, str]] = []
    cuts: list[str] = []
    cells_left = MAX_REPORT_CELLS
    for table in scan.tables:
        if table.end < 0:
            continue  # no end tag: the report's HTML always has one; nothing safe to cut
        table_edits, note, kept = _fit_table(table, cells_left)
        cells_left -= kept
        edits += table_edits
        if note:
            cuts.append(note)
    fitted = _apply(html, edits) if edits else html
    chars = text_chars(fitted)
    if chars > MAX_TEXT_CHARS:
        raise TooMuchText(chars, MAX_TEXT_CHARS)
    return Fitted(fitted, cuts, chars)
