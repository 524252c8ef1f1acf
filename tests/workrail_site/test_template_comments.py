"""Django's one-line comment tag, `{# … #}`, ends on the line it starts: one that runs over two lines is not a
comment and is printed as page text (round 63: a note on the refusal's developer fold was shown on every refused
step, at both sizes). Longer notes use `{% comment %}`."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "workrail_site" / "templates"
UNCLOSED = re.compile(r"\{#(?:(?!#\}).)*$")  # a `{#` with no `#}` after it on its line


def test_every_one_line_comment_ends_on_its_line():
    found = [
        f"{path.relative_to(TEMPLATES)}:{number}"
        for path in sorted(TEMPLATES.rglob("*.html"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if UNCLOSED.search(line)
    ]
    assert not found, f"a {{# … #}} comment spans lines (printed as text): {found}"
