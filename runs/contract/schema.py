"""JSON Schemas for the MCP tool list, generated from the models.

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


class _Untitled(GenerateJsonSchema):
    """Drops the `title` pydantic derives from each Python name: it only repeats the key and bloats
    tools/list, which every agent reads."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        generated = super().model_schema(schema)
        generated.pop("title", None)
        return generated


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(by_alias=True, schema_generator=_Untitled)


def output_schema(*models: type[BaseModel]) -> dict[str, Any]:
    union: Any = functools.reduce(operator.or_, (*models, ErrorResult))
    schema = TypeAdapter(union).json_schema(by_alias=True, mode="serialization", schema_generator=_Untitled)
    # MCP wants an object schema at the top; the union sits inside it.
    return {"type": "object", **schema}
