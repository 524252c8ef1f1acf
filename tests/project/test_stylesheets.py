"""Every stylesheet's blocks close where they are meant to.

The dashboard's stylesheet grows by blocks appended at its end, several engineers at a time; a merge that
keeps both sides of a conflict can drop one block's closing brace, and then every rule after it sits inside
a phone-only `@media` and quietly stops applying on a desktop. Browsers report nothing, so this counts.
"""

from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "workrail_site" / "static"


def unclosed_blocks(css: str) -> list[int]:
    """The line of each `{` left open at the end of `css` (comments and quoted strings skipped)."""
    opened: list[int] = []
    line, i = 1, 0
    while i < len(css):
        ch = css[i]
        if css.startswith("/*", i):
            end = css.find("*/", i + 2)
            end = len(css) if end < 0 else end + 2
            line += css.count("\n", i, end)
            i = end
            continue
        if ch in "\"'":
            end = css.find(ch, i + 1)
            end = len(css) if end < 0 else end + 1
            line += css.count("\n", i, end)
            i = end
            continue
        if ch == "\n":
            line += 1
        elif ch == "{":
            opened.append(line)
        elif ch == "}":
            if not opened:
                raise AssertionError(f"a '}}' on line {line} closes nothing")
            opened.pop()
        i += 1
    return opened


@pytest.mark.parametrize("sheet", sorted(STATIC.rglob("*.css")), ids=lambda p: p.name)
def test_every_block_of_a_stylesheet_is_closed(sheet: Path):
    assert unclosed_blocks(sheet.read_text(encoding="utf-8")) == []


def test_the_count_finds_a_block_left_open():
    assert unclosed_blocks("a { b: c; }\n@media (x) {\n  d { e: f; }\n/* } */ g { h: '}' }") == [2]
