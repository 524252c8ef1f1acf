"""The MCP tools as data: name, schemas, examples, annotations and the service call behind each.

A tool's description is generated from its summary and its examples, and its examples are checked
against its input schema by the tests, so what the agent reads cannot drift from what it may send.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from runs.errors import ErrorCode, WorkRailError
from runs.mcp import rendering, schemas

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

# jsonschema and the services are imported on first use, not at import time: this module is on the
# path to answering `initialize`, and an agent's client waits for that (see bench/startup.py).

logger = logging.getLogger("workrail.mcp")


@dataclass(frozen=True)
class Annotations:
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = False


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    summary: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    examples: list[dict[str, Any]]
    annotations: Annotations
    handler: Callable[..., dict[str, Any]]
    render: Callable[[dict[str, Any]], str]
    uses_database: bool = False
    flag: str | None = None  # the setting that turns the tool on; None: always on

    @property
    def enabled(self) -> bool:
        from django.conf import settings

        return self.flag is None or bool(getattr(settings, self.flag))

    @cached_property
    def _validator(self) -> Draft202012Validator:
        from jsonschema import Draft202012Validator

        return Draft202012Validator(self.input_schema)

    @property
    def description(self) -> str:
        lines = [self.summary, "", "Examples of arguments:"]
        lines += [json.dumps(example, sort_keys=True) for example in self.examples]
        return "\n".join(lines)

    def check_arguments(self, arguments: Any) -> None:
        from jsonschema.exceptions import best_match

        problem = best_match(self._validator.iter_errors(arguments))
        if problem is None:
            return
        where = "".join(f"/{part}" for part in problem.absolute_path) or "the arguments"
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"{self.name}: at {where}, {problem.message}.",
            f"Send arguments that match the tool's input schema, for example {json.dumps(self.examples[0])}.",
            details={"pointer": where if where != "the arguments" else "", "schema": self.input_schema},
        )


@dataclass(frozen=True)
class ToolOutcome:
    structured: dict[str, Any]
    text: str
    is_error: bool


def execute(spec: ToolSpec, arguments: Any) -> ToolOutcome:
    """Runs one tool call; every failure becomes data, never an exception across the boundary."""
    try:
        spec.check_arguments(arguments)
        result = _with_database(spec.handler, arguments) if spec.uses_database else spec.handler(**arguments)
    except WorkRailError as exc:
        return error_outcome(exc)
    except Exception:
        logger.exception("tool %s failed", spec.name)
        return error_outcome(
            WorkRailError(
                ErrorCode.INTERNAL_ERROR,
                f"{spec.name} failed unexpectedly; the details are in the server log (stderr).",
                "Retry once; if it fails again, report the server log. Nothing stored was changed by this call.",
                retryable=True,
            )
        )
    return ToolOutcome(result, spec.render(result), is_error=False)


def _with_database(handler: Callable[..., dict[str, Any]], arguments: dict[str, Any]) -> dict[str, Any]:
    # Tools run on worker threads: drop connections that went stale between calls, before and after.
    from django.db import close_old_connections

    from runs.mcp.readiness import wait_until_ready

    wait_until_ready()
    close_old_connections()
    try:
        return handler(**arguments)
    finally:
        close_old_connections()


def error_outcome(exc: WorkRailError) -> ToolOutcome:
    payload = exc.as_dict()
    return ToolOutcome({"error": payload}, rendering.error_text(payload), is_error=True)


def _list_workflows(kind: str | None = None, namespace: str | None = None) -> dict[str, Any]:
    from runs.services import catalog

    return catalog.list_workflows(kind=kind, namespace=namespace)


def _inspect_workflow(workflowId: str, mode: str = "metadata") -> dict[str, Any]:
    from runs.services import catalog

    return catalog.inspect_workflow(workflowId, "preview" if mode == "preview" else "metadata")


def _start_workflow(**arguments: Any) -> dict[str, Any]:
    from runs.services import execution

    return execution.start_workflow(**arguments)


def _continue_workflow(**arguments: Any) -> dict[str, Any]:
    from runs.services import execution

    return execution.continue_workflow(**arguments)


def _checkpoint_workflow(**arguments: Any) -> dict[str, Any]:
    from runs.services import checkpoints

    return checkpoints.checkpoint_workflow(**arguments)


def _start_session(**arguments: Any) -> dict[str, Any]:
    from runs.services import checkpoints

    return checkpoints.start_session(**arguments)


def _resume_session(**arguments: Any) -> dict[str, Any]:
    from django.conf import settings

    from runs.observe import git_observation
    from runs.services import resume

    if not ({"gitBranch", "gitHeadSha", "workspacePath"} & arguments.keys()):
        # The agent said nothing about where it works: use what this server sees in its directory.
        seen = git_observation(settings.WORKRAIL_PROJECT_DIR) or {}
        arguments = {**{k: v for k, v in seen.items() if v}, **arguments}
    return resume.resume_session(**arguments)


READ_ONLY = Annotations(read_only=True, destructive=False, idempotent=True)
EXAMPLE_STATE = "st1_" + "A" * 24
EXAMPLE_ACK = "ak1_" + "B" * 24

TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="list_workflows",
        title="List workflows",
        summary=(
            "List the workflows and routines WorkRail can run, with their ids, what they do, where they "
            "come from and their workflowHash. Files that failed to load are reported under 'warnings' "
            "with the file, a JSON pointer and how to fix them. Read-only."
        ),
        input_schema=schemas.LIST_WORKFLOWS_INPUT,
        output_schema=schemas.LIST_WORKFLOWS_OUTPUT,
        examples=[{}, {"kind": "workflow"}, {"namespace": "wr"}],
        annotations=READ_ONLY,
        handler=_list_workflows,
        render=rendering.workflow_list_text,
    ),
    ToolSpec(
        name="inspect_workflow",
        title="Inspect a workflow",
        summary=(
            "Show one workflow before running it: purpose, preconditions, questions to clarify, and its "
            "step outline (mode 'metadata'), or also each step's prompt and role (mode 'preview'). "
            "Read-only; never starts a run."
        ),
        input_schema=schemas.INSPECT_WORKFLOW_INPUT,
        output_schema=schemas.INSPECT_WORKFLOW_OUTPUT,
        examples=[
            {"workflowId": "wr.bug_investigation"},
            {"workflowId": "wr.code_review", "mode": "preview"},
        ],
        annotations=READ_ONLY,
        handler=_inspect_workflow,
        render=rendering.workflow_details_text,
    ),
    ToolSpec(
        name="start_workflow",
        title="Start a workflow",
        summary=(
            "Start a run of a workflow and get its first step. The answer holds the step to do (pending), a "
            "stateToken and an ackToken, and nextCall: the exact continue_workflow call to make once the step "
            "is done. Tokens are opaque: copy them exactly. A context.ticketId or context.sessionKey groups "
            "runs into one session."
        ),
        input_schema=schemas.START_WORKFLOW_INPUT,
        output_schema=schemas.EXECUTION_OUTPUT,
        examples=[
            {"workflowId": "wr.bug_investigation"},
            {"workflowId": "wr.code_review", "context": {"ticketId": "AUTH-1234", "reviewAreas": ["api", "db"]}},
        ],
        annotations=Annotations(read_only=False, destructive=False, idempotent=False),
        handler=_start_workflow,
        render=rendering.execution_text,
        uses_database=True,
    ),
    ToolSpec(
        name="continue_workflow",
        title="Continue a workflow",
        summary=(
            "With stateToken and ackToken: acknowledge that the pending step is done and get the next one. "
            "Send output.notesMarkdown (a short recap) and, when the step asks, output.artifacts; send context "
            "to set variables the workflow reads. Replaying the same pair returns the same answer and never "
            "advances twice. With only stateToken: see the pending step again with a recap of earlier notes, "
            "without advancing; an older stateToken (after a rewind) shows its branches and gives an ackToken "
            "that starts a new branch. Errors are returned as data with a code and what to do next."
        ),
        input_schema=schemas.CONTINUE_WORKFLOW_INPUT,
        output_schema=schemas.EXECUTION_OUTPUT,
        examples=[
            {
                "stateToken": EXAMPLE_STATE,
                "ackToken": EXAMPLE_ACK,
                "output": {"notesMarkdown": "Reproduced the bug with a failing test; next: gather logs."},
            },
            {
                "stateToken": EXAMPLE_STATE,
                "ackToken": EXAMPLE_ACK,
                "context": {"severity": "high"},
                "output": {
                    "notesMarkdown": "Triage done.",
                    "artifacts": [{"kind": "wr.loop_control", "decision": "stop"}],
                },
            },
            {"stateToken": EXAMPLE_STATE},
        ],
        annotations=Annotations(read_only=False, destructive=False, idempotent=True),
        handler=_continue_workflow,
        render=rendering.execution_text,
        uses_database=True,
    ),
    ToolSpec(
        name="checkpoint_workflow",
        title="Checkpoint progress",
        summary=(
            "Record durable progress without advancing: a short recap (output.notesMarkdown) and, if any, "
            "artifacts, attached to the run's current snapshot. Use it after substantial work outside a step "
            "(implementing, iterating), so that a rewound or new chat can recover it. Returns new tokens to go "
            "on with; retrying the same checkpoint records it once."
        ),
        input_schema=schemas.CHECKPOINT_INPUT,
        output_schema=schemas.CHECKPOINT_OUTPUT,
        examples=[
            {
                "stateToken": EXAMPLE_STATE,
                "output": {"notesMarkdown": "Implemented the retry policy; tests green. Next: docs."},
            },
            {"sessionToken": "ss1_" + "C" * 24, "output": {"notesMarkdown": "Tried two caching designs; B wins."}},
        ],
        annotations=Annotations(read_only=False, destructive=False, idempotent=True),
        handler=_checkpoint_workflow,
        render=rendering.checkpoint_text,
        uses_database=True,
        flag="WORKRAIL_ENABLE_CHECKPOINT",
    ),
    ToolSpec(
        name="start_session",
        title="Start a notes-only session",
        summary=(
            "Create a checkpoint-only session for durable notes when no workflow runs; returns a sessionToken "
            "that checkpoint_workflow accepts. A sessionKey you choose finds it again (the same key joins it)."
        ),
        input_schema=schemas.START_SESSION_INPUT,
        output_schema=schemas.SESSION_OUTPUT,
        examples=[{"title": "Caching spike", "sessionKey": "caching-spike", "tags": ["perf"]}, {}],
        annotations=Annotations(read_only=False, destructive=False, idempotent=False),
        handler=_start_session,
        render=rendering.session_text,
        uses_database=True,
        flag="WORKRAIL_ENABLE_START_SESSION",
    ),
    ToolSpec(
        name="resume_session",
        title="Find work to resume",
        summary=(
            "In a new chat, find earlier work: up to 5 candidates (the latest tip of each run) ranked by session "
            "key, title and tags, then recent notes, then a bounded deeper search, with the git branch and HEAD "
            "as tie-breakers. Each has a stateToken to pass to continue_workflow (without ackToken first, to "
            "read the recap). Read-only."
        ),
        input_schema=schemas.RESUME_SESSION_INPUT,
        output_schema=schemas.RESUME_SESSION_OUTPUT,
        examples=[{"query": "AUTH-1234 token refresh"}, {"gitBranch": "feature/retry"}, {}],
        annotations=READ_ONLY,
        handler=_resume_session,
        render=rendering.resume_text,
        uses_database=True,
        flag="WORKRAIL_ENABLE_RESUME_SESSION",
    ),
]
