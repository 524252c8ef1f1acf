"""A condition of the WorkRail condition language (workflows_app/conditions.py) as one line, in the style
of whoever reads it. The one describer of conditions: everything that shows a condition calls it with
its structure; nothing reads the line back.

- AGENT: what an agent reads in answers, e.g. `riskLevel is "high" or changeSize is "large"`. Pinned by
  the surface snapshots: its wording never changes by accident.
- CODE: the condition as a developer writes it, kept in a step's trace and shown as code beside the
  words: `taskComplexity == 'Small'`, `not skipTests`, `(a > 1) or (b in ['x', 'y'])`.
- PEOPLE: words for a page, each variable's name said as words (spoken_name): `task complexity is 'Small'`,
  `touches docs is true`, `polish rounds is more than 0`, `skip tests is false or not set`. The name as
  written is for a developer: pages keep it in the condition's code beside the words.

The styles differ in their words, how they show values, the order they say the parts of one object in,
and where they put brackets; the walk over the condition is the same for all three.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from workflows_app.conditions import COMPARISONS

PREVIEW_CHARS = 120  # a value is shown in at most this many characters
LISTED_VALUES = 8  # a list of values shows at most this many, then "…"
_MAX_DEPTH = 4  # how deep a preview looks into nested lists and objects


def spoken_name(name: str) -> str:
    """A context variable's name as words a newcomer reads (friction64 A1: "only if postComments is true"):
    "postComments" -> "post comments", "skip_tests" -> "skip tests", "review.depth" -> "review depth"; a word in
    capitals ("URL") keeps them. Read character by character, by the name's shape: said only, never read back."""
    words: list[str] = []
    word = ""
    for index, char in enumerate(name):
        before = name[index - 1] if index else ""
        after = name[index + 1] if index + 1 < len(name) else ""
        if char in "_.- ":
            words, word = [*words, word], ""
            continue
        starts = char.isupper() and (before.islower() or before.isdigit() or (before.isupper() and after.islower()))
        if starts and word:
            words, word = [*words, word], ""
        word += char
    said = " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in [*words, word] if w)
    return said or name


@dataclass(frozen=True)
class Style:
    words: Mapping[str, str]  # each comparison operator in words
    value: Callable[[Any], str]  # a compared value
    one_of: Callable[[Any], str]  # the value of `in`
    truthy: str  # a variable alone ({} is its name)
    falsy: str | None  # `not` of a variable alone; None: said as any other `not`
    variable_first: bool  # an object's comparisons before its and/or/not, or after them
    bracket_items: bool  # brackets around an and/or item that is itself compound
    bracket_combined: bool  # brackets around a whole and/or list beside other parts
    bracket_parts: bool  # brackets around compound parts when an object has several
    bracket_not: bool  # brackets after `not` even around a single word
    name: Callable[[str], str] = str  # a variable's name as this style says it


def describe(condition: Any, style: Style | None = None) -> str:
    """`condition` in `style` (AGENT when not given); "always" for none or an empty one."""
    return _said(condition, style or AGENT).text


def is_simple(condition: Any) -> bool:
    """One variable alone, `not` one, or one variable compared once: a condition a sentence can carry
    without brackets ("it runs only if taskComplexity is 'Small', and ...")."""
    if not isinstance(condition, Mapping) or not condition:
        return False
    if set(condition) == {"not"}:
        return _bare(condition["not"])
    compared = [op for op in COMPARISONS if op in condition]
    return isinstance(condition.get("var"), str) and set(condition) == {"var", *compared} and len(compared) <= 1


@dataclass(frozen=True)
class _Said:
    text: str
    compound: bool = False  # several clauses joined by and / or: bracketed where it stands beside others


def _said(condition: Any, style: Style) -> _Said:
    if not isinstance(condition, Mapping) or not condition:
        return _Said("always")
    compared = _compared(condition, style)
    combined = _combined(condition, style, alone=not compared)
    parts = compared + combined if style.variable_first else combined + compared
    if not parts:
        return _Said("always")
    if len(parts) == 1:
        return parts[0]
    shown = [_bracketed(part) if style.bracket_parts else part.text for part in parts]
    return _Said(" and ".join(shown), compound=True)


def _compared(condition: Mapping[str, Any], style: Style) -> list[_Said]:
    name = condition.get("var")
    if not isinstance(name, str):
        return []
    used = [op for op in COMPARISONS if op in condition]
    name = style.name(name)
    if not used:
        return [_Said(style.truthy.format(name))]
    return [
        _Said(f"{name} {style.words[op]} {style.one_of(condition[op]) if op == 'in' else style.value(condition[op])}")
        for op in used
    ]


def _combined(condition: Mapping[str, Any], style: Style, *, alone: bool) -> list[_Said]:
    parts: list[_Said] = []
    for combinator in ("and", "or"):
        items = condition.get(combinator)
        if isinstance(items, list) and items:
            said = [_said(item, style) for item in items]
            joined = f" {combinator} ".join(_bracketed(item) if style.bracket_items else item.text for item in said)
            if len(items) == 1:
                parts.append(said[0])
            elif style.bracket_combined and (parts or not alone or len(condition) > 1):
                parts.append(_Said(f"({joined})"))
            else:
                parts.append(_Said(joined, compound=True))
    if "not" in condition:
        parts.append(_Said(_negated(condition["not"], style)))
    return parts


def _negated(inner: Any, style: Style) -> str:
    if style.falsy is not None and _bare(inner):
        return style.falsy.format(style.name(inner["var"]))
    said = _said(inner, style).text
    return f"not ({said})" if style.bracket_not or not _bare(inner) else f"not {said}"


def _bare(condition: Any) -> bool:
    """A variable alone: {"var": name}."""
    return isinstance(condition, Mapping) and set(condition) == {"var"} and isinstance(condition["var"], str)


def _bracketed(said: _Said) -> str:
    return f"({said.text})" if said.compound else said.text


# --- values --------------------------------------------------------------------------------------------


def preview(value: Any) -> str:
    """A value as conditions compare it, at most PREVIEW_CHARS characters: strings quoted ('Large'),
    the rest as JSON; built piece by piece, so a huge value costs no more than a small one."""
    pieces: list[str] = []
    _write(value, pieces, [PREVIEW_CHARS + 1], 0)
    text = "".join(pieces)
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def _write(value: Any, pieces: list[str], budget: list[int], depth: int) -> None:
    """Appends `value`'s text to `pieces` until `budget[0]` characters are spent."""
    if budget[0] <= 0:
        return
    if isinstance(value, str):
        text = "'" + value[: budget[0]].replace("\\", "\\\\").replace("'", "\\'") + "'"
    elif isinstance(value, bool) or value is None:
        text = json.dumps(value)
    elif isinstance(value, int | float):
        text = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) else str(value)
    elif isinstance(value, list | Mapping):
        _write_container(value, pieces, budget, depth)
        return
    else:
        text = type(value).__name__
    pieces.append(text)
    budget[0] -= len(text)


def _write_container(value: list[Any] | Mapping[str, Any], pieces: list[str], budget: list[int], depth: int) -> None:
    opening, closing = ("[", "]") if isinstance(value, list) else ("{", "}")
    if depth >= _MAX_DEPTH:
        text = f"{opening}…{closing}" if value else f"{opening}{closing}"
        pieces.append(text)
        budget[0] -= len(text)
        return
    pieces.append(opening)
    budget[0] -= 1
    items = value if isinstance(value, list) else value.items()
    for index, item in enumerate(items):
        if budget[0] <= 0:
            return
        if index:
            pieces.append(", ")
            budget[0] -= 2
        if isinstance(value, list):
            _write(item, pieces, budget, depth + 1)
        else:
            key, inner = item
            _write(str(key), pieces, budget, depth + 1)
            pieces.append(": ")
            budget[0] -= 2
            _write(inner, pieces, budget, depth + 1)
    pieces.append(closing)
    budget[0] -= 1


def _code_value(value: Any) -> str:
    if isinstance(value, list):
        shown = [_code_value(item) for item in value[:LISTED_VALUES]]
        return "[" + ", ".join(shown + (["…"] if len(value) > LISTED_VALUES else [])) + "]"
    return preview(value)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _json_list(value: Any) -> str:
    return ", ".join(_json(item) for item in value) if isinstance(value, list) else _json(value)


def _spoken_list(value: Any) -> str:
    """'x', 'y' or 'z': at most LISTED_VALUES values, then "…"."""
    if not isinstance(value, list) or not value:
        return preview(value)
    shown = [preview(item) for item in value[:LISTED_VALUES]]
    if len(value) > LISTED_VALUES:
        return ", ".join(shown) + ", …"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


# --- the styles ----------------------------------------------------------------------------------------

# The operators every style says in the same words.
_SAID_ALIKE = {"contains": "contains", "startsWith": "starts with", "endsWith": "ends with", "matches": "matches"}

AGENT = Style(
    words={
        "equals": "is",
        "not_equals": "is not",
        "gt": ">",
        "gte": ">=",
        "lt": "<",
        "lte": "<=",
        **_SAID_ALIKE,
        "in": "is one of",
    },
    value=_json,
    one_of=_json_list,
    truthy="{} is set and true",
    falsy=None,
    variable_first=True,
    bracket_items=False,
    bracket_combined=True,
    bracket_parts=False,
    bracket_not=True,
)

CODE = Style(
    words={
        "equals": "==",
        "not_equals": "!=",
        "gt": ">",
        "gte": ">=",
        "lt": "<",
        "lte": "<=",
        **_SAID_ALIKE,
        "in": "in",
    },
    value=_code_value,
    one_of=_code_value,
    truthy="{}",  # true when set and not false, 0 or empty, as in JavaScript
    falsy=None,
    variable_first=False,
    bracket_items=True,
    bracket_combined=False,
    bracket_parts=True,
    bracket_not=False,
)

PEOPLE = Style(
    words={
        "equals": "is",
        "not_equals": "is not",
        "gt": "is more than",
        "gte": "is at least",
        "lt": "is less than",
        "lte": "is at most",
        **_SAID_ALIKE,
        "in": "is one of",
    },
    value=_code_value,
    one_of=_spoken_list,
    truthy="{} is true",
    falsy="{} is false or not set",
    variable_first=True,
    bracket_items=True,
    bracket_combined=False,
    bracket_parts=True,
    bracket_not=True,
    name=spoken_name,
)
