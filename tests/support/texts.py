"""The text an agent reads for a structured answer a test holds: the JSON read back into the answer's
model (runs/contract), then rendered (runs/mcp/rendering.py), as the door does for a replayed answer.
The text of a fresh call is the same: a model's dump read back sets the same parts."""

from __future__ import annotations

from typing import Any

from runs.contract.catalog import WorkflowInspection
from runs.contract.execution import ExecutionResult
from runs.contract.sessions import ResumeResult
from runs.mcp import rendering


def execution_text(answer: dict[str, Any]) -> str:
    return rendering.execution_text(ExecutionResult.model_validate(answer))


def workflow_details_text(answer: dict[str, Any]) -> str:
    return rendering.workflow_details_text(WorkflowInspection.model_validate(answer))


def resume_text(answer: dict[str, Any]) -> str:
    return rendering.resume_text(ResumeResult.model_validate(answer))
