"""What the tools accept. Each tool's inputSchema is generated from its model here, and the model
parses the arguments: the services receive these objects, never raw JSON."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from pydantic import Field, field_validator, model_validator

from runs.contract.base import OpenShape, Shape
from runs.contract.catalog import ListFilters
from workflows_app.engine.jsontypes import JsonObject

# Bounds on what an agent may send. They keep one call from filling the store or stalling the server.
MAX_NOTES_BYTES = 64 * 1024
MAX_OUTPUT_BYTES = 512 * 1024
MAX_CONTEXT_BYTES = 256 * 1024
MAX_CONTEXT_DEPTH = 64  # arrays and objects inside each other, as for workflow files
MAX_RUN_CONTEXT_BYTES = 256 * 1024  # the context a run accumulates over all its calls
MAX_TOKEN_CHARS = 200
MAX_GOAL_CHARS = 1000  # a sentence or two; it titles the session
MAX_WORKFLOW_ID_CHARS = 200

Autonomy = Literal["guided", "full_auto_stop_on_user_deps", "full_auto_never_stop"]
RiskPolicy = Literal["conservative", "balanced", "aggressive"]
ModeName = Literal["guided", "autopilot", "unattended"]
# What each mode ("preset") stands for: in a few words, and the preferences it sets. The mode an answer
# names is the one its preferences equal (runs/contract/preferences.py builds the presets from this).
MODE_PRESETS: dict[str, tuple[str, dict[str, str]]] = {
    "guided": ("ask the user", {"autonomy": "guided", "riskPolicy": "balanced"}),
    "autopilot": (
        "stop only for the user's own input",
        {"autonomy": "full_auto_stop_on_user_deps", "riskPolicy": "balanced"},
    ),
    "unattended": ("never stop; record gaps", {"autonomy": "full_auto_never_stop", "riskPolicy": "balanced"}),
}


def modes_in_words() -> str:
    """Each mode, what it means and the preferences it sets: how `mode` maps to `preferences`."""
    return "; ".join(
        f"{name} ({words}: " + ", ".join(f"{key} {value}" for key, value in sets.items()) + ")"
        for name, (words, sets) in MODE_PRESETS.items()
    )


TokenText = Annotated[str, Field(min_length=1, max_length=MAX_TOKEN_CHARS)]
WorkflowId = Annotated[
    str, Field(min_length=1, max_length=MAX_WORKFLOW_ID_CHARS, description="An id from list_workflows.")
]
Context = Annotated[
    JsonObject,  # the agent's own values, which workflows read: JSON by nature
    Field(description="External facts that steer the workflow (conditions, loop inputs): ticketId, complexity..."),
]


def json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode())


def is_unicode_text(text: str) -> bool:
    """False for a str holding a lone surrogate (JSON's escape \\ud800 decodes into one): half a character,
    which no UTF-8 encoder, database or answer can carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# The context keys that name a session (runs/services/nodes.session_key_of): stored as the session's
# key ("ticket:<id>" for a ticketId) and echoed in answers, so they are short ids, not documents.
SESSION_ID_KEYS = {"sessionKey": 200, "ticketId": 190}


def _bounded_context(context: JsonObject | None) -> JsonObject | None:
    if context is None:
        return None
    _check_context_shape(context)  # first: json_size and the engine recurse into the value
    if json_size(context) > MAX_CONTEXT_BYTES:
        raise ValueError(
            f"context is larger than {MAX_CONTEXT_BYTES} bytes; keep it to the inputs that steer the workflow "
            "and put notes in output.notesMarkdown"
        )
    for key, limit in SESSION_ID_KEYS.items():
        value = context.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ValueError(f"context.{key} must be a string or an integer (an id such as 'PROJ-123')")
        if len(str(value)) > limit:
            raise ValueError(f"context.{key} is longer than {limit} characters; use the ticket's or task's short id")
    return context


def _check_context_shape(context: JsonObject) -> None:
    """Context the store can keep and the engine can walk: nested at most MAX_CONTEXT_DEPTH levels (the
    engine copies it recursively), and numbers that JSON can write (the SDK parses NaN and Infinity, but
    the store's JSON columns refuse them). Walked without recursion, however deep it came."""
    stack: list[tuple[Any, int]] = [(context, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("context holds NaN or an infinity, which JSON cannot store; send a number or a string")
        if isinstance(value, dict | list):
            if depth > MAX_CONTEXT_DEPTH:
                raise ValueError(f"context is nested deeper than {MAX_CONTEXT_DEPTH} levels; flatten it")
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)


class Preferences(Shape):
    """How autonomous the agent is (a closed set). Applies from this point on, and to what follows."""

    autonomy: Autonomy | None = None
    risk_policy: RiskPolicy | None = None

    def as_dict(self) -> dict[str, str]:
        return {key: value for key, value in self.dump().items() if value is not None}


class Artifact(OpenShape):
    """A small structured result; its `kind` names the contract it follows (pending.outputContract)."""

    kind: str = Field(min_length=1, max_length=200)


class StepOutputDict(TypedDict, total=False):
    """A StepOutput as the engine and the store read it: plain JSON, without the fields not sent."""

    notesMarkdown: str
    artifacts: list[JsonObject]  # each the agent's own object, with at least a `kind`


class StepOutput(Shape):
    """Durable memory for this step: what survives a rewind of the chat."""

    notes_markdown: str | None = Field(
        default=None, description="A short recap: what you did, decided, and what is next."
    )
    artifacts: list[Artifact] | None = Field(
        default=None,
        description="Small structured results, when the step asks for them (see pending.outputContract).",
    )

    @field_validator("notes_markdown")
    @classmethod
    def _notes_size(cls, notes: str | None) -> str | None:
        if notes is not None and len(notes.encode()) > MAX_NOTES_BYTES:
            raise ValueError(
                f"notesMarkdown is larger than {MAX_NOTES_BYTES} bytes; keep notes to a short recap (about 10 "
                "lines), big results belong in files"
            )
        return notes

    @model_validator(mode="after")
    def _total_size(self) -> StepOutput:
        # Notes alone are bounded above; only artifacts can take the whole output past its bound.
        if self.artifacts and json_size(self.dump()) > MAX_OUTPUT_BYTES:
            raise ValueError(f"output is larger than {MAX_OUTPUT_BYTES} bytes; send a short recap and small artifacts")
        return self

    def as_dict(self) -> StepOutputDict:
        """The plain JSON the engine and the store read."""
        data: StepOutputDict = {}
        if self.notes_markdown is not None:
            data["notesMarkdown"] = self.notes_markdown
        if self.artifacts is not None:
            data["artifacts"] = [artifact.model_dump(mode="json") for artifact in self.artifacts]
        return data


WORKSPACE_PATH_DESCRIPTION = "The project's root, as an absolute path, if your client has no roots for it."


WorkspacePath = Annotated[
    str | None, Field(default=None, min_length=1, max_length=1024, description=WORKSPACE_PATH_DESCRIPTION)
]


class InWorkspace(Shape):
    """A tool that reads the project it works in: its git branch, its `.workrail/workflows`. Which
    directory that is, is chosen per call (runs/execution/workspace.py). Each such model declares
    `workspace_path` itself, last, so that its own fields come first in its schema."""

    if TYPE_CHECKING:
        workspace_path: str | None


class ListWorkflowsInput(InWorkspace):
    tags: list[Annotated[str, Field(min_length=1, max_length=40)]] | None = Field(
        default=None,
        max_length=10,
        description="List the workflows with any of these tags (ids from the overview; 'untagged' for the rest).",
    )
    query: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="List the workflows whose id, title, description or tags hold every word (case and "
        "punctuation ignored).",
    )
    kind: Literal["workflow", "routine"] | None = Field(default=None, description="Only workflows or only routines.")
    namespace: str | None = Field(default=None, max_length=100, description="Only ids in this namespace, e.g. 'wr'.")
    include_examples: bool = Field(default=False, description="Also example and test workflows (left out otherwise).")
    workspace_path: WorkspacePath

    def filters(self) -> ListFilters:
        """The filters as given (what was left out stays out of the answer's `filters`); where the call
        works is not a filter."""
        return ListFilters(**{name: getattr(self, name) for name in self.model_fields_set - {"workspace_path"}})


class InspectWorkflowInput(InWorkspace):
    workflow_id: WorkflowId
    mode: Literal["metadata", "preview"] = Field(
        default="metadata",
        description="metadata: what the workflow is for and its step outline; preview: the outline with each "
        "step's prompt (truncated) and role instead.",
    )
    workspace_path: WorkspacePath


class StartWorkflowInput(InWorkspace):
    workflow_id: WorkflowId
    context: Context | None = Field(
        default=None,
        description="External facts that steer the workflow (conditions, loop inputs): ticketId, complexity... "
        "A ticketId or sessionKey joins the session that has it.",
    )
    goal: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_GOAL_CHARS,
        description="The task in a sentence or two, in the user's words: context.goal, the session's title, "
        "shown whole at start and whenever a chat picks the run up again.",
    )
    preferences: Preferences | None = None
    mode: ModeName | None = Field(
        default=None,
        description=f"A preset of preferences: {modes_in_words()}. Explicit preferences override it.",
    )
    workspace_path: WorkspacePath
    parent_state_token: TokenText | None = Field(
        default=None,
        description="The stateToken of the step that asked you to delegate this run: links the run to that step, "
        "which then shows what it recorded.",
    )

    _context_size = field_validator("context")(_bounded_context)


class ContinueWorkflowInput(InWorkspace):
    state_token: TokenText = Field(description="From the last response, exactly as given.")
    ack_token: TokenText | None = Field(
        default=None,
        description="From the same response: acknowledges the pending step. Omit it to see the pending step again "
        "(with a recap of earlier notes) without advancing.",
    )
    context: Context | None = None
    output: StepOutput | None = None
    preferences: Preferences | None = Field(default=None, description="With an ackToken: change preferences from here.")
    mode: ModeName | None = Field(default=None, description="With an ackToken: switch to this preset from here.")
    workspace_path: WorkspacePath

    _context_size = field_validator("context")(_bounded_context)


class CheckpointInput(Shape):
    state_token: TokenText | None = Field(
        default=None, description="The run snapshot the work belongs to (the latest stateToken)."
    )
    session_token: TokenText | None = Field(
        default=None, description="A checkpoint-only session from start_session, instead."
    )
    output: StepOutput


class StartSessionInput(Shape):
    title: str | None = Field(default=None, min_length=1, max_length=200)
    session_key: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="A name to find it again; the same key joins the same session.",
    )
    tags: list[Annotated[str, Field(max_length=60)]] | None = Field(default=None, max_length=20)


class ResumeSessionInput(Shape):
    query: str | None = Field(default=None, max_length=500, description="Words the user used: ticket, topic, title.")
    git_branch: str | None = Field(default=None, max_length=255)
    git_head_sha: str | None = Field(default=None, max_length=64)
    workspace_path: str | None = Field(default=None, max_length=1024)
