"""Untrusted text in a Markdown report, kept inert and unable to break the report's structure.

Agent-written notes are not copied into the report as they were written. They go through the
dashboard's own renderer and sanitizer first (runs.readmodels.markdown.render_markdown: raw HTML is text, only
http, https and mailto links survive, images are links), and that small, known set of HTML tags is
written back as Markdown here. So the report can only contain Markdown constructs this module emits:

* headings in notes become bold paragraphs: a note cannot add a section to the report's outline;
* every character a Markdown reader could take as syntax (`<`, `*`, `[`, `|`, ...) is escaped in text
  (a backslash, or a character reference such as `&lt;`), so raw HTML in a note reads as the
  characters written, and no link appears from text;
* task lists stay task lists (`- [x] done`), nested lists stay nested;
* code is fenced, or wrapped in backticks, longer than any run of backticks inside it, so it cannot
  close its fence early and swallow the rest of the report;
* links keep only http, https and mailto targets;
* a note whose tables would cost seconds to format (note_budget.py) is one code block, as written.

Other store text (titles, step ids, artifact fields, messages) goes through `inline` or `cell`.
Everything here is a pure function of its input: the same note always gives the same Markdown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

from exports.reports.note_budget import cell_borders, is_heavy
from runs.readmodels.markdown import render_markdown

# The characters CommonMark, GFM or python-markdown give a meaning to inside a line. Those every
# reader accepts a backslash before are escaped so; the others (a backslash before `<` shows in
# python-markdown, say) become character references, which every reader decodes, in tables too.
_BACKSLASHED = re.compile(r"([\\`*_\[\]!])")
_AS_REFERENCES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "&#124;", "~": "&#126;"}
_REFERENCED = re.compile("[&<>|~]")

# What makes a line something else than a paragraph when it starts it (once the rest is escaped): a
# heading, a list item, a setext underline or a thematic break, an ordered list item.
_BLOCK_START = re.compile(r"^(?:([#+\-])|(=)|(\d+)([.)]))")
_WHITESPACE = re.compile(r"\s+")
_BACKTICKS = re.compile(r"`+")


def _escape(text: str) -> str:
    backslashed = _BACKSLASHED.sub(r"\\\1", text)
    return _REFERENCED.sub(lambda match: _AS_REFERENCES[match.group(0)], backslashed)


def _line(text: str) -> str:
    """An escaped line that cannot start a block: `# x` becomes `\\# x`, `1. x` becomes `1\\. x`."""
    match = _BLOCK_START.match(text)
    if match is None:
        return text
    if match.group(1):
        return "\\" + text
    if match.group(2):
        return "&#61;" + text[1:]
    return f"{match.group(3)}\\{match.group(4)}{text[match.end() :]}"


LINK_SCHEMES = frozenset({"http", "https", "mailto"})
BLOCK_TAGS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "ul", "ol", "li", "hr", "table", "div"}
)


def inline(text: str) -> str:
    """Plain text as one line of Markdown that shows exactly these characters."""
    flat = _WHITESPACE.sub(" ", str(text)).strip()
    return _line(_escape(flat))


def cell(text: str) -> str:
    """Plain text in a table cell (inline, which writes `|` as a reference); an empty cell shows a dash."""
    return inline(text) or "—"


def _fence_for(text: str, char: str = "`", minimum: int = 3) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0) if char == "`" else 0
    return char * max(minimum, longest + 1)


def code_span(text: str) -> str:
    """Text as inline code: delimited by more backticks than any run inside it."""
    flat = _WHITESPACE.sub(" ", str(text))
    if not flat.strip():
        return inline(flat) or "` `"
    ticks = "`" * (max((len(run) for run in _BACKTICKS.findall(flat)), default=0) + 1)
    padded = f" {flat} " if flat.startswith("`") or flat.endswith("`") else flat
    return f"{ticks}{padded}{ticks}"


def code_cell(text: str) -> str:
    """Inline code in a table cell: GFM splits cells at `|` even inside code, unless escaped."""
    return code_span(text).replace("|", "\\|")


def code_block(text: str, info: str = "") -> str:
    """Text as a fenced code block whose fence no line inside can close."""
    body = str(text).replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    fence = _fence_for(body)
    return f"{fence}{info}\n{body}\n{fence}"


HEAVY_NOTE = "**This note's tables have about {cells:,} cells, more than a report formats: it is shown as written.**"


def notes(markdown_text: str) -> str:
    """Agent-written Markdown as report Markdown: rendered and sanitized like on the dashboard, then
    written back from that HTML (see the module's docstring). Returns blocks separated by blank lines.
    A note whose tables would cost seconds to format (note_budget.is_heavy) is a code block instead."""
    if is_heavy(markdown_text or ""):
        return HEAVY_NOTE.format(cells=cell_borders(markdown_text)) + "\n\n" + code_block(markdown_text)
    html = str(render_markdown(markdown_text or ""))
    if not html.strip():
        return ""
    tree = _parse(html)
    return "\n\n".join(_blocks(tree.children))


# --- the sanitized HTML as a small tree -----------------------------------------------------------


@dataclass
class _Element:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[_Element | str] = field(default_factory=list)


class _TreeBuilder(HTMLParser):
    """Builds a tree of the sanitizer's output (well formed: nh3 closes every tag it keeps)."""

    VOID = frozenset({"br", "hr", "input"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Element("root")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = _Element(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].children.append(element)
        if tag not in self.VOID:
            self.stack.append(element)

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, 0, -1):
            if self.stack[index].tag == tag:
                del self.stack[index:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def _parse(html: str) -> _Element:
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


def _text_of(node: _Element | str) -> str:
    if isinstance(node, str):
        return node
    return "".join(_text_of(child) for child in node.children)


# --- blocks ------------------------------------------------------------------------------------------


def _blocks(nodes: list[_Element | str]) -> list[str]:
    """Markdown blocks for a sequence of nodes; loose inline content between blocks is a paragraph."""
    blocks: list[str] = []
    pending: list[_Element | str] = []

    def flush() -> None:
        paragraph = _paragraph(pending)
        if paragraph:
            blocks.append(paragraph)
        pending.clear()

    for node in nodes:
        if isinstance(node, _Element) and node.tag in BLOCK_TAGS:
            flush()
            block = _block(node)
            if block:
                blocks.append(block)
        else:
            pending.append(node)
    flush()
    return blocks


def _paragraph(nodes: list[_Element | str]) -> str:
    lines = _inlines(nodes).strip(" ").split("\n")
    # A hard line break (<br>) starts a new line; it must not start a block either.
    lines = [line.strip(" ") for line in lines]
    lines = [_line(line) for line in lines]
    return "\\\n".join(line for line in lines if line) if any(lines) else ""


def _block(node: _Element) -> str:
    tag = node.tag
    if tag in ("p", "div"):
        return "\n\n".join(_blocks(node.children))
    if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
        text = _inlines(node.children).replace("\n", " ").strip()
        return f"**{text}**" if text else ""
    if tag == "hr":
        return "---"
    if tag == "pre":
        return code_block(_text_of(node))
    if tag == "blockquote":
        inner = "\n\n".join(_blocks(node.children))
        return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n")) if inner else ""
    if tag in ("ul", "ol"):
        return _list(node)
    if tag == "li":
        return _list(_Element("ul", children=[node]))
    if tag == "table":
        return _table(node)
    return _paragraph(node.children)


def _list(node: _Element) -> str:
    start = node.attrs.get("start", "1")
    number = int(start) if start.isdigit() and len(start) < 9 else 1
    items = []
    for child in node.children:
        if not isinstance(child, _Element) or child.tag != "li":
            continue
        marker = f"{number}." if node.tag == "ol" else "-"
        number += 1
        body = "\n\n".join(_blocks(child.children)) or ""
        pad = " " * (len(marker) + 1)
        lines = body.split("\n")
        first = f"{marker} {lines[0]}" if lines[0] else marker
        rest = [f"{pad}{line}" if line else "" for line in lines[1:]]
        items.append("\n".join([first, *rest]))
    return "\n".join(items)


def _table(node: _Element) -> str:
    rows: list[list[str]] = []
    has_header = False
    for section in (child for child in node.children if isinstance(child, _Element)):
        if section.tag == "tr":
            table_rows = [section]
        else:
            table_rows = [row for row in section.children if isinstance(row, _Element) and row.tag == "tr"]
        for row in table_rows:
            cells = [
                _inlines(c.children).replace("\n", " ").strip() or " "
                for c in row.children
                if isinstance(c, _Element) and c.tag in ("th", "td")
            ]
            has_header = has_header or (section.tag == "thead" and not rows)
            rows.append(cells)
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [" "] * (width - len(row)) for row in rows]
    header, body = (rows[0], rows[1:]) if has_header else ([" "] * width, rows)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


# --- inlines -----------------------------------------------------------------------------------------


def _inlines(nodes: list[_Element | str]) -> str:
    return "".join(_inline_node(node) for node in nodes)


def _inline_node(node: _Element | str) -> str:
    if isinstance(node, str):
        return _escape(_WHITESPACE.sub(" ", node))
    tag = node.tag
    if tag == "br":
        return "\n"
    if tag == "code":
        return code_span(_text_of(node))
    if tag == "input":  # a task list's checkbox (the only input the renderer makes): a GFM task again
        return "[x]" if "checked" in node.attrs else "[ ]"
    inner = _inlines(node.children)
    if tag in ("strong", "b"):
        return _wrapped(inner, "**")
    if tag in ("em", "i"):
        return _wrapped(inner, "*")
    if tag == "del":
        return _wrapped(inner, "~~")
    if tag == "a":
        return _link(inner, node.attrs.get("href", ""))
    if tag in BLOCK_TAGS:  # a block where only inline content was expected (a list in a table cell)
        return " " + _text_escaped(node) + " "
    return inner


def _text_escaped(node: _Element) -> str:
    return _escape(_WHITESPACE.sub(" ", _text_of(node))).strip()


def _wrapped(inner: str, marker: str) -> str:
    """Emphasis around `inner`; its delimiters must touch text, so outer spaces go outside them."""
    stripped = inner.strip(" ")
    if not stripped or "\n" in stripped:
        return inner
    left = " " if inner.startswith(" ") else ""
    right = " " if inner.endswith(" ") else ""
    return f"{left}{marker}{stripped}{marker}{right}"


def _link(text: str, href: str) -> str:
    """A link only to http, https or mailto (the sanitizer allows relative links too, which mean
    nothing in a file); otherwise its text alone."""
    target = href.strip()
    try:
        scheme = urlsplit(target).scheme.lower()
    except ValueError:  # not a URL at all
        scheme = ""
    if scheme not in LINK_SCHEMES:
        return text
    for char, code in (("<", "%3C"), (">", "%3E"), (" ", "%20"), ("\n", "%0A"), ("\\", "%5C")):
        target = target.replace(char, code)
    label = text.replace("\n", " ").strip() or inline(target)
    return f"[{label}](<{target}>)"
