"""The agent's notes in a Markdown report, as the agent wrote them.

A report is Markdown and notes are Markdown, so a note goes in as written: `MR !42`, `has_perm()` and a
task list's `[ ]` stay exactly so, character for character. What the report must still decide is
where a note ends. A CommonMark parser (markdown-it-py) reads each note, and a note is embedded one of
three ways:

* as written, when it holds itself in: read with a paragraph after it, that paragraph is still the
  report's own (an unclosed code fence or HTML comment would swallow it) and the note has no heading
  (which would add a section to the report's outline);
* quoted (`> ` before each line), when it has headings or does not end where it should: a block
  quote closes every fence and HTML block inside it where it ends, and its headings stay inside it;
* fenced, shown as written in a code block whose fence no line inside can close, when a reader
  would do something with it besides showing it: raw HTML, an image (loaded on opening the file), or a
  link anywhere but http, https or mailto (a javascript: link); and when the quote does not hold
  it either. A note whose tables are too big to format (note_budget.py) is fenced too.

Nothing in a note is escaped or rewritten in the first two ways; in the third, every character shows.
Pure: the same note always gives the same Markdown.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token

from exports.reports.note_budget import cell_borders, is_heavy
from exports.reports.safe_markdown import code_block

Way = Literal["as written", "quoted", "fenced"]
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_SENTINEL = "REPORT-CONTINUES-0d6f2a"
HEAVY_NOTE = "**This note's tables have about {cells:,} cells, more than a report formats: it is shown as written.**"


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    # Every link target is kept as a link, so that the scheme check below sees it (markdown-it would
    # turn a javascript: link into text, which another reader may not).
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    return parser


_MD = _parser()


def _flat(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    for token in tokens:
        out.append(token)
        if token.children:
            out += _flat(token.children)
    return out


def _scheme(url: str) -> str:
    try:
        return urlsplit(url.strip()).scheme.lower()
    except ValueError:
        return "?"


def _acts(tokens: list[Token]) -> bool:
    """Whether a reader would do more than show this note: raw HTML, an image, a non-web link."""
    for token in _flat(tokens):
        if token.type in ("html_block", "html_inline", "image"):
            return True
        if token.type == "link_open":
            scheme = _scheme(str(token.attrs.get("href", "")))
            if scheme and scheme not in LINK_SCHEMES:
                return True
    return False


def _read(text: str) -> tuple[list[Token], bool]:
    """The tokens of `text` followed by a blank line and a paragraph of the report's, and whether that
    paragraph is still a paragraph of its own, at the top (one parse: the paragraph is a plain word, so
    it adds no HTML, image, link or heading to what is checked in the tokens)."""
    tokens = _MD.parse(text + "\n\n" + _SENTINEL)
    tail = tokens[-3:]
    holds = (
        len(tail) == 3
        and [t.type for t in tail] == ["paragraph_open", "inline", "paragraph_close"]
        and tail[0].level == 0
        and tail[1].content == _SENTINEL
    )
    return tokens, holds


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.split("\n"))


def way(text: str) -> Way:
    """How a note is embedded (see the module's docstring)."""
    if is_heavy(text):
        return "fenced"
    tokens, holds = _read(text)
    if _acts(tokens):
        return "fenced"
    if holds and not any(token.type == "heading_open" for token in tokens):
        return "as written"
    return "quoted" if _read(_quoted(text))[1] else "fenced"


def embed(markdown_text: str) -> str:
    """A note as report Markdown: blocks to put between blank lines ("" for an empty note)."""
    text = (markdown_text or "").replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    if not text.strip():
        return ""
    chosen = way(text)
    if chosen == "as written":
        return text
    if chosen == "quoted":
        return _quoted(text)
    if is_heavy(text):
        return HEAVY_NOTE.format(cells=cell_borders(text)) + "\n\n" + code_block(text, "markdown")
    return code_block(text, "markdown")
