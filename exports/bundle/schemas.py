"""JSON Schema validation of what a bundle holds, in time linear in its text.

A bundle brings both the schemas (its workflows' output contracts) and the values checked against
them (the artifacts and examples it recorded). jsonschema matches `pattern`, `patternProperties`
(and, through them, `additionalProperties`) with Python's backtracking `re`, so a pattern such as
(a+)+$ and a long enough value would keep an import busy for ever. Here those keywords match with
RE2, as the workflow conditions do (workflows_app/conditions.py): linear in the text, whatever the
pattern. A pattern RE2 cannot compile (a backreference, a lookaround) is not checked here. The one
other keyword that matches patterns, `unevaluatedProperties` beside `patternProperties`, is refused
in a bundle's schemas (`backtracking_keywords`): no contract WorkRail ships uses it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import re2
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> Any:
    try:
        return re2.compile(pattern, options=_OPTIONS)
    except re2.error:
        return None


def _found(pattern: Any, text: str) -> bool:
    compiled = _compiled(pattern) if isinstance(pattern, str) else None
    return compiled is None or compiled.search(text) is not None


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _found(pattern, instance):
        yield ValidationError(f"{instance[:80]!r} does not match {str(pattern)[:80]!r}")


def _pattern_properties(validator: Any, properties: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in properties.items():
        for key, value in instance.items():
            if _found(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    named = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [key for key in instance if key not in named and not any(_found(p, key) for p in patterns)]
    if validator.is_type(allowed, "object"):
        for key in extras:
            yield from validator.descend(instance[key], allowed, path=key)
    elif not allowed and extras:
        yield ValidationError(f"Additional properties are not allowed ({', '.join(map(repr, sorted(extras)))})")


LinearValidator = validators.extend(
    Draft202012Validator,
    {"pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties},
)


def backtracking_keywords(schema: Any) -> bool:
    """Whether some subschema of `schema` has both unevaluatedProperties and patternProperties (which
    jsonschema would match with `re`). Walked without recursion."""
    stack = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "unevaluatedProperties" in item and "patternProperties" in item:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def first_error(schema: dict[str, Any], value: Any) -> ValidationError | None:
    """The first way `value` fails `schema` (a schema already known to be valid), or None."""
    return next(iter(LinearValidator(schema).iter_errors(value)), None)
