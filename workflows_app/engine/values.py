"""Small helpers about JSON values that several engine modules need."""

from __future__ import annotations

from typing import Any, Final, TypeGuard

from workflows_app.conditions import lookup

# conditions.lookup returns a private sentinel for a missing path; looking up a name that cannot
# exist in an empty mapping yields that same object, so the engine can recognise "missing" without
# reaching into the conditions module's private names.
MISSING: Final = lookup({}, "")


def json_type(value: Any) -> str:
    """The JSON Schema type name of a value, for messages."""
    if value is MISSING:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def is_integer(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
