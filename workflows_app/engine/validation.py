"""A step's `validationCriteria`: checking the agent's output against them, and describing them as
JSON Schema so a blocked agent is told exactly what would pass.

Rules: `contains` (case-insensitive substring of the notes), `regex` (`pattern` with JS-style
`flags` i/m/s, plus u/g/y which change nothing here), `length` (`min`/`max` characters of the
notes) and `schema` (JSON Schema over the whole `output` object). A rule whose `condition` is false
does not apply; a rule that cannot be applied (a broken pattern or schema, an unknown type) is
skipped with a warning, since the agent cannot fix the workflow. A list means all rules;
`{"and"}`, `{"or"}`, `{"not"}` compose. Rules that do not apply are neutral: they make an `or` or
`and` neither pass nor fail, and a `not` of a neutral rule is neutral too.
"""

from __future__ import annotations

import copy
import math
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, best_match

from workflows_app.conditions import evaluate
from workflows_app.engine.codes import WarningCode, warning
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import EngineWarning

NOTES_POINTER = "/notesMarkdown"
_JS_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "u": 0, "g": 0, "y": 0}
_ECMA_SYNTAX = set("^$\\.*+?()[]{}|/")


@dataclass(frozen=True)
class RuleFailure:
    message: str
    pointer: str  # into the output object


def check(criteria: Any, output: JsonObject, context: JsonObject) -> tuple[list[RuleFailure], list[EngineWarning]]:
    """Every failing rule (empty when the criteria pass) and the warnings about skipped rules."""
    checker = _Checker(output, context)
    return checker.node(criteria) or [], checker.warnings


def to_schema(criteria: Any, context: JsonObject) -> JsonObject | None:
    """The criteria as a JSON Schema (draft 2020-12) over the output object; None when none applies.

    It accepts exactly the outputs `check` accepts, up to regex dialect differences.
    """
    return _Describer(context).node(criteria)


def _is_composition(node: dict[str, Any]) -> bool:
    return "type" not in node and any(op in node for op in ("and", "or", "not"))


class _Walk[T](ABC):
    """The grammar of criteria, walked the same way to check them and to describe them (so the two
    cannot drift apart): a list means all of its rules, `and`/`or`/`not` compose, and None is what a
    rule that does not apply gives (its condition is false, or it cannot be used), neutral to the
    composition holding it."""

    def __init__(self, context: JsonObject) -> None:
        self.context = context

    def node(self, node: Any) -> T | None:
        if isinstance(node, list):
            return self.all_of([self.node(child) for child in node])
        if not isinstance(node, dict):
            return None
        if not _is_composition(node):
            if "condition" in node and not evaluate(node["condition"], self.context):
                return None
            return self.rule(node)
        parts: list[T | None] = []
        if "and" in node:
            parts.append(self.all_of([self.node(child) for child in node["and"] or []]))
        if "or" in node:
            parts.append(self.any_of([self.node(child) for child in node["or"] or []]))
        if "not" in node:
            parts.append(self.negated(node["not"], self.node(node["not"])))
        return self.all_of(parts)

    @abstractmethod
    def rule(self, rule: dict[str, Any]) -> T | None:
        """A rule whose condition, if it has one, holds."""

    @abstractmethod
    def all_of(self, parts: list[T | None]) -> T | None: ...

    @abstractmethod
    def any_of(self, parts: list[T | None]) -> T | None: ...

    @abstractmethod
    def negated(self, criteria: Any, inner: T | None) -> T | None:
        """A `not`: `inner` is what its operand, `criteria`, gave."""


class _Checker(_Walk[list[RuleFailure]]):
    """Each rule gives its failures: [] passes."""

    def __init__(self, output: JsonObject, context: JsonObject) -> None:
        super().__init__(context)
        self.output = output
        notes = output.get("notesMarkdown")
        self.notes = notes if isinstance(notes, str) else ""
        self.warnings: list[EngineWarning] = []

    def rule(self, rule: dict[str, Any]) -> list[RuleFailure] | None:
        kind = rule.get("type")
        message = str(rule.get("message") or f"The notes fail a '{kind}' validation rule.")
        if kind == "schema":
            return self._schema_rule(rule, message)
        passed = text_rule_passes(rule, self.notes)
        if passed is None:
            self.warnings.append(_unusable(rule))
            return None
        return [] if passed else [RuleFailure(message, NOTES_POINTER)]

    def all_of(self, parts: list[list[RuleFailure] | None]) -> list[RuleFailure] | None:
        applied = [p for p in parts if p is not None]
        return [failure for p in applied for failure in p] if applied else None

    def any_of(self, parts: list[list[RuleFailure] | None]) -> list[RuleFailure] | None:
        applied = [p for p in parts if p is not None]
        if not applied:
            return None
        return [] if any(not p for p in applied) else [failure for p in applied for failure in p]

    def negated(self, criteria: Any, inner: list[RuleFailure] | None) -> list[RuleFailure] | None:
        if inner is None:
            return None
        held = "; ".join(_messages(criteria)) or "the negated rule"
        return [] if inner else [RuleFailure(f"Must not hold: {held}", NOTES_POINTER)]

    def _schema_rule(self, rule: dict[str, Any], message: str) -> list[RuleFailure] | None:
        validator = _schema_validator(rule.get("schema"))
        if validator is None:
            self.warnings.append(_unusable(rule))
            return None
        error = best_match(validator.iter_errors(self.output))
        if error is None:
            return []
        pointer = "".join(f"/{_escape_pointer(part)}" for part in error.absolute_path)
        return [RuleFailure(f"{message} ({error.message} at '{pointer or '/'}')", pointer)]


def text_rule_passes(rule: dict[str, Any], notes: str) -> bool | None:
    """Whether a contains / regex / length rule accepts `notes`; None when the rule is unusable."""
    kind = rule.get("type")
    if kind == "contains":
        return str(rule.get("value", "")).casefold() in notes.casefold()
    if kind == "regex":
        compiled = _regex(rule)
        return None if compiled is None else compiled.search(notes) is not None
    if kind == "length":
        bounds = _length_bounds(rule)
        if bounds is None:
            return None
        low, high = bounds
        return (low is None or len(notes) >= low) and (high is None or len(notes) <= high)
    return None


class _Describer(_Walk[JsonObject]):
    """Each rule gives the JSON Schema of the outputs it accepts."""

    def __init__(self, context: JsonObject) -> None:
        super().__init__(context)
        self.embedded = 0

    def rule(self, rule: dict[str, Any]) -> JsonObject | None:
        kind = rule.get("type")
        if kind == "schema":
            schema = rule.get("schema")
            if not isinstance(schema, dict) or _schema_validator(schema) is None:
                return None
            embedded: JsonObject = copy.deepcopy(schema)
            if "$id" not in embedded:
                # Its own resource, so that its local "#/..." references still resolve inside it.
                self.embedded += 1
                embedded = {"$id": f"urn:workrail:validation-rule:{self.embedded}", **embedded}
            return embedded
        constraint = _text_constraint(rule)
        if constraint is None:
            return None
        described: JsonObject = {"properties": {"notesMarkdown": constraint}}
        if not text_rule_passes(rule, ""):
            described = {"required": ["notesMarkdown"], **described}  # missing notes are checked as ""
        return described

    def all_of(self, parts: list[JsonObject | None]) -> JsonObject | None:
        applied = [p for p in parts if p is not None]
        if not applied:
            return None
        return applied[0] if len(applied) == 1 else {"allOf": applied}

    def any_of(self, parts: list[JsonObject | None]) -> JsonObject | None:
        options = [p for p in parts if p is not None]
        return {"anyOf": options} if options else None

    def negated(self, criteria: Any, inner: JsonObject | None) -> JsonObject | None:
        return {"not": inner} if inner is not None else None


def _text_constraint(rule: dict[str, Any]) -> JsonObject | None:
    kind = rule.get("type")
    if kind == "contains":
        literal = "".join(f"\\{char}" if char in _ECMA_SYNTAX else char for char in str(rule.get("value", "")))
        return {"pattern": f"(?i:{literal})"}
    if kind == "regex":
        if _regex(rule) is None:
            return None
        # Scoped modifiers (?ims:...) mean the same in Python and in ECMAScript 2025.
        flags = "".join(sorted(set(str(rule.get("flags") or "")) & {"i", "m", "s"}))
        pattern = str(rule.get("pattern"))
        scoped = f"(?{flags}:{pattern})" if flags else pattern
        try:
            re.compile(scoped)  # a pattern with its own global flags cannot be scoped; describe nothing
        except re.error:
            return None
        return {"pattern": scoped}
    if kind == "length":
        bounds = _length_bounds(rule)
        if bounds is None:
            return None
        low, high = bounds
        constraint: JsonObject = {}
        if low is not None:
            constraint["minLength"] = low
        if high is not None:
            constraint["maxLength"] = high
        return constraint
    return None


def _regex(rule: dict[str, Any]) -> re.Pattern[str] | None:
    pattern, flags = rule.get("pattern"), rule.get("flags") or ""
    if not isinstance(pattern, str) or not isinstance(flags, str) or any(f not in _JS_FLAGS for f in flags):
        return None
    value = 0
    for flag in flags:
        value |= _JS_FLAGS[flag]
    try:
        return re.compile(pattern, value)
    except re.error:
        return None


def _length_bounds(rule: dict[str, Any]) -> tuple[int | None, int | None] | None:
    """(min, max) as whole character counts: a fractional min rounds up, a fractional max down."""
    bounds: list[int | None] = []
    for name, rounding in (("min", math.ceil), ("max", math.floor)):
        value = rule.get(name)
        if value is None:
            bounds.append(None)
        elif isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            bounds.append(max(0, rounding(value)))
        else:
            return None
    return bounds[0], bounds[1]


def _schema_validator(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return None
    cls = validators.validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError:
        return None
    return cls(schema)


def _messages(node: Any) -> list[str]:
    if isinstance(node, list):
        return [m for child in node for m in _messages(child)]
    if not isinstance(node, dict):
        return []
    if _is_composition(node):
        return [m for op in ("and", "or", "not") if op in node for m in _messages(node[op])]
    return [str(node["message"])] if node.get("message") else []


def _unusable(rule: dict[str, Any]) -> EngineWarning:
    return warning(
        WarningCode.VALIDATION_RULE_INVALID,
        f"A '{rule.get('type')}' validation rule of this step cannot be applied (invalid pattern, flags, bounds "
        f"or schema) and was skipped: {rule.get('message', '')}".rstrip(": "),
    )


def _escape_pointer(part: Any) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")
