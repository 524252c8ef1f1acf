"""What the effective preferences change in a run: confirmations and user-only dependencies.

- guided: the agent asks the user at each confirmation; an unmet user-only dependency blocks.
- full_auto_stop_on_user_deps: the agent confirms for itself; an unmet user-only dependency blocks.
- full_auto_never_stop: nothing blocks for the user; an unmet dependency becomes a warning and a
  durable gap record, and the agent goes on with stated assumptions.
"""

from __future__ import annotations

from runs.contract.errors import HeldIssue
from runs.contract.execution import IssueDict, UserDependencyDict, WarningDict
from runs.execution.placeholders import is_placeholder
from workflows_app.engine.jsontypes import JsonObject, as_json
from workflows_app.engine.model import CompiledStep, PendingView, user_dependencies_of
from workflows_app.schema import USER_DEPENDENCY_REASONS

GUIDED = "guided"
NEVER_STOP = "full_auto_never_stop"
# A step that asks the user to confirm, in a mode where the agent confirms for itself: the prompt still
# says "ask them" and "wait for their answer", so which of the two holds is said, once, here.
SELF_CONFIRMATION = (
    "self: the step asks the user to confirm, and this run's mode has you decide in their place; the mode "
    "wins over the prompt's asking and waiting. Decide as the user would and write the decision and why in "
    "notesMarkdown; leave undone what the prompt allows only on the user's explicit word"
)


def dependencies(step: CompiledStep | None, context: JsonObject) -> list[UserDependencyDict]:
    # The placeholder nextCall writes is not the user's answer, however faithfully it was copied.
    return [
        {
            "reason": dep["reason"],
            "description": dep["description"],
            "contextKey": dep["contextKey"],
            "met": context.get(dep["contextKey"]) not in (None, "") and not is_placeholder(context[dep["contextKey"]]),
        }
        for dep in user_dependencies_of(step)
    ]


def shape_pending(
    pending: PendingView | None, step: CompiledStep | None, preferences: dict[str, str], context: JsonObject
) -> JsonObject | None:
    """The pending step as the mode presents it (the engine's view of it, as JSON)."""
    if pending is None or step is None:
        return as_json(pending) if pending is not None else None
    shaped = dict(as_json(pending))
    deps = dependencies(step, context)
    if deps:
        shaped["userDependencies"] = deps
    if shaped.get("requireConfirmation") and preferences.get("autonomy", GUIDED) != GUIDED:
        # Full-auto modes: the agent plays the user here, and must say what it decided and why.
        shaped["requireConfirmation"] = False
        shaped["confirmation"] = SELF_CONFIRMATION
    return shaped


def unmet(step: CompiledStep | None, context: JsonObject) -> list[UserDependencyDict]:
    return [dep for dep in dependencies(step, context) if not dep["met"]]


def blocks_for_user(preferences: dict[str, str]) -> bool:
    return preferences.get("autonomy", GUIDED) != NEVER_STOP


def dependency_issues(missing: list[UserDependencyDict]) -> list[IssueDict]:
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


def context_schema(missing: list[UserDependencyDict]) -> JsonObject:
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


def gap_warnings(missing: list[UserDependencyDict]) -> list[WarningDict]:
    return [
        {
            "code": "USER_DEPENDENCY_GAP",
            "message": f"Went on without {USER_DEPENDENCY_REASONS[dep['reason']]} ({dep['description']}); recorded "
            "as a gap. State your assumption in notesMarkdown.",
        }
        for dep in missing
    ]
