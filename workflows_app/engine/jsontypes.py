"""Type names for JSON whose shape is not the engine's to fix.

The engine's own data (the compiled workflow, the engine state, the pending view) has its shapes
declared in model.py; what is left here is for the JSON users shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

JsonObject = dict[str, Any]
"""A JSON object whose shape is not ours to fix: the run's context, an artifact, a JSON Schema, the
payload of a stored event or an error's details. Its keys and values come from agents, users or the
store's own history, so code reads it as JSON. A value with a fixed shape gets its own type
(model.py: the compiled workflow, its steps, the engine state, the pending view, issues, warnings)."""
Position = list[int]  # indices into the step tree: top-level index, then one body index per enclosing loop


def as_json(value: Mapping[str, Any]) -> JsonObject:
    """A typed JSON object (a TypedDict of engine/model.py) where an untyped one is taken: a pydantic field
    declared as a JSON object, a stored payload. The same object, not a copy."""
    return cast(JsonObject, value)
