"""JSON Schemas for the MCP tool list, generated from the models (JSON documents: JsonObject).

A tool's outputSchema admits its success shape(s) and the error body: clients that validate
structured content (the TypeScript SDK does, on errors too) then accept every answer we give.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from runs.contract.errors import ErrorResult
from workflows_app.engine.jsontypes import JsonObject


class _Untitled(GenerateJsonSchema):
    """Drops the `title` pydantic derives from each Python name: it only repeats the key and bloats
    tools/list, which every agent reads."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        generated = super().model_schema(schema)
        generated.pop("title", None)
        return generated


def input_schema(model: type[BaseModel]) -> JsonObject:
    return compact(model.model_json_schema(by_alias=True, schema_generator=_Untitled))


def output_schema(*models: type[BaseModel]) -> JsonObject:
    union: Any = functools.reduce(operator.or_, (*models, ErrorResult))
    schema = TypeAdapter(union).json_schema(by_alias=True, mode="serialization", schema_generator=_Untitled)
    # MCP wants an object schema at the top; the union sits inside it.
    return compact({"type": "object", **schema})


def compact(schema: JsonObject) -> JsonObject:
    """The same constraints, in the form validators check fastest: references inlined, and each
    `anyOf: [T, {type: null}]` pydantic writes for an optional field folded into `type: [T, "null"]`."""
    return _fold_nullable(inline_refs(schema))


_SAFE_TO_FOLD = {
    "type",
    "description",
    "default",
    "maxLength",
    "minLength",
    "pattern",
    "minimum",
    "maximum",
    "items",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "additionalProperties",
    "enum",
}


def _fold_nullable(node: Any) -> Any:
    if isinstance(node, list):
        return [_fold_nullable(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _fold_nullable(value) for key, value in node.items()}
    choices = node.get("anyOf")
    if isinstance(choices, list) and len(choices) == 2 and {"type": "null"} in choices:
        other = choices[0] if choices[1] == {"type": "null"} else choices[1]
        # Every keyword but type and enum applies to one JSON type only, so null passes them anyway.
        if isinstance(other.get("type"), str) and set(other) <= _SAFE_TO_FOLD:
            folded = {**other, "type": [other["type"], "null"]}
            if "enum" in folded:
                folded["enum"] = [*folded["enum"], None]
            rest = {key: value for key, value in node.items() if key != "anyOf"}
            return {**folded, **rest}
    return node


def inline_refs(schema: JsonObject) -> JsonObject:
    """`schema` with every `$ref` to its own `$defs` replaced by the definition, except where a
    definition refers to itself (a recursive shape keeps its `$ref`). Clients validate each answer
    against these schemas, and a validator that resolves a reference per nested object (Python's
    jsonschema does) is several times slower than one that reads the shape in place."""
    definitions: JsonObject = schema.get("$defs", {})
    kept: set[str] = set()

    def expand(node: Any, expanding: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [expand(item, expanding) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in expanding:
                kept.add(name)
                return node
            return {**expand(definitions[name], (*expanding, name)), **{k: v for k, v in node.items() if k != "$ref"}}
        return {key: expand(value, expanding) for key, value in node.items() if key != "$defs"}

    inlined: JsonObject = expand(schema, ())
    if kept:
        inlined["$defs"] = {name: expand(definitions[name], (name,)) for name in sorted(kept)}
    return inlined
