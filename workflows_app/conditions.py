"""The condition language of the WorkRail format: check it at load time, evaluate it at run time.

A condition is an object. `var` names a context variable (dotted paths reach into objects); the
comparison operators test it; `and` / `or` / `not` combine conditions. Several operators in one
object must all hold. An empty object is always true. Evaluation never raises: a comparison that
cannot be made (a number against text, say) is simply false, so a workflow cannot crash a run.
workflows_app/condition_words.py says a condition in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import re2

COMPARISONS = (
    "equals",
    "not_equals",
    "gt",
    "gte",
    "lt",
    "lte",
    "contains",
    "startsWith",
    "endsWith",
    "matches",
    "in",
)
COMBINATORS = ("and", "or", "not")
NUMERIC = ("gt", "gte", "lt", "lte")
TEXTUAL = ("startsWith", "endsWith", "matches")
MAX_PATTERN_LENGTH = 512
_MISSING = object()


def condition_problems(condition: Any, pointer: str = "") -> list[tuple[str, str]]:
    """Every problem in `condition` as (JSON pointer, message); empty when it is valid."""
    if not isinstance(condition, Mapping):
        return [(pointer, "a condition must be an object")]
    problems: list[tuple[str, str]] = []
    unknown = sorted(set(condition) - {"var", *COMPARISONS, *COMBINATORS})
    if unknown:
        problems.append((pointer, f"unknown operator(s) {', '.join(unknown)}"))
    used = [op for op in COMPARISONS if op in condition]
    if used and not isinstance(condition.get("var"), str):
        problems.append((pointer, f"'{used[0]}' needs a 'var' naming the context variable to test"))
    if "var" in condition and (not isinstance(condition["var"], str) or not condition["var"].strip()):
        problems.append((f"{pointer}/var", "'var' must be a non-empty variable name"))
    for op in NUMERIC:
        value = condition.get(op, 0)
        if isinstance(value, bool) or not isinstance(value, int | float):
            problems.append((f"{pointer}/{op}", f"'{op}' compares numbers; give a number"))
    for op in TEXTUAL:
        if op in condition and not isinstance(condition[op], str):
            problems.append((f"{pointer}/{op}", f"'{op}' takes a string"))
    if isinstance(condition.get("matches"), str):
        pattern = condition["matches"]
        if len(pattern) > MAX_PATTERN_LENGTH:
            problems.append((f"{pointer}/matches", f"pattern longer than {MAX_PATTERN_LENGTH} characters"))
        else:
            try:
                _regex(pattern)
            except re2.error as exc:
                reason = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else exc
                problems.append(
                    (
                        f"{pointer}/matches",
                        f"invalid regular expression: {reason} (RE2 syntax: no backreferences or lookaround)",
                    )
                )
    if "in" in condition and not isinstance(condition["in"], list):
        problems.append((f"{pointer}/in", "'in' takes a list of allowed values"))
    for op in ("and", "or"):
        if op in condition:
            items = condition[op]
            if not isinstance(items, list) or not items:
                problems.append((f"{pointer}/{op}", f"'{op}' takes a non-empty list of conditions"))
            else:
                for index, item in enumerate(items):
                    problems += condition_problems(item, f"{pointer}/{op}/{index}")
    if "not" in condition:
        problems += condition_problems(condition["not"], f"{pointer}/not")
    return problems


def lookup(context: Mapping[str, Any], name: str) -> Any:
    """The value at a dotted path, or a private sentinel when any part is missing."""
    value: Any = context
    for part in name.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part == "length":
            value = len(value)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def evaluate(condition: Mapping[str, Any] | None, context: Mapping[str, Any]) -> bool:
    if not condition:
        return True
    results: list[bool] = []
    if "and" in condition:
        results.append(all(evaluate(item, context) for item in condition["and"]))
    if "or" in condition:
        results.append(any(evaluate(item, context) for item in condition["or"]))
    if "not" in condition:
        results.append(not evaluate(condition["not"], context))
    if "var" in condition:
        value = lookup(context, condition["var"])
        comparisons = [op for op in COMPARISONS if op in condition]
        if not comparisons:
            results.append(value is not _MISSING and bool(value))
        results += [_compare(op, value, condition[op]) for op in comparisons]
    return all(results)


def _compare(op: str, value: Any, expected: Any) -> bool:
    if op == "not_equals":
        return not _equal(value, expected)
    if value is _MISSING:
        return False
    if op == "equals":
        return _equal(value, expected)
    if op == "in":
        return isinstance(expected, list) and any(_equal(value, item) for item in expected)
    if op in NUMERIC:
        number = _number(value)
        if number is None or _number(expected) is None:
            return False
        return {
            "gt": number > expected,
            "gte": number >= expected,
            "lt": number < expected,
            "lte": number <= expected,
        }[op]
    if op == "contains":
        if isinstance(value, list):
            return any(_equal(item, expected) for item in value)
        return _fold(expected) in _fold(value)
    if op == "startsWith":
        return _fold(value).startswith(_fold(expected))
    if op == "endsWith":
        return _fold(value).endswith(_fold(expected))
    if op == "matches":
        return _regex(str(expected)).search(_text(value)) is not None
    return False


def _equal(value: Any, expected: Any) -> bool:
    """Equality as an author means it: 'Simple' == 'simple ', 3 == '3', True == 'true'."""
    if value is _MISSING:
        return expected is None
    if isinstance(value, str) and isinstance(expected, str):
        return _fold(value) == _fold(expected)
    if isinstance(value, bool) or isinstance(expected, bool):
        return _boolish(value) is not None and _boolish(value) == _boolish(expected)
    if isinstance(value, int | float) or isinstance(expected, int | float):
        left, right = _number(value), _number(expected)
        return left is not None and left == right
    return bool(value == expected)


def _boolish(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
        return value.strip().lower() == "true"
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _fold(value: Any) -> str:
    return _text(value).strip().casefold()


# RE2 matches in time linear in the text, whatever the pattern: a workflow file (a cloned repository
# can bring one) cannot hang the server with a catastrophically backtracking pattern such as (a+)+$.
# The price: no backreferences and no lookaround, refused when the workflow is loaded.
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a bad pattern is a diagnostic, not a line on stderr


@lru_cache(maxsize=256)
def _regex(pattern: str) -> Any:
    return re2.compile(pattern, options=_RE2_OPTIONS)
