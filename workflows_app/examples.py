"""Which workflows are examples or tests: hidden from an agent's list unless it asks for them
(list_workflows `includeExamples`), marked as such on the dashboard. The one place this is decided.

Data first: a tag file's `"hidden": true` for the workflow (WorkRail marks its test workflows so), or
the tag `example` among the workflow's tags. Only when neither says anything is the name looked at, a
heuristic over other people's naming: a file under an `examples` directory of its source, or an id
whose name starts with `test-`/`test_` or ends with `-example`/`_example`.
"""

from __future__ import annotations

import re
from pathlib import Path

EXAMPLE_TAG = "example"
EXAMPLES_DIRECTORY = "examples"
_EXAMPLE_NAME = re.compile(r"^test[-_]|[-_]example$")


def is_example(*, name: str, tags: tuple[str, ...], hidden: bool | None, path: Path, root: Path) -> bool:
    """`name` is the id without its namespace; `hidden` is what a tag file says (None: not listed in one)."""
    if hidden is not None:
        return hidden
    if EXAMPLE_TAG in tags:
        return True
    inside = path.relative_to(root).parts[:-1] if path.is_relative_to(root) else ()
    return EXAMPLES_DIRECTORY in inside or _EXAMPLE_NAME.search(name) is not None
