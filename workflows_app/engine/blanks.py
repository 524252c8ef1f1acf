"""Typed blanks: the `<fill in ...>` templates an answer offers where the agent must decide or observe.

A template is written to be copied and completed, so it must never carry a value of its own that
the agent could send back unread: no decision, no finding, no branch name. Each value the agent must
supply is a blank saying its type (and for a closed set, `one of ...`); only structural constants
stay literal: a `const` in the schema (the artifact's `kind`, a format `version`) and the ids the
server chose (the loop a decision is for, the assessment being rated). Every blank has the same
form, so a template sent back unchanged is recognised whatever its contract, and blocks.

Which fields a template offers: every field the schema requires, and the optional ones the step's
prompt names (a prompt that asks for `branchName` "if the work is on a branch" gets that blank,
marked optional; the names come from the step's StepAsks, workflows_app/prose/asks.py). Arrays are a
one-item template of their items, so the shape is visible. An optional field that is itself an object
or a list is offered whole when the prompt names it, its required parts plain blanks (a blank cannot
mark a whole structure optional, and half of one is invalid): `optional_structures` names them, so the
answer can say they may be removed whole.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from workflows_app.engine.jsontypes import JsonObject

PREFIX = "<fill in"
OPTIONAL = "(optional; "  # how a blank says its field may be removed instead
MAX_DEPTH = 6  # contract schemas are shallow; this bounds a hostile inline schema


def blank(kind: str, what: str, *, optional: bool = False) -> str:
    """`<fill in (string): summary>`, or for an optional field `<fill in (optional; string): branchName;
    or remove this field>`: the one form every blank has."""
    if optional:
        return f"{PREFIX} {OPTIONAL}{kind}): {what}; or remove this field>"
    return f"{PREFIX} ({kind}): {what}>"


def artifact_template(
    schema: JsonObject | None, *, fixed: dict[str, Any] | None = None, mentioned: Collection[str] = ()
) -> JsonObject | None:
    """A template of an artifact that `schema` accepts; None when the schema is not an object schema.
    `fixed` holds the values the server chose (kept literal, after `kind`); `mentioned` holds the
    words of the step's prompt (the optional fields named there are offered, marked optional)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return None
    template = _object(schema, "artifact", mentioned, fixed or {}, 0, False)
    if isinstance(template, dict) and "kind" not in template:
        # Every artifact names its contract (the tool's input requires `kind`), even where a schema leaves
        # `kind` out of `required`: the template is one the agent can send as it is, once filled.
        named = schema["properties"].get("kind")
        kind = _value(named, "kind", mentioned, 1, False) if named is not None else blank("string", "kind")
        template = {"kind": kind, **template}
    return template


def value_template(schema: Any, name: str, mentioned: Collection[str] = (), *, optional: bool = False) -> Any:
    """The template of one value: a literal for a constant, else a blank (objects and arrays built
    from their parts)."""
    return _value(schema, name, mentioned, 0, optional)


def _value(schema: Any, name: str, mentioned: Collection[str], depth: int, optional: bool) -> Any:
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return blank("any JSON value", name, optional=optional)
    if "const" in schema:
        return schema["const"]
    for combinator in ("anyOf", "oneOf"):
        branches = schema.get(combinator)
        if isinstance(branches, list) and branches:
            # The simplest branch says the most in one line; the schema still admits the others.
            simplest = min(branches, key=lambda branch: len(str(branch)))
            return _value(simplest, name, mentioned, depth + 1, optional)
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return blank("one of " + ", ".join(str(choice) for choice in schema["enum"]), name, optional=optional)
    kind = schema.get("type")
    if isinstance(schema.get("properties"), dict) and schema["properties"]:
        return _object(schema, name, mentioned, {}, depth, optional)
    extra = schema.get("additionalProperties")
    if kind == "object" and isinstance(extra, dict) and extra:
        # A map: one entry, its key a blank too (a rating per dimension, say).
        return {
            blank("string", f"a key of {name}"): _value(
                extra, f"the value of that {name} entry", mentioned, depth + 1, optional
            )
        }
    if kind == "array":
        # A one-item template: the shape of an item, each of its values a blank.
        return [_value(schema.get("items"), f"one item of {name}", mentioned, depth + 1, optional)]
    return blank(_describe(schema), name, optional=optional)


def _object(
    schema: JsonObject, name: str, mentioned: Collection[str], fixed: dict[str, Any], depth: int, optional: bool
) -> JsonObject:
    properties: dict[str, Any] = schema["properties"]
    required = [key for key in schema.get("required") or [] if isinstance(key, str)]
    built: JsonObject = {}
    for key in required:
        prop = properties.get(key)
        if isinstance(prop, dict) and "const" in prop:
            built[key] = prop["const"]  # `kind` (and a format version) first, as artifacts are written
    for key, value in fixed.items():
        if key in properties:
            built[key] = value
    for key, prop in properties.items():
        if key in built:
            continue
        if key in required:
            built[key] = _value(prop, key, mentioned, depth + 1, optional)
        elif key in mentioned and _is_structure(prop):
            # Offered because the prompt asks for it; its own required parts are plain blanks (half a
            # structure is invalid), and the instructions name it as one that may be removed whole.
            built[key] = _value(prop, key, mentioned, depth + 1, False)
        elif key in mentioned:
            built[key] = _value(prop, key, mentioned, depth + 1, True)
    return built


def optional_structures(schema: JsonObject | None, mentioned: Collection[str]) -> list[str]:
    """The optional top-level fields of an artifact that are objects or lists and that the prompt names."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return []
    required = set(schema.get("required") or [])
    return [
        key
        for key, prop in schema["properties"].items()
        if key not in required and key in mentioned and _is_structure(prop)
    ]


def _is_structure(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    return schema.get("type") in ("object", "array") or isinstance(schema.get("properties"), dict)


_FORMATS = {  # patterns the contracts use, in words
    "date-time": "a UTC date-time such as 2026-01-31T09:30:00Z",
    "uuid": "a UUID",
}


def _describe(schema: JsonObject) -> str:
    """`string, at most 200 characters`, `integer, 0 to 100`: the type and the bounds worth knowing."""
    kind = schema.get("type")
    kind = "/".join(kind) if isinstance(kind, list) else (kind or "any JSON value")
    bounds = []
    pattern = schema.get("pattern")
    named = _FORMATS.get(str(schema.get("format"))) or _pattern_format(pattern)
    if named:
        bounds.append(named)
    elif isinstance(pattern, str):
        bounds.append(f"matching {pattern}")
    low, high = schema.get("minLength"), schema.get("maxLength")
    if isinstance(high, int):
        bounds.append(f"at most {high} characters")
    elif isinstance(low, int) and low > 1:
        bounds.append(f"at least {low} characters")
    low, high = schema.get("minimum"), schema.get("maximum")
    if isinstance(low, int | float) and isinstance(high, int | float):
        bounds.append(f"{low} to {high}")
    elif isinstance(low, int | float):
        bounds.append(f"at least {low}")
    elif isinstance(high, int | float):
        bounds.append(f"at most {high}")
    return ", ".join([str(kind), *bounds])


def _pattern_format(pattern: Any) -> str | None:
    if not isinstance(pattern, str):
        return None
    if "T" in pattern and "Z$" in pattern and "[0-9]{4}" in pattern:
        return _FORMATS["date-time"]
    if pattern.startswith("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}"):
        return _FORMATS["uuid"]
    return None
