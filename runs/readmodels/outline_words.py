"""A workflow's outline in words for the workflow page: when a step runs, when it asks the user to
confirm, and how a loop repeats, said from the compiled step's structure (conditions by
workflows_app/condition_words.py in the style for people, loops by the engine's own reading of them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from workflows_app.condition_words import PEOPLE, describe
from workflows_app.engine.loops import LoopSpec

if TYPE_CHECKING:
    from workflows_app.engine.model import LoopStep


def condition_words(condition: Any) -> str:
    """`{"var": "riskLevel", "equals": "high"}` as "riskLevel is 'high'"."""
    return describe(condition, PEOPLE)


def confirmation_words(rule: Any) -> str:
    """When a step asks the user to confirm: "asks for confirmation", or "... when <condition>"."""
    if isinstance(rule, dict):
        condition = rule.get("condition") if "kind" in rule else rule
        if isinstance(condition, dict) and condition:
            return f"asks for confirmation when {condition_words(condition)}"
    return "asks for confirmation" if rule else ""


def loop_words(step: Any) -> str:
    """How a loop step repeats: "one round per item of reviewAreas, at most 15 rounds"."""
    if not isinstance(step, dict) or not isinstance(step.get("loop"), dict):
        return ""
    spec = LoopSpec.of(cast("LoopStep", step))
    limit = f"at most {spec.max_iterations} round{'s' if spec.max_iterations != 1 else ''}"
    if spec.type == "forEach":
        return f"one round per item of {_named(spec.items)}, {limit}"
    if spec.type == "for":
        count = spec.count if isinstance(spec.count, int) and not isinstance(spec.count, bool) else None
        rounds = f"{count} round{'s' if count != 1 else ''}" if count is not None else f"{_named(spec.count)} rounds"
        return f"{rounds}, {limit}"
    how = "repeats until" if spec.type == "until" else "repeats while"
    if spec.decision_key is not None:
        return f"repeats while the agent's wr.loop_control decision for {spec.decision_key} says continue, {limit}"
    if spec.condition:
        return f"{how} {condition_words(spec.condition)}, {limit}"
    return f"repeats as the agent decides after each round, {limit}"


def _named(value: Any) -> str:
    return str(value) if isinstance(value, str) and value else "its list"
