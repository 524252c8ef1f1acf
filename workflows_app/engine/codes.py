"""The closed sets of codes the engine reports, in one place.

Issues block an advance: the agent must send a different `output`. Warnings never block; they tell
the agent (and whoever reads the run) that the engine did something it might not have expected,
such as cutting a loop short.
"""

from __future__ import annotations

from enum import StrEnum

from workflows_app.engine.model import EngineIssue, EngineWarning


class IssueCode(StrEnum):
    OUTPUT_INVALID = "OUTPUT_INVALID"  # output, notesMarkdown, artifacts or an artifact has the wrong JSON type
    NOTES_REQUIRED = "NOTES_REQUIRED"  # the step needs output.notesMarkdown and it is missing or blank
    VALIDATION_FAILED = "VALIDATION_FAILED"  # a rule of the step's validationCriteria failed
    ARTIFACT_MISSING = "ARTIFACT_MISSING"  # the step's output contract wants an artifact that was not sent
    ARTIFACT_INVALID = "ARTIFACT_INVALID"  # an artifact of the contract's kind does not match its schema
    ASSESSMENT_MISSING = "ASSESSMENT_MISSING"  # the step names an assessment and no wr.assessment rates it
    ASSESSMENT_INVALID = "ASSESSMENT_INVALID"  # an unknown dimension, a level not declared, a required one unrated
    ASSESSMENT_FOLLOWUP_REQUIRED = "ASSESSMENT_FOLLOWUP_REQUIRED"  # a consequence's trigger level was rated
    LOOP_DECISION_MISSING = "LOOP_DECISION_MISSING"  # the step ends a loop iteration that no decision steers
    LOOP_CONTROL_UNMATCHED = "LOOP_CONTROL_UNMATCHED"  # a wr.loop_control names a loop it cannot be matched to


class WarningCode(StrEnum):
    LOOP_MAX_ITERATIONS = "LOOP_MAX_ITERATIONS"  # a loop that would have continued was stopped by maxIterations
    LOOP_ITEMS_NOT_A_LIST = "LOOP_ITEMS_NOT_A_LIST"  # a forEach loop's items are missing or not a list
    LOOP_COUNT_INVALID = "LOOP_COUNT_INVALID"  # a for loop's count is missing or not a number
    LOOP_CONTROL_IGNORED = "LOOP_CONTROL_IGNORED"  # a wr.loop_control sent where no loop listens to decisions
    VALIDATION_RULE_INVALID = "VALIDATION_RULE_INVALID"  # a validation rule cannot be applied (bad regex/schema)


def issue(code: IssueCode, message: str, pointer: str | None = None) -> EngineIssue:
    """An issue as sent to the agent; `pointer` is a JSON pointer into the `output` the agent sent."""
    found: EngineIssue = {"code": code.value, "message": message}
    if pointer is not None:
        found["pointer"] = pointer
    return found


def warning(code: WarningCode, message: str) -> EngineWarning:
    return {"code": code.value, "message": message}
