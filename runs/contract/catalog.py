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
    file: str = Field(description="The workflow's file inside its source's directory.")
    path: str | None = Field(
        default=None,
        description="The file's absolute path: on the dashboard and the HTTP API only, never in an agent's answer.",
    )
    repository: WorkflowRepository | None = Field(default=None, description="Only for a workflow from git.")


class SameJob(Shape):
    """Another workflow of this catalog that does the same job, and when to take which."""

    workflow_id: str
    take_this_for: str = Field(description="When to take this workflow rather than the other.")
    take_other_for: str = Field(description="When to take the other one instead.")


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
    loop_body_steps: int = Field(
        ge=0,
        description="Steps inside its loops (inspect_workflow numbers them 4.1, 4.2...), each counted once.",
    )
    workflow_hash: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    warning_count: int = Field(ge=0, description="Authoring warnings about its file (validate_workflow shows them).")
    tags: list[str] = Field(description="Its tag ids; empty when untagged.")
    example: bool = Field(description="An example or test workflow: listed only with includeExamples.")
    same_job_as: list[SameJob] | None = Field(
        default=None, description="Workflows in this catalog that do the same job, and when to take which."
    )


class TagCount(Shape):
    id: str = Field(description="Pass it in list_workflows' tags.")
    name: str
    when: list[str] = Field(description="What it is for, in short phrases.")
    count: int = Field(ge=0, description="Workflows listed under it.")


class SourceCount(Shape):
    source: str = Field(description="bundled, user, project, extra, or git:<repository name>.")
    count: int = Field(ge=0)


class Problems(Shape):
    """What is wrong with workflow files, counted: the command shows each with its file and fix."""

    errors: int = Field(ge=0, description="Files that could not be loaded (their workflows are not listed).")
    warnings: int = Field(ge=0, description="Authoring warnings about files that load (IGNORED_FIELD, LEGACY_ID...).")
    command: str = Field(description="The command that shows every one, with its file and how to fix it.")
    not_loaded: list[str] | None = Field(
        default=None,
        description="Workflow repositories not loaded yet (never fetched, or the fetch failed): their workflows "
        "are missing from the list until they are.",
    )


class CatalogOverview(Shape):
    tags: list[TagCount] = Field(description="Each tag with its workflows' count; 'untagged' holds the rest.")
    sources: list[SourceCount]
    examples_hidden: int = Field(ge=0, description="Example and test workflows left out (includeExamples lists them).")


class ListFilters(Shape):
    tags: list[str] | None = None
    query: str | None = None
    kind: Literal["workflow", "routine"] | None = None
    namespace: str | None = None
    include_examples: bool = False


# Final once built (FinalShape): the catalog keeps it per filter and every door sends its one dump.
class WorkflowList(FinalShape):
    """Without a filter: the overview only (tags, sources, counts). With tags, query, kind or namespace:
    the workflows that match."""

    count: int = Field(ge=0, description="Workflows that match (without a filter: every one listed).")
    filters: ListFilters
    overview: CatalogOverview | None = Field(default=None, description="Only without a filter.")
    workflows: list[WorkflowSummary] = Field(description="Only with a filter (empty without one).")
    problems: Problems | None = Field(default=None, description="Only when some workflow file has a problem.")
    warnings: list[Diagnostic] | None = Field(
        default=None,
        description="Every problem in full: on the dashboard and the HTTP API only, never in an agent's answer.",
    )


class UserInput(Shape):
    """Something only the user can give, asked for by a step: worth having before the run starts."""

    context_key: str
    description: str
    step_id: str
    step_title: str


class WorkflowDetails(WorkflowSummary):
    warnings: list[Diagnostic] | None = Field(
        default=None, description="Its warnings in full: on the dashboard and the HTTP API only."
    )
    validate_command: str | None = Field(
        default=None, description="The command that shows its warnings, when it has some."
    )
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
    renamed_from: str | None = Field(
        default=None, description="The former id asked for; this workflow has a new id (workflow.id): use it."
    )
    look_alike: str | None = Field(
        default=None, description="A listed workflow whose id the former one looks like: the one perhaps meant."
    )
    workflow: WorkflowDetails
    steps: list[StepOutline]
