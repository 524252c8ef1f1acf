"""Agent-written Markdown (notes, artifacts) as HTML that is safe to put in a dashboard page.

One function, render_markdown(), used by every page through the `markdown` template filter
(`{% load markdown %}{{ value|markdown }}`) and by the reports (exports/reports: the HTML/PDF report
through the same filter, the Markdown report through safe_markdown.notes()). Agents write whatever
their prompt or a tool output made them write, so the text is untrusted:

* markdown-it-py parses it as CommonMark, plus GFM tables, strikethrough and task lists
  (mdit-py-plugins): a list right after a line of text, lists nested by 2 or 4 spaces, `- [x] done`
  and fenced code render the way agents (and GitHub) expect. One departure from CommonMark: a line
  after a list item that is not indented ends the list (see _list_item_ends_at_an_unindented_line).
  Its raw-HTML rules are off: a note that says `<script>` or `<b>` shows those characters; only
  Markdown syntax makes tags.
* nh3 (ammonia) then keeps only ALLOWED_TAGS and ALLOWED_ATTRIBUTES, and only http, https and
  mailto links (plus relative ones), each with rel="noopener noreferrer nofollow". The one form
  element is a task list's checkbox, and nh3 forces it to `type="checkbox" disabled`.
* Images become plain links ("image: alt"): the dashboard loads nothing from elsewhere.

Nothing in the result can run a script, load a resource, style the page or submit a form; the
page's CSP (workrail_site/settings.py) is the second line of defence, not the first.

Bounded work: markdown-it-py's cost grows in step with its input, on CommonMark's known
pathological inputs too (runs of `*`, `<`, backticks, setext underlines, nested quotes; see
bench/markdown.py), so python-markdown's priced budgets are gone. What remains: the text is cut at
MAX_MARKDOWN_CHARS (a visible note says so); a text with more than MAX_LINK_OPENERS `[` is shown as
plain text under a visible note (each `[` costs tens of microseconds); lists and quotes nested
deeper than markdown-it's nesting limit are shown as plain text too (markdown-it would drop the text
past its limit silently). A page never spends more than about a third of a second on one note.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from typing import Any

import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.tasklists import tasklists_plugin

from runs.contract.inputs import MAX_NOTES_BYTES

# Longer texts are cut here, with a visible note. It is the largest note an agent can record
# (notesMarkdown is at most MAX_NOTES_BYTES of UTF-8, so at most as many characters): only a workflow
# prompt that long would be cut. 65,536 characters of ordinary notes render in about 0.1 s, the worst
# of the hostile inputs in bench/markdown.py in about 0.3 s.
MAX_MARKDOWN_CHARS = MAX_NOTES_BYTES
# markdown-it-py's cost is linear, but its constant is large: it makes a token object for every
# block, item and cell, and looks for a link's label from every `[` at every level of nesting below
# it. Measured on this machine (bench/markdown.py), the CPU microseconds each of these characters
# costs at worst (a line: a list item's; a `|`: a table cell's; ...). A text whose sum is over
# COST_BUDGET is shown as plain text under a visible note: 65,536 characters of ordinary notes sum
# to about 125,000, a whole note of one-word list items to about 290,000.
MICROSECONDS = {"\n": 35, "[": 33, "|": 16, "*": 9, "_": 7, "~": 5, "&": 3, "`": 3, "<": 2}
COST_BUDGET = 300_000
# markdown-it's nesting limit (its CommonMark preset's): a list level is two levels (the list and
# its item), a quote one, so lists nest 9 deep and quotes 19; agents nest three or four deep. Deeper
# text is shown as plain text. The limit also bounds the cost of each `[` above, and the recursion.
MAX_NESTING = 20

ALLOWED_TAGS = frozenset(
    {
        *("p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6"),
        *("strong", "em", "code", "pre", "blockquote", "del"),
        *("ul", "ol", "li", "a", "input"),
        *("table", "thead", "tbody", "tr", "th", "td"),
    }
)
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}, "input": {"checked"}}
# A task list's checkbox is the only <input>: whatever reaches nh3, an input leaves it as a disabled
# checkbox (checked or not), and the two classes that mark a task list (for the style sheets).
FORCED_ATTRIBUTES = {"input": {"type": "checkbox", "disabled": ""}}
ALLOWED_CLASSES = {"ul": {"contains-task-list"}, "ol": {"contains-task-list"}, "li": {"task-list-item"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer nofollow"
# Dropped with everything inside them (other tags not allowed are dropped but keep their text). With
# raw HTML off, markdown-it makes none of these: this is for sanitize_html() on other input.
DROPPED_WITH_CONTENT = frozenset(
    {"script", "style", "template", "iframe", "object", "embed", "svg", "math", "noscript", "textarea", "select"}
)
CHECKBOX = '<input type="checkbox" disabled>'
CHECKED_BOX = '<input type="checkbox" disabled checked>'


def _for_the_allow_list(state: StateCore) -> None:
    """Tokens reshaped into what nh3 keeps: strikethrough as <del> (as before), a table cell's
    alignment as `align` (the CSP refuses style attributes), a task's checkbox as exactly
    CHECKBOX or CHECKED_BOX."""
    for token in state.tokens:
        if token.type in ("th_open", "td_open"):
            style = str(token.attrs.pop("style", ""))
            if style.startswith("text-align:"):
                token.attrSet("align", style.removeprefix("text-align:"))
        elif token.type == "inline" and token.children:
            for child in token.children:
                if child.type in ("s_open", "s_close"):
                    child.tag = "del"
                elif child.type == "html_inline" and child.content.startswith("<input"):
                    child.content = CHECKED_BOX if "checked" in child.content else CHECKBOX


def _list_item_ends_at_an_unindented_line(state: StateBlock, line: int, end_line: int, silent: bool) -> bool:
    """A paragraph terminator: inside a list item, a line indented less than the item's text ends the
    item, so the text after a list is a paragraph of its own, as its author meant it:
    "- the tests pass\nThen ask the user." is a list, then a paragraph. CommonMark reads that line as
    a "lazy continuation" of the last item (GitHub too); every bundled workflow prompt with a list
    ends that way, and agents write so, while hard-wrapping an item without indenting it is rare."""
    return silent and 0 <= state.sCount[line] < state.blkIndent


def _image_as_link(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """`![alt](url "title")` as a link "image: alt" to the url: the dashboard loads nothing from elsewhere."""
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env) or str(token.attrGet("src") or "")
    title = token.attrGet("title")
    title_attr = f' title="{escape(str(title))}"' if title else ""
    return f'<a href="{escape(str(token.attrGet("src") or ""))}"{title_attr}>image: {escape(alt)}</a>'


def _new_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "maxNesting": MAX_NESTING})
    md.enable(["table", "strikethrough"])
    md.use(tasklists_plugin)
    md.block.ruler.before("table", "workrail_item_ends", _list_item_ends_at_an_unindented_line, {"alt": ["paragraph"]})
    md.core.ruler.push("workrail_allow_list", _for_the_allow_list)
    md.add_render_rule("image", _image_as_link)
    return md


_parsers = threading.local()


def _parser() -> MarkdownIt:
    """This thread's parser (waitress serves pages on several threads; building one costs more than a note)."""
    md: MarkdownIt | None = getattr(_parsers, "md", None)
    if md is None:
        md = _parsers.md = _new_parser()
    return md


def _truncate(text: str) -> str:
    if len(text) <= MAX_MARKDOWN_CHARS:
        return text
    return (
        text[:MAX_MARKDOWN_CHARS]
        + f"\n\n**[truncated: showing the first {MAX_MARKDOWN_CHARS:,} of {len(text):,} characters]**\n"
    )


def _plain(text: str, why: str) -> str:
    return f"<p><strong>[{why}: shown as plain text]</strong></p>\n<pre>{escape(text)}</pre>"


def _to_html(text: str) -> str:
    if sum(cost * text.count(char) for char, cost in MICROSECONDS.items()) > COST_BUDGET:
        return _plain(text, "too intricate to format quickly")
    md = _parser()
    env: EnvType = {}
    tokens = md.parse(text, env)
    # markdown-it skips whatever lies deeper than its nesting limit: an opening token this deep
    # means some text was dropped, so the whole note is shown as written instead.
    if any(token.nesting == 1 and token.level >= MAX_NESTING - 1 for token in tokens):
        return _plain(text, "nested too deeply to format")
    return md.renderer.render(tokens, md.options, env)


def sanitize_html(html: str) -> str:
    """HTML reduced to the allow-list above; what render_markdown() applies to markdown-it's output."""
    return nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        set_tag_attribute_values={tag: dict(values) for tag, values in FORCED_ATTRIBUTES.items()},
        allowed_classes={tag: set(names) for tag, names in ALLOWED_CLASSES.items()},
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


# How much of a note is read for its first line: enough for any first paragraph a person reads as one line.
FIRST_LINE_READ_CHARS = 2000


def first_line(text: str) -> str:
    """A note's first line as plain words (its first paragraph, heading or item up to its first line break, the
    Markdown marks left out): what a folded step says of its answer on a phone (friction18a 17). "" for none."""
    for token in _parser().parse(text[:FIRST_LINE_READ_CHARS]):
        if token.type != "inline" or not token.children:
            continue
        words: list[str] = []
        for child in token.children:
            if child.type in ("softbreak", "hardbreak"):
                break
            if child.type in ("text", "code_inline"):
                words.append(child.content)
        line = "".join(words).strip()
        if line:
            return line
    return ""
