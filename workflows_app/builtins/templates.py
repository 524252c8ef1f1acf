"""Routine templates: `templateCall.templateId` values the compiler can expand.

WorkRail has no built-in (static) template today; every template comes from a routine:
`wr.templates.routine.<name>` names the routine whose id is `routine-<name>` (the prefix WorkRail
strips when it registers a routine), or, for a routine whose id lacks that prefix, `<name>` itself.
Any other template id is unknown, and since a template call changes the steps a run goes through,
an unknown one is an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

ROUTINE_TEMPLATE_PREFIX = "wr.templates.routine."
ROUTINE_ID_PREFIX = "routine-"


def routine_name_of(template_id: str) -> str | None:
    """`wr.templates.routine.design-review` -> `routine-design-review`; None for other templates."""
    names = routine_names_of(template_id)
    return names[0] if names else None


def routine_names_of(template_id: str) -> list[str]:
    """The routine names a template id may stand for, in the order they are looked up:
    `routine-<name>`, then `<name>` (a routine named without the prefix). Empty for other ids."""
    if not template_id.startswith(ROUTINE_TEMPLATE_PREFIX):
        return []
    rest = template_id[len(ROUTINE_TEMPLATE_PREFIX) :]
    if not rest:
        return []
    if rest.startswith(ROUTINE_ID_PREFIX):
        return [rest]
    return [f"{ROUTINE_ID_PREFIX}{rest}", rest]


# Template arguments: `{{name}}` (ours) and WorkRail's `{name}`, the latter only when not part of a
# `{{...}}` context placeholder. Only names the call passes are replaced; anything else is left as
# written (a context placeholder for run time, or literal braces in the routine's text).
_DOUBLE_ARG = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_SINGLE_ARG = re.compile(r"(?<!\{)\{([^{}]+)\}(?!\})")


def substitute_args(value: Any, args: dict[str, Any], grow: Callable[[int], None] | None = None) -> Any:
    """`value` (any JSON) with the call's arguments put in place of their placeholders.

    `grow`, when given, is told how many characters each substitution adds before the longer string is
    built, so that it can refuse (by raising) a text that would grow past a bound (compiler._Budget):
    an argument may hold placeholders of an outer call, so text can multiply at every level of calls."""
    if isinstance(value, str):
        value = _substitute(_DOUBLE_ARG, value, args, grow)
        return _substitute(_SINGLE_ARG, value, args, grow)
    if isinstance(value, list):
        return [substitute_args(item, args, grow) for item in value]
    if isinstance(value, dict):
        return {key: substitute_args(item, args, grow) for key, item in value.items()}
    return value


def _substitute(pattern: re.Pattern[str], text: str, args: dict[str, Any], grow: Callable[[int], None] | None) -> str:
    if grow is not None:
        added = sum(
            len(_text(args[m.group(1)])) - len(m.group(0)) for m in pattern.finditer(text) if m.group(1) in args
        )
        if added > 0:
            grow(added)
    return pattern.sub(lambda m: _text(args[m.group(1)]) if m.group(1) in args else m.group(0), text)


def _text(value: Any) -> str:
    """An argument as WorkRail writes it into the text (JavaScript's String(): true, not True)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
