"""Workflows as MCP prompts: what a client shows in its prompt or slash-command menu, and the message
that starts the chosen workflow.

A prompt's arguments are the context the workflow expects from its first step (the variables its
first decisions read, from engine.expected_context), plus a free-text `task`. Prompt arguments are
strings on the wire; a value that reads as a JSON number, boolean, list or object is passed as that.

Prompts are built as the JSON the server validates into the SDK's Prompt and GetPromptResult (the
TypedDicts below), and cached that way with the catalog's views.
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypedDict

from runs.contract.errors import ErrorCode, WorkRailError
from runs.execution.catalog import current_catalog, find_workflow
from workflows_app import engine
from workflows_app.catalog import WorkflowEntry
from workflows_app.engine.jsontypes import JsonObject

TASK = "task"


class PromptArgument(TypedDict):
    name: str
    description: str
    required: bool


class PromptDescription(TypedDict):
    """One entry of prompts/list."""

    name: str
    title: str
    description: str
    arguments: list[PromptArgument]


class TextContent(TypedDict):
    type: Literal["text"]
    text: str


class PromptMessage(TypedDict):
    role: Literal["user"]
    content: TextContent


class RenderedPrompt(TypedDict):
    """The answer to prompts/get."""

    description: str
    messages: list[PromptMessage]


def list_prompts() -> list[PromptDescription]:
    """One prompt per runnable workflow (routines are run by workflows, not offered on their own);
    computed once per catalog snapshot, like the workflow list."""
    catalog = current_catalog()

    def build() -> list[PromptDescription]:
        return [describe(entry) for entry in catalog.entries if entry.kind == "workflow"]

    listed: list[PromptDescription] = catalog.view(("prompts",), build)
    return listed


def describe(entry: WorkflowEntry) -> PromptDescription:
    arguments: list[PromptArgument] = [
        {
            "name": TASK,
            "description": "What to work on, in your words (passed to the workflow as context.task).",
            "required": False,
        }
    ]
    for expected in _expected_at_start(entry):
        values = (
            f" (compared with {', '.join(json.dumps(v) for v in expected['values'])})" if expected.get("values") else ""
        )
        arguments.append(
            {
                "name": expected["key"],
                "description": f"{expected['type']}{values}: read by {expected['why']}.",
                "required": False,
            }
        )
    return {
        "name": entry.id,
        "title": entry.compiled["name"],
        "description": entry.compiled["description"],
        "arguments": arguments,
    }


def render(workflow_id: str, arguments: dict[str, str] | None) -> RenderedPrompt:
    """The prompt's description and the user message that starts the workflow."""
    entry = find_workflow(current_catalog(), workflow_id)
    if entry.kind != "workflow":
        raise WorkRailError(
            ErrorCode.WORKFLOW_NOT_FOUND,
            f"'{workflow_id}' is a routine: workflows run it as part of their steps.",
            "Pick a workflow from the prompt list (list_workflows with kind 'workflow').",
        )
    known = {argument["name"] for argument in describe(entry)["arguments"]}
    unknown = sorted(set(arguments or {}) - known)
    if unknown:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"The prompt {workflow_id} has no argument(s) {', '.join(unknown)}.",
            f"Use only: {', '.join(sorted(known))}.",
        )
    context = {key: _value(value) for key, value in (arguments or {}).items() if value not in (None, "")}
    start: JsonObject = {"workflowId": workflow_id}  # the start_workflow arguments, shown as JSON
    if context:
        start["context"] = context
    compiled = entry.compiled
    lines = [
        f'Run the WorkRail workflow "{compiled["name"]}" ({workflow_id}): {compiled["description"]}',
        "",
        f"Call start_workflow with {json.dumps(start, ensure_ascii=False)}, do the step it returns, and go on "
        "with the continue_workflow call in each answer's nextCall (replace every '<fill in ...>' value with "
        "your own) until the workflow is complete.",
    ]
    for items, title in (
        (compiled.get("preconditions"), "Before you start, check"),
        (compiled.get("clarificationPrompts"), "Clarify first"),
    ):
        if items:
            lines += ["", f"{title}:", *(f"- {item}" for item in items)]
    return {
        "description": compiled["description"],
        "messages": [{"role": "user", "content": {"type": "text", "text": "\n".join(lines)}}],
    }


def _expected_at_start(entry: WorkflowEntry) -> list[JsonObject]:
    begun = engine.start(entry.compiled, {})
    return engine.expected_context(entry.compiled, begun.state) if begun.pending is not None else []


def _value(text: str) -> Any:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return text
    return value if isinstance(value, int | float | bool | list | dict) else text
