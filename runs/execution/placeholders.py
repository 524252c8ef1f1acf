"""The placeholders WorkRail writes into `nextCall`, and how it recognises them when they come back.

`nextCall.arguments` is meant to be copied, with the blanks filled in. An agent that copies it
blindly must not get past a step: notes that are still the placeholder are no notes, and a context
value that is still the placeholder is no value (least of all for what only the user can give).
Every placeholder has one form, `<fill in ...>` (workflows_app/engine/blanks.py writes the typed
ones), so it is recognised wherever it appears.
"""

from __future__ import annotations

import json
import re
from typing import Any

from runs.contract.errors import HeldIssue
from runs.contract.execution import AssessmentView, ExpectedContext, IssueDict
from workflows_app.engine.blanks import PREFIX, blank
from workflows_app.engine.jsontypes import JsonObject

NOTES = blank("Markdown", "your notes for this step, as its prompt asks: what you did, found and decided")
OPTIONAL_NOTES = blank("Markdown", "what the step asks you to record", optional=True)
SESSION_NOTES = blank("Markdown", "what you did and what is next")
_FORM = re.compile(r"^\s*<fill in\b[^\n]*>\s*$", re.IGNORECASE)


def is_placeholder(value: Any) -> bool:
    return isinstance(value, str) and _FORM.match(value) is not None


def from_user(description: str) -> str:
    return f"{PREFIX} from the user: {description}>"


CURRENT_SHOWN = 400  # characters of a value to send back changed: often enough to send it back whole


def for_context(expected: ExpectedContext) -> str:
    """A typed placeholder for an expected context variable: its type, every value the workflow
    compares it with (not a closed set: other values are allowed), and its value now, if it has one.
    What reads it is in pending.expectedContext, not repeated here."""
    kind: str = expected.type
    if expected.values:
        kind += "; the workflow compares it with " + ", ".join(json.dumps(v) for v in expected.values)
    if expected.choices:
        kind += "; the prompt offers " + ", ".join(expected.choices)
    what = expected.key
    if "current" in expected.model_fields_set:
        now = json.dumps(expected.current, ensure_ascii=False)
        if len(now) > CURRENT_SHOWN:
            now = now[: CURRENT_SHOWN - 1] + "… (cut; whole in pending.expectedContext)"
        what += f"; now {now}: send the new value, or leave it out to keep it"
    return blank(kind, what)


def for_assessment(assessment: AssessmentView) -> JsonObject:
    """An assessment artifact with a blank rating for each dimension (an artifact: the agent's JSON)."""
    return {
        "kind": "wr.assessment",
        "assessmentId": assessment.assessment_id,
        "dimensions": {
            dimension.id: blank("one of " + ", ".join(dimension.levels), dimension.id)
            for dimension in assessment.dimensions
        },
    }


def placeholder_keys(context: JsonObject) -> list[str]:
    """Context keys whose value is still a placeholder."""
    return [key for key, value in context.items() if is_placeholder(value)]


def placeholders_in(value: Any, pointer: str) -> list[tuple[str, str]]:
    """(JSON pointer, placeholder) for each placeholder anywhere inside `value`."""
    if is_placeholder(value):
        return [(pointer, value)]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in placeholders_in(item, f"{pointer}/{key}")]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in placeholders_in(item, f"{pointer}/{index}")]
    return []


def placeholder_pointers(value: Any, pointer: str) -> list[str]:
    """JSON pointers of the placeholders anywhere inside `value` (artifacts copied with their blanks)."""
    return [where for where, _ in placeholders_in(value, pointer)]


def unchanged_issues(notes: str | None, context_keys: list[str], artifacts: Any = None) -> list[IssueDict]:
    """Blocking issues for placeholders sent back as they were written."""
    found = [
        (
            pointer,
            f"{pointer[1:].replace('/', '.')} is still the placeholder from nextCall. Replace it with your own value.",
        )
        for pointer in placeholder_pointers(artifacts, "/output/artifacts")
    ]
    if is_placeholder(notes):
        found.append(
            (
                "/output/notesMarkdown",
                "output.notesMarkdown is still the placeholder from nextCall. Replace it with a few lines of your "
                "own: what you did, what you decided, what comes next.",
            )
        )
    found += [
        (
            f"/context/{key}",
            f"context.{key} is still the placeholder from nextCall. Send the real value, or leave {key} out if "
            "it is not known yet.",
        )
        for key in context_keys
    ]
    return [
        {"code": HeldIssue.PLACEHOLDER_UNCHANGED.value, "message": message, "pointer": pointer}
        for pointer, message in found
    ]
