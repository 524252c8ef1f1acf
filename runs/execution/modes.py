"""What the effective preferences change in a run: confirmations and user-only dependencies.

- guided: the agent asks the user at each confirmation; an unmet user-only dependency blocks.
- full_auto_stop_on_user_deps: the agent confirms for itself; an unmet user-only dependency blocks.
- full_auto_never_stop: nothing blocks for the user; an unmet dependency becomes a warning and a
  durable gap record, and the agent goes on with stated assumptions.
"""

from __future__ import annotations

from typing import Any

from runs.contract.errors import HeldIssue
from runs.execution.placeholders import is_placeholder
from workflows_app.schema import USER_DEPENDENCY_REASONS

GUIDED = "guided"
NEVER_STOP = "full_auto_never_stop"


def dependencies(step: dict[str, Any], context: dict[str, Any]) -> list[dict[str, Any]]:
    # The placeholder nextCall writes is not the user's answer, however faithfully it was copied.
    return [
        {
            **dep,
            "met": context.get(dep["contextKey"]) not in (None, "") and not is_placeholder(context[dep["contextKey"]]),
        }
        for dep in step.get("userDependencies", [])
    ]


def shape_pending(
    pending: dict[str, Any] | None, step: dict[str, Any] | None, preferences: dict[str, str], context: dict[str, Any]
) -> dict[str, Any] | None:
    """The pending step as the mode presents it."""
    if pending is None or step is None:
        return pending
    shaped = dict(pending)
    deps = dependencies(step, context)
    if deps:
        shaped["userDependencies"] = deps
    if shaped.get("requireConfirmation") and preferences.get("autonomy", GUIDED) != GUIDED:
        # Full-auto modes: the agent plays the user here, and must say what it decided and why.
        shaped["requireConfirmation"] = False
        shaped["confirmation"] = "self: decide as the user would and record the decision in notesMarkdown"
    return shaped


def unmet(step: dict[str, Any], context: dict[str, Any]) -> list[dict[str, Any]]:
    return [dep for dep in dependencies(step, context) if not dep["met"]]


def blocks_for_user(preferences: dict[str, str]) -> bool:
    return preferences.get("autonomy", GUIDED) != NEVER_STOP


def dependency_issues(missing: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "code": HeldIssue.USER_DEPENDENCY_UNMET.value,
            "reason": dep["reason"],
            "message": f"Needs {USER_DEPENDENCY_REASONS[dep['reason']]}: {dep['description']} "
            f"Ask the user, then send it as context.{dep['contextKey']}.",
            "pointer": f"/context/{dep['contextKey']}",
        }
        for dep in missing
    ]


def context_schema(missing: list[dict[str, Any]]) -> dict[str, Any]:
    """JSON Schema of the continue_workflow input that meets the missing dependencies."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["context"],
        "properties": {
            "context": {
                "type": "object",
                "required": [dep["contextKey"] for dep in missing],
                "properties": {
                    dep["contextKey"]: {"description": dep["description"], "not": {"enum": [None, ""]}}
                    for dep in missing
                },
            },
        },
    }


def gap_warnings(missing: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "code": "USER_DEPENDENCY_GAP",
            "message": f"Went on without {USER_DEPENDENCY_REASONS[dep['reason']]} ({dep['description']}); recorded "
            "as a gap. State your assumption in notesMarkdown.",
        }
        for dep in missing
    ]
