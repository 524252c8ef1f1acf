"""The operator fork: what a developer sends to start a new branch from a node (the dashboard's form, the
HTTP API), what comes back, and how a fork is shown on the run and node pages."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from runs.contract.base import Shape
from workflows_app.engine.jsontypes import JsonObject

MAX_REASON_CHARS = 1000  # a sentence or a short paragraph: it is shown on the run page and to the agent


class OperatorForkInput(Shape):
    """A new branch from a node: its context changed, and why."""

    context: JsonObject = Field(
        default_factory=dict,
        description="The change to the node's context, merged into it at the top level: a key with a value sets "
        "it (replacing the old value whole), a key with null removes it, keys not named keep their values. "
        "{} keeps the context as it is.",
    )
    reason: str = Field(
        min_length=1,
        max_length=MAX_REASON_CHARS,
        description="Why the branch is started: shown on the run page and to the agent that continues it.",
    )


class AgentCallArguments(Shape):
    """continue_workflow's arguments (runs.contract.inputs.ContinueWorkflowInput) with only a stateToken:
    nothing advances, the pending step is shown again."""

    state_token: str


class AgentCall(Shape):
    """The tool call to give the agent, exactly: it returns the new branch's pending step, with its context
    and a fresh ackToken."""

    tool: Literal["continue_workflow"]
    arguments: AgentCallArguments


class OperatorForkResult(Shape):
    session_id: str
    run_id: str
    forked_from: str = Field(description="The node the branch was started from.")
    node_id: str = Field(description="The new branch's first node.")
    state_token: str = Field(description="The new node's stateToken: the agent goes on from it.")
    ack_token: str = Field(
        description="Acknowledges the pending step on the new branch. An agent in a new chat should first call "
        "continue_workflow with the stateToken alone (`call`), which returns the step, its context and this "
        "ackToken."
    )
    pending_step_id: str
    pending_title: str
    context: JsonObject = Field(description="The new branch's context, after the change.")
    context_set: JsonObject = Field(description="The keys the change set, with their new values.")
    context_removed: list[str] = Field(description="The keys the change removed.")
    reason: str
    call: AgentCall = Field(description="The exact continue_workflow call to give the agent.")
    instructions: str = Field(description="What to tell the agent along with the call.")


class OperatorForkNote(Shape):
    """A branch a developer started (an operator fork), as the run and node pages show it."""

    node_id: str = Field(description="The branch's first node.")
    forked_from: str = Field(description="The node it was started from.")
    reason: str
    context_set: JsonObject
    context_removed: list[str]
    change: str = Field(description="The change in words: 'target set to \"production\"; dryRun removed'.")
    via: Literal["dashboard", "api"]
    created_at: datetime
    from_step_number: int | None = Field(
        default=None, description="The number, on its branch, of the step pending where the branch was started."
    )
    from_title: str = Field(default="", description="That step's title, as the agent saw it.")
    from_branch: int | None = Field(
        default=None, description="The branch of the run (as its graph numbers it) the branch was started from."
    )
    by: str = Field(default="", description="Who started it, in words: 'by bob (dashboard)'; empty if not said.")
