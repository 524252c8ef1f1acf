"""CPU time of rendering one agent note (runs/readmodels/markdown.py: parse, then nh3), uncached.

Ordinary notes of the kinds agents write, and hostile ones at the size cap (MAX_MARKDOWN_CHARS, or
--chars): the inputs that make Markdown parsers slow (runs of `[`, `(`, `*`, backticks, `<`, nested
quotes and lists, setext underlines, wide tables). Then, for those the renderer shows as plain text
because they cost too much (COST_BUDGET), the longest start of each that it still formats: the most
an agent can make a page spend. Prints the median and the worst of a few runs for each, and what came
out (formatted, or shown as plain text under a note). A benchmark: it asserts nothing.

    .venv/bin/python bench/markdown.py [--repeat 3] [--chars 65536]

It imports runs.readmodels.markdown from whichever checkout is first on sys.path, so the same script
measures another version of the renderer: `PYTHONPATH=/path/to/other/checkout .venv/bin/python bench/markdown.py`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from runs.readmodels import markdown

CAP = markdown.MAX_MARKDOWN_CHARS

NOTE = """Looked at the login flow.
Findings:
- the session cookie is set **before** the password check
- `has_perm()` is called twice per request
  - once in the middleware
  - once in the view

Tasks:
- [x] reproduce with `pytest tests/auth -k login`
- [ ] write the regression test

| file | change | risk |
|:-----|:-------|-----:|
| auth/views.py | move the cookie | high |
| auth/middleware.py | cache `has_perm` | low |

```python
if user.check_password(raw):
    login(request, user)
```
See <https://example.com/MR/42> and [the ticket](https://example.com/T-7).
"""


def wide_table(columns: int, size: int) -> str:
    header = "|" + "|".join(f"c{i}" for i in range(columns)) + "|"
    rule = "|" + "|".join("-" for _ in range(columns)) + "|"
    row = "|" + "|".join("x" for _ in range(columns)) + "|"
    return "\n".join([header, rule, *[row] * max(1, (size - len(header) - len(rule)) // (len(row) + 1))])


def indented_lists(size: int) -> str:
    lines: list[str] = []
    while sum(len(line) + 1 for line in lines) < size:
        lines.append("  " * len(lines) + "- item")
    return "\n".join(lines)


# What hostile text is made of: a unit repeated to the size measured.
UNITS = ["[", "[a](", "![", "[ \n", "a\n===\n", "---\n", "a\n\n", "- a\n", "<a ", "<!--", "*", "*a", "**a _b", "~~"]
UNITS += ["- [ ] ", "> ", "1. "]


def inputs(size: int) -> dict[str, str]:
    texts = {
        "ordinary notes": "\n\n".join([NOTE] * (size // len(NOTE))),
        "lists nested by indentation": indented_lists(size),
        "table of 400 columns": wide_table(400, size),
        "table of 4 columns": wide_table(4, size),
        "backtick runs": "".join("`" * (i % 50 + 1) + "a" for i in range(size // 27)),
        "[a]: refs, then uses": "[a]: https://e.org\n" * (size // 40) + "[a] " * (size // 8),
    }
    texts.update({f"{unit!r} repeated": unit * (size // len(unit)) for unit in UNITS})
    return texts


def largest_formatted(text: str) -> str:
    """The longest start of `text` the renderer still formats (under its cost budget, if it has one)."""
    budget, prices = getattr(markdown, "COST_BUDGET", None), getattr(markdown, "MICROSECONDS", None)
    if budget is None or prices is None:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if sum(cost * text[:middle].count(char) for char, cost in prices.items()) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def render(text: str) -> str:
    markdown._render_cached.cache_clear()
    return str(markdown.render_markdown(text))


def measure(label: str, text: str, repeat: int) -> None:
    seconds, output = [], ""
    for _ in range(repeat):
        started = time.process_time()
        output = render(text)
        seconds.append(time.process_time() - started)
    seconds.sort()
    shown = "plain text" if "shown as plain text" in output else "formatted"
    median = seconds[len(seconds) // 2]
    worst = seconds[-1]
    print(f"  {label} ({len(text):,} chars): median {median * 1000:.1f} ms, worst {worst * 1000:.1f} ms CPU, {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chars", type=int, default=CAP, help="the size of each hostile text (default: the cap)")
    args = parser.parse_args()
    print(f"renderer: {markdown.__file__}  (size cap {CAP:,} characters)")
    render(NOTE)  # build this thread's parser first: not part of any figure
    measure("one ordinary note", NOTE, args.repeat * 10)
    print(f"at {args.chars:,} characters:")
    texts = inputs(args.chars)
    for label, text in texts.items():
        measure(label, text, args.repeat)
    if hasattr(markdown, "COST_BUDGET"):
        print("the longest start of each that is still formatted (under COST_BUDGET):")
        for label, text in texts.items():
            start = largest_formatted(text)
            if start != text:
                measure(label, start, args.repeat)


if __name__ == "__main__":
    main()
