"""Type names shared by the engine modules.

Compiled workflows, engine states, outputs and views are plain JSON, so they are typed as
dictionaries; the names only say which kind of dictionary a function expects.
"""

from __future__ import annotations

from typing import Any

JsonObject = dict[str, Any]
Step = dict[str, Any]  # one compiled step ("kind": "step" | "loop" | "parallel")
Position = list[int]  # indices into the step tree: top-level index, then one body index per enclosing loop
