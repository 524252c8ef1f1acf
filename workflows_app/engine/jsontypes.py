"""Type names shared by the engine modules.

Compiled workflows, engine states, outputs and views are plain JSON, so they are typed as
dictionaries; the names only say which kind of dictionary a function expects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

JsonObject = dict[str, Any]
"""A JSON object whose shape is not ours to fix: a compiled workflow document, an engine state, the
run's context, an artifact, a JSON Schema, the payload of a stored event or an error's details. Its
keys and values come from workflow files, agents or the store's own history, so code reads it as
JSON. A value with a fixed shape (a warning, a blocking issue, a step's output) gets its own type."""
Step = dict[str, Any]  # one compiled step ("kind": "step" | "loop" | "parallel")
Position = list[int]  # indices into the step tree: top-level index, then one body index per enclosing loop


def as_json(value: Mapping[str, Any]) -> JsonObject:
    """A typed JSON object (a TypedDict of engine/model.py) where an untyped one is taken: a pydantic field
    declared as a JSON object, a stored payload. The same object, not a copy."""
    return cast(JsonObject, value)
