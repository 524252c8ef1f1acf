"""The base of every boundary shape: camelCase on the wire, snake_case in Python, nothing unknown."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, PrivateAttr
from pydantic.alias_generators import to_camel

from workflows_app.engine.jsontypes import JsonObject


class Shape(BaseModel):
    """A boundary shape. Unknown fields are refused, so a typo in a request (or a drift in what we
    answer) is caught instead of silently ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="forbid",
    )

    def dump(self) -> JsonObject:
        """The JSON object sent on the wire. Optional parts that were never set are left out, so an
        answer carries only what applies to it (a `blocked` section only when blocked, say)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class FinalShape(Shape):
    """An answer that is final once built (frozen) and dumped once: its JSON is both recorded and sent
    (an execution answer), or kept and sent many times (the cached catalog listing), so later dumps
    give the same object. Nothing may change that object."""

    model_config = ConfigDict(frozen=True)
    _wire: JsonObject | None = PrivateAttr(default=None)

    def dump(self) -> JsonObject:
        if self._wire is None:
            self._wire = super().dump()
        return self._wire


class OpenShape(Shape):
    """A shape that carries caller-defined fields besides its own (artifacts)."""

    model_config = ConfigDict(extra="allow")
