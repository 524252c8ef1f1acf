"""What list_workflows and inspect_workflow answer (and the workflow resources show)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from runs.contract.base import FinalShape, Shape
from workflows_app.diagnostics import Code, Severity
from workflows_app.engine.jsontypes import JsonObject

STEP_COUNT_MEANING = (
    "Steps an agent can be given: every step of the compiled workflow, loop bodies and routine steps "
    "included, each counted once (a loop that runs three times still counts its steps once)."
)


class Diagnostic(Shape):
    code: Code
    severity: Severity
    message: str
    fix: str = Field(description="What to do about it.")
    file: str | None
    pointer: str = Field(description="JSON pointer into the file; empty for the whole file.")
    workflow_id: str | None
    details: JsonObject | None = None


class WorkflowRepository(Shape):
    """The git repository a workflow comes from (WORKRAIL_WORKFLOW_REPOS), at the commit it is pinned to."""

    name: str
    url: str = Field(description="The repository's URL, without credentials.")
    ref: str | None = Field(description="The branch, tag or commit synced; null for the default branch.")
    commit: str = Field(pattern=r"^[0-9a-f]{40}$", description="The pinned commit the workflow is read from.")
    directory: str = Field(description="The directory of the workflows inside the repository; empty for its root.")
    file: str = Field(description="The workflow's file inside the repository, from its root.")


class WorkflowSource(Shape):
    kind: Literal["bundled", "user", "project", "extra", "git"]
    path: str
    repository: WorkflowRepository | None = Field(default=None, description="Only for a workflow from git.")


class WorkflowSummary(Shape):
    id: str
    name: str
    description: str
    version: str
    kind: Literal["workflow", "routine"]
    id_status: Literal["namespaced", "legacy"]
    namespace: str | None
    source: WorkflowSource
    step_count: int = Field(ge=1, description=STEP_COUNT_MEANING)
    outline_length: int = Field(
        ge=1,
        description="Entries at the top of its outline (inspect_workflow numbers them 1..N; a loop is one, its "
        "steps 4.1, 4.2...): what a run's progress counts against.",
    )
    workflow_hash: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    warning_count: int = Field(ge=0, description="How many entries of 'warnings' concern it.")


# Final once built (FinalShape): the catalog keeps it per filter and every door sends its one dump.
class WorkflowList(FinalShape):
    count: int = Field(ge=0)
    workflows: list[WorkflowSummary]
    warnings: list[Diagnostic] = Field(
        description="Files that could not be loaded, and loaded workflows with something to fix."
    )


class UserInput(Shape):
    """Something only the user can give, asked for by a step: worth having before the run starts."""

    context_key: str
    description: str
    step_id: str
    step_title: str


class WorkflowDetails(WorkflowSummary):
    warnings: list[Diagnostic]
    from_the_user: list[UserInput] | None = Field(
        default=None,
        description="What only the user can give, by step: send it as context with start_workflow when known.",
    )
    about: str | None = None
    preconditions: list[str] | None = None
    clarification_prompts: list[str] | None = None
    meta_guidance: list[str] | None = None
    recommended_preferences: JsonObject | None = None  # as the workflow file gives them
    examples: list[str] | None = None
    features: list[str] | None = None


class StepOutline(Shape):
    id: str
    title: str
    kind: Literal["step", "loop", "parallel"]
    # As the compiled workflow gives them: a condition, and a loop's definition, are workflow JSON.
    run_condition: JsonObject | None = None
    require_confirmation: bool | JsonObject | None = None
    loop: JsonObject | None = None
    body: list[StepOutline] | None = None
    prompt: str | None = None
    prompt_truncated: bool | None = None
    agent_role: str | None = None


class WorkflowInspection(Shape):
    mode: Literal["metadata", "preview"]
    workflow: WorkflowDetails
    steps: list[StepOutline]
