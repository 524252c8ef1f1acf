"""Run-time `{{placeholder}}` substitution in prompts.

The compiler keeps context placeholders because their values only exist at run time. Supported:
`{{name}}`, dotted paths (`{{ticket.priority}}`, `{{items.length}}`, `{{items.0}}`) resolved with
conditions.lookup, and one integer `+` or `-` (`{{index + 1}}`). A variable that is not set is shown
as `[not set: name]`, never as raw braces: the agent must see that a value is missing, not mistake
the template for text to copy (and the prompt keeps the name, so it can say what it lacks).
"""

from __future__ import annotations

import json
import re
from typing import Any

from workflows_app.conditions import lookup
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.values import MISSING, is_integer

_PLACEHOLDER = re.compile(
    r"\{\{\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*(?:(?P<op>[+-])\s*(?P<operand>\d+)\s*)?\}\}"
)
_INTEGER_TEXT = re.compile(r"\s*-?\d+\s*")


def render(text: str, context: JsonObject) -> str:
    """`text` with every resolvable placeholder replaced; a single pass, so values are never re-expanded."""
    return _PLACEHOLDER.sub(lambda match: _replacement(match, context), text)


def without_context(text: str) -> str:
    """`text` for a reader that has no run context (a step as the workflow file writes it): each
    placeholder as its expression in brackets (`Review [area]`), never raw braces."""
    return _PLACEHOLDER.sub(lambda m: f"[{m['name']} {m['op']} {m['operand']}]" if m["op"] else f"[{m['name']}]", text)


def placeholders(text: str) -> list[str]:
    """The expression of each placeholder in `text`, without its arithmetic: `ticket.priority` for
    `{{ticket.priority}}`, `index` for `{{index + 1}}`."""
    return [match["name"] for match in _PLACEHOLDER.finditer(text)]


def _replacement(match: re.Match[str], context: JsonObject) -> str:
    value = lookup(context, match["name"])
    if value is MISSING:
        return unset_marker(match["name"])
    if match["op"] is None:
        return format_value(value)
    number = _integer(value)
    if number is None:  # arithmetic on a non-integer has no sensible result
        return f"[not a whole number: {match['name']}]"
    operand = int(match["operand"])
    return str(number + operand if match["op"] == "+" else number - operand)


def unset_marker(name: str) -> str:
    return f"[not set: {name}]"


def _integer(value: Any) -> int | None:
    if is_integer(value):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value):
        return int(value)
    return None


def format_value(value: Any) -> str:
    """Text as is; everything else as compact JSON (true/false, null, [1,2], {"a":1})."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON (cannot come from a JSON state, but never crash a prompt)
        return str(value)
