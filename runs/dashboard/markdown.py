"""Agent-written Markdown (notes, artifacts) as HTML that is safe to put in a dashboard page.

One function, render_markdown(), used by every page through the `markdown` template filter
(`{% load markdown %}{{ value|markdown }}`). Agents write whatever their prompt or a tool output made
them write, so the text is untrusted:

* python-markdown (tables, fenced_code, sane_lists) makes the HTML, with its raw-HTML support off:
  a note that says `<script>` or `<b>` shows those characters; only Markdown syntax makes tags.
* nh3 (ammonia) then keeps only ALLOWED_TAGS and ALLOWED_ATTRIBUTES, and only http, https and
  mailto links (plus relative ones), each with rel="noopener noreferrer nofollow".
* Images become plain links ("image: alt"): the dashboard loads nothing from elsewhere.

Nothing in the result can run a script, load a resource, style the page or submit a form; the
page's CSP (workrail_site/settings.py) is the second line of defence, not the first.

Bounded work: the text is cut at MAX_MARKDOWN_CHARS (a visible note says so), and python-markdown's
slow paths are priced before it runs. Its inline parser rescans to the end of a paragraph for every
unclosed `[` or `(` (10,000 `[` in one paragraph take half a minute), its block parser re-reads the
rest of a block for every line of some kinds (`===` or `---` lines with no blank line between),
and each level of nested lists or quotes is a level of recursion. A text over any of the budgets
below is shown as escaped plain text (`<pre>`) under a visible note instead: nothing is lost, and
a page never spends more than about half a second on one note.
"""

from __future__ import annotations

import functools
import re
import threading
import xml.etree.ElementTree as etree

import markdown
import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown.extensions import Extension
from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.treeprocessors import Treeprocessor

# Longer texts are cut here, with a visible note; a 200,000-character note of ordinary Markdown
# renders in about 0.3 s.
MAX_MARKDOWN_CHARS = 200_000
# Budgets for the slow paths described above, each about half a second of python-markdown at worst.
# In characters rescanned: from each `[`, `(` or `<` to its closing bracket or the end of its block
# (ordinary notes cost a few thousand), and lines x length summed over blocks.
INLINE_SCAN_BUDGET = 1_000_000
BLOCK_SCAN_BUDGET = 50_000_000
# Blocks and `<` characters (about 30 microseconds each), and levels of nested lists or quotes on one
# line (about 1,000 exhaust the stack).
MAX_ELEMENTS = 10_000
MAX_NESTING = 64

ALLOWED_TAGS = frozenset(
    {
        *("p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6"),
        *("strong", "em", "code", "pre", "blockquote", "del"),
        *("ul", "ol", "li", "a"),
        *("table", "thead", "tbody", "tr", "th", "td"),
    }
)
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer nofollow"
# Dropped with everything inside them (other tags not allowed are dropped but keep their text). With
# raw HTML off, python-markdown makes none of these: this is for sanitize_html() on other input.
DROPPED_WITH_CONTENT = frozenset(
    {"script", "style", "template", "iframe", "object", "embed", "svg", "math", "noscript", "textarea", "select"}
)
EXTENSIONS = ["tables", "fenced_code", "sane_lists"]


class _ImagesAsLinks(Treeprocessor):
    """`![alt](url)` becomes a link "image: alt" to the url: the dashboard loads nothing from elsewhere."""

    def run(self, root: etree.Element) -> None:
        for image in list(root.iter("img")):
            src = image.get("src", "")
            alt = image.get("alt") or src
            title, tail = image.get("title"), image.tail
            image.clear()  # drops src, alt, title and the text after the image (put back below)
            image.tail = tail
            image.tag = "a"
            image.set("href", src)
            if title:
                image.set("title", title)
            image.text = f"image: {alt}"


class _UntrustedTextExtension(Extension):
    """Raw HTML is text (escaped, shown as written), and images are links."""

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        # Without these two, `<script>` in a note is shown as the characters `<script>`, not parsed:
        # nothing but Markdown syntax makes tags. It also avoids the raw-HTML parser's slow paths
        # (html.parser rescans on unclosed tags and comments).
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.treeprocessors.register(_ImagesAsLinks(md), "workrail_images_as_links", 0)


def _truncate(text: str) -> str:
    if len(text) <= MAX_MARKDOWN_CHARS:
        return text
    return (
        text[:MAX_MARKDOWN_CHARS]
        + f"\n\n**[truncated: showing the first {MAX_MARKDOWN_CHARS:,} of {len(text):,} characters]**\n"
    )


_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_BRACKETS = re.compile(r"[\[\]()<>]")
_DEEP_NESTING = re.compile(rf"^(?:[ \t]*(?:>|[*+-](?=[ \t])|\d+[.)](?=[ \t]))){{{MAX_NESTING}}}", re.MULTILINE)


def _blocks(text: str) -> list[str]:
    """The text as python-markdown's parsers see it: fenced code set aside, split at blank lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _BLANK_LINE.split(FencedBlockPreprocessor.FENCED_BLOCK_RE.sub("\n\n", text))


def _inline_scan_cost(block: str) -> int:
    """Characters python-markdown's inline patterns may rescan: from each `[` or `(` to its closing
    bracket (or the end of the block), from each `<` to the next `>` (or the end)."""
    cost = 0
    openers: dict[str, list[int]] = {"[": [], "(": []}
    next_gt = len(block)
    for match in reversed(list(_BRACKETS.finditer(block))):
        char, at = match.group(), match.start()
        if char == ">":
            next_gt = at
        elif char == "<":
            cost += next_gt - at
    for match in _BRACKETS.finditer(block):
        char, at = match.group(), match.start()
        if char in openers:
            openers[char].append(at)
        elif char in "])":
            stack = openers["[" if char == "]" else "("]
            if stack:
                cost += at - stack.pop()
    return cost + sum(len(block) - at for stack in openers.values() for at in stack)


def _too_costly(text: str) -> bool:
    if _DEEP_NESTING.search(text):
        return True
    chunks = _blocks(text)
    if len(chunks) + text.count("<") > MAX_ELEMENTS:
        return True
    inline = block = 0
    for chunk in chunks:
        inline += _inline_scan_cost(chunk)
        block += chunk.count("\n") * len(chunk)  # lines x length: the block parser's worst case
        if inline > INLINE_SCAN_BUDGET or block > BLOCK_SCAN_BUDGET:
            return True
    return False


def _plain(text: str, why: str) -> str:
    return f"<p><strong>[{why}: shown as plain text]</strong></p>\n<pre>{escape(text)}</pre>"


_parsers = threading.local()


def _parser() -> markdown.Markdown:
    """This thread's parser. Building one costs more than converting a note, and a parser keeps state
    between calls, so each thread (waitress runs several) keeps its own and resets it before use."""
    md: markdown.Markdown | None = getattr(_parsers, "md", None)
    if md is None:
        md = markdown.Markdown(
            extensions=[*EXTENSIONS, _UntrustedTextExtension()],
            extension_configs={"tables": {"use_align_attribute": True}},
            output_format="html",
        )
        _parsers.md = md
    return md.reset()


def _to_html(text: str) -> str:
    if _too_costly(text):
        return _plain(text, "too intricate to format quickly")
    try:
        return _parser().convert(text)
    except RecursionError:  # thousands of nested lists or quotes
        _parsers.md = None  # a parser left mid-conversion is not trusted again
        return _plain(text, "nested too deeply to format")


def sanitize_html(html: str) -> str:
    """HTML reduced to the allow-list above; what render_markdown() applies to python-markdown's output."""
    return nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )


def render_markdown(text: str) -> SafeString:
    """Agent-written Markdown as sanitized HTML, ready for a template (already marked safe)."""
    if not text:
        return mark_safe("")
    text = str(text)
    if len(text) <= CACHED_CHARS:
        return _render_cached(text)
    return mark_safe(sanitize_html(_to_html(_truncate(text))))  # sanitized by nh3: safe by construction


# Notes never change once recorded, and a live page re-renders the same ones every few seconds: keep
# the HTML of short texts (bounded: CACHED_TEXTS entries of at most CACHED_CHARS characters).
CACHED_CHARS = 16_384
CACHED_TEXTS = 4096


@functools.lru_cache(maxsize=CACHED_TEXTS)
def _render_cached(text: str) -> SafeString:
    return mark_safe(sanitize_html(_to_html(text)))  # sanitized by nh3: safe by construction
