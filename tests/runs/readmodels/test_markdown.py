"""runs/readmodels/markdown.py: agent-written Markdown becomes HTML with formatting and nothing executable."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.template import Context, Template
from django.utils.safestring import SafeString

from runs.readmodels.markdown import MAX_MARKDOWN_CHARS, render_markdown, sanitize_html

ALLOWED_TAGS = {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "code", "pre"}
ALLOWED_TAGS |= {"blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td", "del", "input"}
ALLOWED_ATTRIBUTES = {"href", "title", "align", "rel", "start", "class"}
# A task list's checkbox, the one form element: always a disabled checkbox, checked or not.
CHECKBOX_ATTRIBUTES = ({"type": "checkbox", "disabled": ""}, {"type": "checkbox", "disabled": "", "checked": ""})
TASK_LIST_CLASSES = {"ul": "contains-task-list", "ol": "contains-task-list", "li": "task-list-item"}
# On the raw string: any tag with an on*= attribute, or an href/src/action whose value starts with a
# script or data scheme (escaped text has no `<`, so these only match real markup).
EVENT_HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)
SCRIPT_URL = re.compile(r"""<[^>]*\s(?:href|src|action|xlink:href)\s*=\s*["']?\s*(?:javascript|vbscript|data):""", re.I)


class Markup(HTMLParser):
    """The tags and attributes a browser would build from the output."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))


def url_scheme(value: str) -> str:
    """The scheme a browser would see: tab/CR/LF removed, leading controls and spaces stripped."""
    url = re.sub(r"[\t\r\n]", "", value).lstrip("".join(map(chr, range(33))))
    match = re.match(r"([a-zA-Z][a-zA-Z0-9+.-]*):", url)
    return match.group(1).lower() if match else ""


def assert_inert(output: str) -> None:
    """Nothing in `output` can run script, load a resource, style the page or submit a form."""
    lowered = output.lower()
    for needle in ("<script", "<img", "<svg", "<iframe", "<style", "<object", "<embed", "<form", "<math", "<button"):
        assert needle not in lowered, (needle, output)
    assert not EVENT_HANDLER.search(output), output
    assert not SCRIPT_URL.search(output), output
    for tag, attrs in Markup(output).elements:
        assert tag in ALLOWED_TAGS, (tag, output)
        if tag == "input":
            assert dict(attrs) in CHECKBOX_ATTRIBUTES, (attrs, output)
            continue
        for name, value in attrs:
            if name == "class":
                assert value == TASK_LIST_CLASSES.get(tag), (tag, value, output)
            assert name in ALLOWED_ATTRIBUTES, (tag, name, output)
            if name == "href":
                assert url_scheme(value or "") in {"", "http", "https", "mailto"}, (value, output)


def test_it_returns_a_safe_string_and_nothing_for_nothing():
    assert isinstance(render_markdown("**a**"), SafeString)
    assert render_markdown("") == ""


@pytest.mark.parametrize(
    "payload",
    [
        "<script>alert(1)</script>",
        "before <script src=https://evil.example/x.js></script> after",
        "<img src=x onerror=alert(1)>",
        "<svg onload=alert(1)><circle r=1></circle></svg>",
        "<iframe src=https://evil.example></iframe>",
        "<style>body { display: none }</style>",
        "<object data=x></object><embed src=x>",
        "<form action=https://evil.example><input name=a><button>go</button></form>",
        "<p onclick=alert(1) style='color:red'>click</p>",
        '<a href="JaVaScRiPt:alert(1)">x</a>',
        "<a href='java&#115;cript:alert(1)'>x</a>",
        "<math><mi xlink:href=javascript:alert(1)>x</mi></math>",
        "<!-- <script>alert(1)</script> -->",
        "<details open ontoggle=alert(1)>",
        "<body onload=alert(1)>",
        "<meta http-equiv=refresh content='0;url=javascript:alert(1)'>",
        "<base href=https://evil.example/>",
        "<link rel=stylesheet href=https://evil.example/x.css>",
    ],
)
def test_raw_html_is_shown_as_text_never_as_markup(payload):
    output = render_markdown(payload)
    assert_inert(output)
    assert [tag for tag, _ in Markup(output).elements] in (["p"], [])  # no tag of the agent's making


@pytest.mark.parametrize(
    "payload",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x]( javascript:alert(1))",
        "[x](javascript&#58;alert(1))",
        "[x](java\tscript:alert(1))",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[x](DATA:text/html,<script>alert(1)</script>)",
        "[x]: javascript:alert(1)\n\n[click][x]",
        "<javascript:alert(1)>",
        "![x](javascript:alert(1))",
        "![x](data:image/svg+xml,<svg onload=alert(1)>)",
    ],
)
def test_links_to_script_or_data_urls_lose_their_href(payload):
    output = render_markdown(payload)
    assert_inert(output)
    hrefs = [value or "" for _, attrs in Markup(output).elements for name, value in attrs if name == "href"]
    assert all(url_scheme(href) in {"", "http", "https", "mailto"} for href in hrefs), output


def test_normal_formatting_survives():
    text = (
        "# Title\n\n## Sub\n\nSome **bold**, _em_ and `code`.\n\n"
        "> quoted\n\n- one\n- two\n\n1. first\n2. second\n\n---\n\n"
        'A [link](https://example.com/a?b=1 "T"), <https://example.org> and <me@example.com>.'
    )
    output = render_markdown(text)
    assert_inert(output)
    for fragment in (
        "<h1>Title</h1>",
        "<h2>Sub</h2>",
        "<strong>bold</strong>",
        "<em>em</em>",
        "<code>code</code>",
        "<blockquote>",
        "<ul>",
        "<li>one</li>",
        "<ol>",
        "<hr>",
        '<a href="https://example.com/a?b=1" title="T" rel="noopener noreferrer nofollow">link</a>',
        '<a href="https://example.org" rel="noopener noreferrer nofollow">',
    ):
        assert fragment in output, (fragment, output)
    assert 'href="mailto:' in html.unescape(output)


def test_tables_render_with_alignment():
    output = render_markdown("| name | n |\n|:-----|--:|\n| a | 1 |\n| b | 2 |")
    assert_inert(output)
    assert "<table>" in output and "<thead>" in output and "<tbody>" in output
    assert '<th align="left">name</th>' in output
    assert '<td align="right">2</td>' in output


def test_fenced_code_keeps_its_text_escaped():
    output = render_markdown("```python\nif a < b:\n    print('<script>alert(1)</script>')\n```")
    assert_inert(output)
    assert "<pre><code>" in output
    assert "if a &lt; b:" in output
    assert "&lt;script&gt;" in output


def test_images_become_links_and_keep_the_text_around_them():
    output = render_markdown('See ![a chart](https://example.com/c.png "Chart") here.')
    assert_inert(output)
    assert (
        '<a href="https://example.com/c.png" title="Chart" rel="noopener noreferrer nofollow">image: a chart</a> here.'
        in output
    )


def test_sanitize_html_keeps_only_the_allow_list():
    dirty = (
        '<p class="x" style="color:red">ok <b>b</b> <del>gone</del></p><script>alert(1)</script>'
        '<a href="https://e.example" target="_blank" onclick="x()">l</a><td align="center" bgcolor="red">c</td>'
    )
    output = sanitize_html(dirty)
    assert_inert(output)
    assert "alert" not in output  # script content dropped, not just the tags
    assert "<p>ok b <del>gone</del></p>" in output
    assert 'target="' not in output


def test_long_text_is_cut_with_a_visible_marker():
    text = "word " * (MAX_MARKDOWN_CHARS // 5 + 1000)
    output = render_markdown(text)
    assert f"truncated: showing the first {MAX_MARKDOWN_CHARS:,} of {len(text):,} characters" in output
    assert len(output) < MAX_MARKDOWN_CHARS + 1000


HOSTILE = {
    "brackets": "[" * MAX_MARKDOWN_CHARS,
    "link-openers": "[a](" * (MAX_MARKDOWN_CHARS // 4),
    "image-openers": "![" * (MAX_MARKDOWN_CHARS // 2),
    "brackets-on-lines": "[ \n" * (MAX_MARKDOWN_CHARS // 3),
    "setext": "a\n===\n" * (MAX_MARKDOWN_CHARS // 6),
    "rules": "---\n" * (MAX_MARKDOWN_CHARS // 4),
    "paragraphs": "a\n\n" * (MAX_MARKDOWN_CHARS // 3),
    "list-items": "- a\n" * (MAX_MARKDOWN_CHARS // 4),
    "tags": "<a " * (MAX_MARKDOWN_CHARS // 3),
    "comments": "<!--" * (MAX_MARKDOWN_CHARS // 4),
    "emphasis": "*a" * (MAX_MARKDOWN_CHARS // 2),
    "mixed-emphasis": "**a _b" * (MAX_MARKDOWN_CHARS // 6),
    "strikethrough": "~~" * (MAX_MARKDOWN_CHARS // 2),
    "backticks": "".join("`" * (i % 50 + 1) + "a" for i in range(MAX_MARKDOWN_CHARS // 27)),
    "table": "|a|b|c|d|\n|-|-|-|-|\n" + "|x|x|x|x|\n" * (MAX_MARKDOWN_CHARS // 10 - 2),
    "tasks": "- [ ] " * (MAX_MARKDOWN_CHARS // 6),
    "quotes": "> " * (MAX_MARKDOWN_CHARS // 2),
    "lists": "1. " * (MAX_MARKDOWN_CHARS // 3),
    "indented-lists": "\n".join("  " * depth + "- item" for depth in range(250)),
    "scripts": "<script>alert(1)</script>\n" * (MAX_MARKDOWN_CHARS // 26),
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_pathological_input_is_bounded_and_inert(text):
    # How long each takes is bench/markdown.py's figure; here, what comes out.
    output = render_markdown(text)
    assert_inert(output)
    assert len(output) < 20 * MAX_MARKDOWN_CHARS
    if "shown as plain text" in output:  # too costly or too deep to format: every character is still there
        assert output.count("<pre>") == 1
        assert html.unescape(output.split("<pre>", 1)[1].removesuffix("</pre>")) == text


@pytest.mark.parametrize("name", ["quotes", "lists", "indented-lists"])
def test_nesting_deeper_than_the_cap_is_shown_as_written_not_dropped(name):
    output = render_markdown(HOSTILE[name])
    assert "nested too deeply to format: shown as plain text" in output


@pytest.mark.parametrize("name", ["brackets", "image-openers", "paragraphs", "list-items", "table"])
def test_text_too_costly_to_format_is_shown_as_written(name):
    output = render_markdown(HOSTILE[name])
    assert "too intricate to format quickly: shown as plain text" in output


def test_nesting_agents_use_is_formatted():
    text = "\n".join("  " * depth + f"- level {depth}" for depth in range(8))
    text += "\n\n" + "> " * 12 + "deep quote"
    output = render_markdown(text)
    assert "shown as plain text" not in output
    assert output.count("<ul>") == 8 and output.count("<blockquote>") == 12


def test_a_big_ordinary_note_is_formatted_not_degraded():
    paragraph = "A paragraph with a [link](https://example.com), `code`, **bold** (and a note).\n\n- item\n- item"
    copies = MAX_MARKDOWN_CHARS // (len(paragraph) + 2)
    text = "\n\n".join([paragraph] * copies)
    output = render_markdown(text)
    assert "shown as plain text" not in output and "truncated" not in output
    assert output.count("<ul>") == copies


# --- Markdown the way agents write it -------------------------------------------------------------------


def items(output: str) -> int:
    return output.count("<li")


def test_a_list_right_after_a_line_is_a_list():
    output = render_markdown("Notes:\n- a\n- b\n\nThen:\n1. one\n2. two")
    assert_inert(output)
    assert "<p>Notes:</p>" in output
    assert "<li>a</li>" in output and "<li>b</li>" in output
    assert "<ol>" in output and "<li>one</li>" in output
    assert items(output) == 4


def test_a_line_right_after_a_list_ends_it():
    # As every bundled prompt with a list is written: CommonMark would add "Assess" to the last item.
    output = render_markdown("Do this:\n- a\n  - a1\n- b\nAssess the result.\n1. x\nDone.")
    assert_inert(output)
    expected = r"<li>b</li>\s*</ul>\s*<p>Assess the result.</p>\s*<ol>\s*<li>x</li>\s*</ol>\s*<p>Done.</p>"
    assert re.search(expected, output), output
    indented = render_markdown("- a\n  still a\n- b")
    assert "<li>a\nstill a</li>" in indented  # an indented line continues its item


def test_task_lists_are_disabled_checkboxes():
    output = render_markdown("Tasks:\n- [x] done\n- [ ] to do\n- [X] also done\n\nnot a task: [x] here")
    assert_inert(output)
    boxes = [dict(attrs) for tag, attrs in Markup(output).elements if tag == "input"]
    assert boxes == [
        {"type": "checkbox", "disabled": "", "checked": ""},
        {"type": "checkbox", "disabled": ""},
        {"type": "checkbox", "disabled": "", "checked": ""},
    ]
    assert "[x]" not in output.split("not a task")[0] and "[ ]" not in output
    assert "not a task: [x] here" in output  # only a list item's start is a task
    assert '<ul class="contains-task-list">' in output and output.count('<li class="task-list-item">') == 3


def test_an_agents_own_input_tag_is_text_not_a_checkbox():
    output = render_markdown('- <input type="checkbox" checked> x\n- <input type=text autofocus onfocus=alert(1)>')
    assert_inert(output)
    assert "<input" not in output and "&lt;input" in output


@pytest.mark.parametrize("indent", ["  ", "    "])
def test_nested_lists_with_two_or_four_spaces(indent):
    text = f"- a\n{indent}- a1\n{indent}{indent}- a1x\n{indent}- a2\n- b\n\n1. one\n   - sub"
    output = render_markdown(text)
    assert_inert(output)
    nested = r"<li>a\s*<ul>\s*<li>a1\s*<ul>\s*<li>a1x</li>\s*</ul>\s*</li>\s*<li>a2</li>\s*</ul>\s*</li>"
    assert re.search(nested, output), output
    assert re.search(r"<li>one\s*<ul>\s*<li>sub</li>", output), output
    assert items(output) == 7


def test_gfm_tables_strikethrough_and_autolinks():
    text = "| a | b |\n|---|:-:|\n| `x\\|y` | ~~old~~ new |\n\n<https://example.org/x> and <me@example.com>"
    output = render_markdown(text)
    assert_inert(output)
    assert "<th>a</th>" in output and '<th align="center">b</th>' in output
    assert "<td><code>x|y</code></td>" in output and "<del>old</del> new" in output
    assert '<a href="https://example.org/x" rel="noopener noreferrer nofollow">https://example.org/x</a>' in output
    assert '<a href="mailto:me@example.com" rel="noopener noreferrer nofollow">me@example.com</a>' in output


def test_fenced_code_with_tildes_and_an_info_string_keeps_its_text():
    output = render_markdown("Run:\n~~~bash\nrm -rf <dir> && echo '**not bold**'\n~~~\nDone.")
    assert_inert(output)
    assert "<pre><code>rm -rf &lt;dir&gt; &amp;&amp; echo '**not bold**'\n</code></pre>" in output
    assert "<p>Run:</p>" in output and "<p>Done.</p>" in output


def test_every_bundled_prompt_with_a_list_renders_it_as_a_list():
    checked = 0
    for path in sorted((Path(__file__).resolve().parents[3] / "workflows_app" / "bundled").glob("*.json")):
        for step in json.loads(path.read_text())["steps"]:
            prompt = step.get("prompt") or ""
            if re.search(r"^- ", prompt, re.MULTILINE):
                output = render_markdown(prompt)
                assert "<li>" in output, (path.name, step["id"])
                assert not re.search(r"<p>[^<]*\n- ", output), (path.name, step["id"], output)
                checked += 1
    assert checked >= 5


def test_the_template_filter_renders_and_does_not_escape_twice():
    template = Template("{% load markdown %}<div>{{ note|markdown }}</div><div>{{ missing|markdown }}</div>")
    output = template.render(Context({"note": "**hi** <script>x</script>"}))
    assert "<strong>hi</strong>" in output
    assert "&lt;script&gt;" in output and "&amp;lt;" not in output
    assert output.endswith("<div></div>")


def test_parsers_are_reused_per_thread_and_give_the_same_html_as_a_fresh_one():
    from concurrent.futures import ThreadPoolExecutor

    from runs.readmodels import markdown as module

    texts = [f"# Title {i}\n\n- item *{i}*\n- `code`\n\n| a | b |\n|---|---|\n| {i} | x |" for i in range(200)]
    module._render_cached.cache_clear()
    expected = [str(render_markdown(t)) for t in texts]
    module._render_cached.cache_clear()
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda t: str(render_markdown(t)), texts))
    assert results == expected
    assert "<table>" in expected[0] and "<li><em>0</em>" in expected[0].replace("item ", "")
