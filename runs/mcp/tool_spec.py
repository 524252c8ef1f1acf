"""What a tool is, as data: its name, typed input and outputs, examples, annotations, the use case
behind it and how its answer is rendered (ToolSpec), and what a call gives back (ToolOutcome). Light
on purpose: the server imports these before its handshake; the registry of tools (tools.py) is built
on first use.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from runs.contract import features
from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.features import Feature
from runs.contract.schema import input_schema, output_schema
from runs.mcp.string_arguments import object_arguments
from workflows_app.engine.jsontypes import JsonObject

if TYPE_CHECKING:
    from runs.contract.base import Shape
    from runs.contract.execution import RecordedAnswer

ToolJson = Mapping[str, Any]
"""The structured content of any tool's answer, where the tool is not known (the timings' outcome, the
door to the SDK): an output model's dump, or an error's ({"error": WorkRailError.as_dict()})."""


@dataclass(frozen=True)
class Annotations:
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = False


@dataclass(frozen=True)
class Listing:
    """What `tools/list` says of one tool."""

    description: str
    input_schema: JsonObject
    output_schema: JsonObject
    examples: list[JsonObject]  # those the description shows


def _description(summary: str, examples: list[JsonObject]) -> str:
    lines = [summary, "", "Examples of arguments:"]
    lines += [json.dumps(example, sort_keys=True) for example in examples]
    return "\n".join(lines)


@dataclass(frozen=True)
class ToolSpec[A: Shape]:
    """A tool whose answer is the model A (one of `outputs`): its handler answers it (or an answer recorded
    earlier, given again), the structured answer is its dump and the text its rendering."""

    name: str
    title: str
    summary: str
    input: type[BaseModel]
    outputs: tuple[type[BaseModel], ...]
    examples: list[JsonObject]  # arguments, as an agent sends them
    annotations: Annotations
    handler: Callable[[Any], A | RecordedAnswer]  # receives the parsed input
    render: Callable[[A], str]
    uses_database: bool = False
    feature: Feature | None = None  # the feature that must be on for the tool to exist; None: always
    # Parts that exist only while another tool's feature is on: input fields (by wire name) and output
    # shapes. With the feature off, the listing leaves them out, and with them any word of that tool.
    input_features: Mapping[str, Feature] = field(default_factory=dict)
    output_features: Mapping[type[BaseModel], Feature] = field(default_factory=dict)

    @cached_property
    def input_schema(self) -> JsonObject:  # JSON Schema, every feature on
        return input_schema(self.input)

    @cached_property
    def object_arguments(self) -> frozenset[str]:
        """The arguments that take an object: sent as a JSON-encoded string, they are decoded (string_arguments.py)."""
        return object_arguments(self.input_schema)

    @cached_property
    def output_schema(self) -> JsonObject:  # JSON Schema, every feature on
        return output_schema(*self.outputs)

    @property
    def description(self) -> str:  # every feature on
        return _description(self.summary, self.examples)

    def listed(self) -> Listing:
        """The tool as this server offers it: what `tools/list` shows with the features on now. A part
        that belongs to a feature that is off is left out, so no word names a tool the agent cannot call."""
        off = frozenset(
            feature
            for feature in {*self.input_features.values(), *self.output_features.values()}
            if not features.enabled(feature)
        )
        listings: dict[frozenset[Feature], Listing] = self.__dict__.setdefault("_listings", {})
        if off not in listings:
            listings[off] = self._listing(off)
        return listings[off]

    def _listing(self, off: frozenset[Feature]) -> Listing:
        if not off:
            return Listing(self.description, self.input_schema, self.output_schema, self.examples)
        gone = {name for name, feature in self.input_features.items() if feature in off}
        schema = copy.deepcopy(self.input_schema)
        for name in gone:
            schema["properties"].pop(name, None)
        if "required" in schema:
            schema["required"] = [name for name in schema["required"] if name not in gone]
        examples = [example for example in self.examples if not gone & example.keys()]
        outputs = [model for model in self.outputs if self.output_features.get(model) not in off]
        return Listing(_description(self.summary, examples), schema, output_schema(*outputs), examples)

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
