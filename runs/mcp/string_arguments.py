"""Object arguments sent as JSON-encoded strings, read as the objects they encode.

Some clients send every argument as a string (the MCP Inspector's form does): `output` arrives as
'{"notesMarkdown": "..."}' instead of the object. The TypeScript WorkRail accepts that, so this does too,
for the arguments whose schema is an object, and only when the string decodes to a JSON object; anything
else goes to the input model unchanged and is refused there as before. The answer then carries a note
(ARGUMENT_DECODED) naming the arguments, so the agent or its client can send objects next time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from runs.contract.execution import WarningDict
from workflows_app.engine.jsontypes import JsonObject

CODE = "ARGUMENT_DECODED"


def object_arguments(schema: JsonObject) -> frozenset[str]:
    """The top-level arguments of an input schema that take a JSON object (a model, a mapping)."""

    def is_object(prop: Any) -> bool:
        if not isinstance(prop, dict):
            return False
        kind = prop.get("type")
        if "$ref" in prop or kind == "object" or (isinstance(kind, list) and "object" in kind):
            return True
        return any(is_object(branch) for branch in prop.get("anyOf", []))

    properties = schema.get("properties", {})
    return frozenset(name for name, prop in properties.items() if is_object(prop))


def decode(arguments: Any, names: frozenset[str]) -> tuple[Any, list[str]]:
    """`arguments` with each of `names` that holds a string encoding a JSON object replaced by that object,
    and the names so replaced, in the order sent."""
    if not isinstance(arguments, Mapping) or not names:
        return arguments, []
    decoded: dict[str, Any] = {}
    for name, value in arguments.items():
        if name in names and isinstance(value, str):
            try:
                parsed = json.loads(value)
            except ValueError:
                continue
            if isinstance(parsed, dict):
                decoded[name] = parsed
    if not decoded:
        return arguments, []
    return {**arguments, **decoded}, list(decoded)


def note(names: list[str]) -> WarningDict:
    listed = ", ".join(names)
    return {
        "code": CODE,
        "message": f"{listed} arrived as a string holding JSON and was read as the object it encodes; "
        "send objects as objects.",
    }
