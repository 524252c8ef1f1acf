"""The MCP tools as data: name, typed input and outputs, examples, annotations and the service call
behind each, and `call`, the one way a tool call is run.

Schemas are generated from the pydantic models of runs.contract; a tool's description is its summary
plus its examples, and the tests validate every example against the input model, so what the agent
reads cannot drift from what it may send. Building the models costs tens of milliseconds, so the
server loads this module on first use (runs/mcp/deferred.py; the start-up thread warms it), not on
the path to `initialize`. The use case behind each tool is looked up when it is called: they need
Django's apps (runs/mcp/services.py).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any

from runs.contract import catalog, execution, features, inputs, sessions
from runs.contract.base import Shape
from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.execution import ExecutionResult, RecordedAnswer
from runs.contract.features import Feature
from runs.execution import catalog as catalog_use_cases
from runs.execution import workspace
from runs.mcp import boundary, deferred, rendering, string_arguments, timings
from runs.mcp.tool_spec import POINTER_PART_CHARS, Annotations, ToolJson, ToolOutcome, ToolSpec
from runs.store import actors, call_notes

type Answer = Shape | RecordedAnswer
"""What a tool's use case answers: its output model, or an answer recorded earlier and given again."""


def call(name: str, arguments: Any, client_roots: Sequence[str] = ()) -> ToolOutcome:
    """Runs one tool call and records its duration, outcome and what it was about (runs/mcp/timings.py,
    runs/store/call_notes.py). `client_roots`
    are the client's MCP roots as local paths (runs/mcp/roots.py), for the call's workspace."""
    started_at = datetime.now(UTC)
    began = time.perf_counter()
    with actors.asking(f"tool {str(name)[:POINTER_PART_CHARS]}"), call_notes.noting() as note:
        outcome = _call(name, arguments, client_roots)
    message = ""
    if outcome.is_error:
        error = outcome.structured.get("error", {})
        result, message = error.get("code", "ERROR"), str(error.get("message", ""))
    else:
        result = "blocked" if outcome.structured.get("kind") == "blocked" else "ok"
    tool = name if name in tool_specs() else "(unknown tool)"
    timings.record(tool, result, (time.perf_counter() - began) * 1000, started_at, note=note, message=message)
    return outcome


def _call(name: str, arguments: Any, client_roots: Sequence[str]) -> ToolOutcome:
    """Runs one tool call; every failure becomes data, never an exception across the boundary."""
    try:
        spec = tool_specs().get(name)
        if spec is None:
            raise WorkRailError(
                ErrorCode.INVALID_INPUT,
                f"There is no tool named '{str(name)[:POINTER_PART_CHARS]}'.",
                f"Call one of: {', '.join(s.name for s in tool_specs().values() if s.enabled)}.",
            )
        answer, model = boundary.guarded(
            name,
            lambda: _with_model(answered(name, arguments, client_roots)),
            uses_database=spec.uses_database,
            changes=not spec.annotations.read_only,
        )
    except WorkRailError as exc:
        return error_outcome(exc)
    # One value, two views: the structured answer is its dump, the text is rendered from its model.
    return ToolOutcome(answer.dump(), spec.render(model), is_error=False)


def _with_model(answer: Answer) -> tuple[Answer, Shape]:
    """The answer and the model its text is rendered from: itself, or a recorded answer's JSON read back
    (inside the boundary: a recorded answer that no longer fits its model is an error as data)."""
    return answer, answer.read() if isinstance(answer, RecordedAnswer) else answer


def answered(name: str, arguments: Any, client_roots: Sequence[str] = ()) -> Answer:
    """The tool's work without the boundary: feature check, input model, service, in the call's
    workspace (runs/execution/workspace.py). Raises WorkRailError."""
    spec = tool_specs()[name]
    if spec.feature is not None:
        features.require(spec.feature, spec.name)
    arguments, decoded = string_arguments.decode(arguments, spec.object_arguments)
    request = spec.parse(arguments)
    argument = request.workspace_path if isinstance(request, inputs.InWorkspace) else None
    with workspace.working_in(argument, client_roots):
        return _noted(spec.handler(request), decoded)


def invoke(name: str, arguments: Any, client_roots: Sequence[str] = ()) -> ToolJson:
    """The structured answer of a tool call without the boundary (`answered`, dumped). Raises
    WorkRailError. For callers already inside Django (tests, benchmarks); clients go through `call`."""
    return answered(name, arguments, client_roots).dump()


def _noted(answer: Answer, decoded: list[str]) -> Answer:
    """An execution answer with the note that some arguments arrived as JSON strings first among its warnings."""
    if not decoded:
        return answer
    note = string_arguments.note(decoded)
    if isinstance(answer, RecordedAnswer):
        return dataclasses.replace(answer, warnings_first=(note, *answer.warnings_first))
    if isinstance(answer, ExecutionResult):
        return answer.with_warnings_first(note)
    return answer


def error_outcome(exc: WorkRailError) -> ToolOutcome:
    return ToolOutcome({"error": exc.as_dict()}, rendering.error_text(exc), is_error=True)


# The catalog's use cases answer runs.contract.catalog's WorkflowList and WorkflowInspection.


def _list_workflows(request: inputs.ListWorkflowsInput) -> catalog.WorkflowList:
    return catalog_use_cases.list_workflows(request.filters())


def _inspect_workflow(request: inputs.InspectWorkflowInput) -> catalog.WorkflowInspection:
    return catalog_use_cases.inspect_workflow(request.workflow_id, request.mode)


def _use_case(name: str) -> Callable[[Any], Any]:
    """The use case behind a tool (a function of runs/mcp/services.py), looked up when the tool is called:
    it needs Django's apps, which the server loads after answering `initialize`. The catalog's use
    cases (above) need no apps and answer before they are ready. It answers the tool's output model
    (or an answer recorded earlier), as its ToolSpec names it."""

    def handler(request: Any) -> Any:
        return deferred.service(name)(request)

    return handler


READ_ONLY = Annotations(read_only=True, destructive=False, idempotent=True)
EXAMPLE_STATE = "st1_" + "A" * 24
EXAMPLE_ACK = "ak1_" + "B" * 24


@cache
def tool_specs() -> dict[str, ToolSpec[Any]]:
    specs: list[ToolSpec[Any]] = [
        ToolSpec(
            name="list_workflows",
            title="List workflows",
            summary=(
                "Find the workflow for a task. Without arguments: an overview of the catalog by tag (what each "
                "tag is for, how many workflows it holds) and by source. With tags and/or query: the matching "
                "workflows, one line each (id, title, what it is for, length, source), and which to take when "
                "two do the same job. Examples and tests are left out unless includeExamples. Read-only."
            ),
            input=inputs.ListWorkflowsInput,
            outputs=(catalog.WorkflowList,),
            examples=[{}, {"tags": ["investigation"]}, {"query": "merge request review"}],
            annotations=READ_ONLY,
            handler=_list_workflows,
            render=rendering.workflow_list_text,
        ),
        ToolSpec(
            name="inspect_workflow",
            title="Inspect a workflow",
            summary=(
                "Show one workflow before running it: purpose, preconditions, questions to clarify, and its "
                "step outline (mode 'metadata'); or the outline with each step's prompt and role instead "
                "(mode 'preview'). "
                "Read-only; never starts a run."
            ),
            input=inputs.InspectWorkflowInput,
            outputs=(catalog.WorkflowInspection,),
            examples=[
                {"workflowId": "wr.evidence_first_bug_fix"},
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
                "Start a run of a workflow and get its first step. The answer holds the step to do (pending), "
                "a stateToken and an ackToken, and nextCall: the exact continue_workflow call to make once the "
                "step is done, with every '<fill in ...>' blank to replace. Tokens are opaque: copy them "
                "exactly. Give the user's task as goal (a sentence or two), in the user's words. A "
                "context.ticketId or context.sessionKey groups runs into one session."
            ),
            input=inputs.StartWorkflowInput,
            outputs=(execution.ExecutionResult,),
            examples=[
                {"workflowId": "wr.evidence_first_bug_fix", "goal": "Find why exports time out for large sessions."},
                {"workflowId": "wr.code_review", "context": {"ticketId": "AUTH-1234", "reviewAreas": ["api", "db"]}},
            ],
            annotations=Annotations(read_only=False, destructive=False, idempotent=False),
            handler=_use_case("start_workflow"),
            render=rendering.execution_text,
            uses_database=True,
        ),
        ToolSpec(
            name="continue_workflow",
            title="Continue a workflow",
            summary=(
                "With stateToken and ackToken: acknowledge that the pending step is done and get the next one. "
                "Send output.notesMarkdown (a short recap in your own words) and, when the step asks, "
                "output.artifacts; send context to set the variables the workflow reads (pending.expectedContext "
                "lists them). Replaying the same pair returns the same answer and never advances twice. With "
                "only stateToken: see the pending step again with a recap of earlier notes, without advancing; "
                "an older stateToken (after a rewind) shows its branches and gives an ackToken that starts a new "
                "branch. A '<fill in ...>' placeholder sent back unchanged blocks the step. Errors are returned "
                "as data with a code and what to do next."
            ),
            input=inputs.ContinueWorkflowInput,
            outputs=(execution.ExecutionResult,),
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
            handler=_use_case("continue_workflow"),
            render=rendering.execution_text,
            uses_database=True,
        ),
        ToolSpec(
            name="checkpoint_workflow",
            title="Checkpoint progress",
            summary=(
                "Record durable progress without advancing: a short recap (output.notesMarkdown) and, if any, "
                "artifacts, attached to the run's current snapshot. Use it after substantial work outside a "
                "step (implementing, iterating), so that a rewound or new chat can recover it. Returns new "
                "tokens to go on with; retrying the same checkpoint records it once."
            ),
            input=inputs.CheckpointInput,
            outputs=(execution.ExecutionResult, sessions.SessionResult),
            examples=[
                {
                    "stateToken": EXAMPLE_STATE,
                    "output": {"notesMarkdown": "Implemented the retry policy; tests green. Next: docs."},
                },
                {"sessionToken": "ss1_" + "C" * 24, "output": {"notesMarkdown": "Tried two caching designs; B wins."}},
            ],
            annotations=Annotations(read_only=False, destructive=False, idempotent=True),
            handler=_use_case("checkpoint_workflow"),
            render=rendering.checkpoint_text,
            uses_database=True,
            feature=Feature.CHECKPOINT,
            input_features={"sessionToken": Feature.START_SESSION},
            output_features={sessions.SessionResult: Feature.START_SESSION},
        ),
        ToolSpec(
            name="start_session",
            title="Start a notes-only session",
            summary=(
                "Create a checkpoint-only session for durable notes when no workflow runs; returns a "
                "sessionToken that checkpoint_workflow accepts. A sessionKey you choose finds it again (the "
                "same key joins it)."
            ),
            input=inputs.StartSessionInput,
            outputs=(sessions.SessionResult,),
            examples=[{"title": "Caching spike", "sessionKey": "caching-spike", "tags": ["perf"]}, {}],
            annotations=Annotations(read_only=False, destructive=False, idempotent=False),
            handler=_use_case("start_session"),
            render=rendering.session_text,
            uses_database=True,
            feature=Feature.START_SESSION,
        ),
        ToolSpec(
            name="resume_session",
            title="Find work to resume",
            summary=(
                "In a new chat, find earlier work: up to 5 candidates (the latest tip of each run) ranked by "
                "session key, title and tags, then recent notes, then a bounded deeper search, with the git "
                "branch and HEAD as tie-breakers. Each has a stateToken to pass to continue_workflow (without "
                "ackToken first, to read the recap). Read-only."
            ),
            input=inputs.ResumeSessionInput,
            outputs=(sessions.ResumeResult,),
            examples=[{"query": "AUTH-1234 token refresh"}, {"gitBranch": "feature/retry"}, {}],
            annotations=READ_ONLY,
            handler=_use_case("resume_session"),
            render=rendering.resume_text,
            uses_database=True,
            feature=Feature.RESUME_SESSION,
        ),
    ]
    return {spec.name: spec for spec in specs}
