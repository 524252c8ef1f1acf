"""What a tool is, as data: its name, typed input and outputs, examples, annotations, the use case
behind it and how its answer is rendered (ToolSpec), and what a call gives back (ToolOutcome). Light
on purpose: the server imports these before its handshake; the registry of tools (tools.py) is built
on first use.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ValidationError

from runs.contract import features
from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.features import Feature
from runs.contract.schema import input_schema, output_schema
from runs.mcp.answer_shapes import ToolJson
from runs.mcp.string_arguments import object_arguments
from workflows_app.engine.jsontypes import JsonObject


@dataclass(frozen=True)
class Annotations:
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = False


@dataclass(frozen=True)
class ToolSpec[A: Mapping[str, Any]]:
    """A tool whose answer has the JSON shape A (runs/mcp/answer_shapes.py): its handler answers it,
    its rendering reads it."""

    name: str
    title: str
    summary: str
    input: type[BaseModel]
    outputs: tuple[type[BaseModel], ...]
    examples: list[JsonObject]  # arguments, as an agent sends them
    annotations: Annotations
    handler: Callable[[Any], A]  # receives the parsed input
    render: Callable[[A], str]
    uses_database: bool = False
    feature: Feature | None = None  # the feature that must be on for the tool to exist; None: always

    @cached_property
    def input_schema(self) -> JsonObject:  # JSON Schema
        return input_schema(self.input)

    @cached_property
    def object_arguments(self) -> frozenset[str]:
        """The arguments that take an object: sent as a JSON-encoded string, they are decoded (string_arguments.py)."""
        return object_arguments(self.input_schema)

    @cached_property
    def output_schema(self) -> JsonObject:  # JSON Schema
        return output_schema(*self.outputs)

    @property
    def description(self) -> str:
        lines = [self.summary, "", "Examples of arguments:"]
        lines += [json.dumps(example, sort_keys=True) for example in self.examples]
        return "\n".join(lines)

    @property
    def enabled(self) -> bool:
        return self.feature is None or features.enabled(self.feature)

    def parse(self, arguments: Any) -> Any:
        """The arguments as the tool's input model; INVALID_INPUT, with a JSON pointer, when they do not fit."""
        nul = _nul_pointer(arguments)
        if nul is not None:  # PostgreSQL cannot store U+0000 in text or jsonb: refused on every backend alike
            raise WorkRailError(
                ErrorCode.INVALID_INPUT,
                f"{self.name}: at {nul}, text may not contain the NUL character (U+0000).",
                "Remove the NUL characters (U+0000) and send the same call again.",
                details={"pointer": nul, "problems": 1},
            )
        try:
            return self.input.model_validate(arguments)
        except ValidationError as exc:
            problem = exc.errors(include_url=False)[0]
            where = _short_pointer(problem["loc"])
            fields = ", ".join(field.alias or name for name, field in self.input.model_fields.items())
            unknown_top_level = problem["type"] == "extra_forbidden" and len(problem["loc"]) == 1
            accepted = f" It accepts: {fields}." if unknown_top_level else ""
            message = f"{problem['msg'][:1].lower()}{problem['msg'][1:]}"
            raise WorkRailError(
                ErrorCode.INVALID_INPUT,
                f"{self.name}: at {where or 'the arguments'}, {message}.{accepted}",
                f"Send arguments that match the tool's input schema, for example {json.dumps(self.examples[0])}.",
                details={"pointer": where, "problems": len(exc.errors())},
            ) from None


POINTER_PART_CHARS = 40
POINTER_CHARS = 120


def _short_pointer(location: tuple[int | str, ...]) -> str:
    """A JSON pointer to where the arguments went wrong, each part and the whole cut short: the name
    of an unknown field is the caller's, and an error never echoes a large input (docs/security.md)."""
    return "".join(f"/{str(part)[:POINTER_PART_CHARS]}" for part in location)[:POINTER_CHARS]


def _nul_pointer(arguments: Any) -> str | None:
    """Where a string (value or object key) in the arguments holds U+0000, as a short JSON pointer; None if nowhere."""
    stack: list[tuple[Any, str]] = [(arguments, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str) and "\x00" in item:
            return where or "/"
        if isinstance(item, dict):
            for key, value in item.items():
                path = f"{where}/{str(key)[:POINTER_PART_CHARS]}"[:POINTER_CHARS]
                if isinstance(key, str) and "\x00" in key:
                    return path.replace("\x00", "\\u0000")
                stack.append((value, path))
        elif isinstance(item, list):
            stack.extend((value, f"{where}/{index}"[:POINTER_CHARS]) for index, value in enumerate(item))
    return None


@dataclass(frozen=True)
class ToolOutcome:
    structured: ToolJson
    text: str
    is_error: bool
