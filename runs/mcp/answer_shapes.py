"""The answers of the MCP tools as an agent receives them: the JSON of runs/contract's models (dumped
by alias, parts never set left out), typed by their keys for what reads that JSON (the text
renderings of runs/mcp/rendering.py, which tests and clients call with the structured answer).

Each TypedDict mirrors one model, key for key: a key is required exactly when the model's field has
no default (tests/runs/mcp/test_answer_shapes.py checks every pair, so the two cannot drift). Parts
that are JSON of the agent's or the workflow's own (context values, conditions, schemas, the next
call's arguments) are JsonObject. Django-free: the catalog's tools answer before the apps load.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

from runs.readmodels.shapes import Recap
from workflows_app.engine.jsontypes import JsonObject

# --- the catalog (runs/contract/catalog.py) -------------------------------------------------------------


class Diagnostic(TypedDict):
    code: str
    severity: str
    message: str
    fix: str
    file: str | None
    pointer: str
    workflowId: str | None
    details: NotRequired[JsonObject | None]


class WorkflowRepository(TypedDict):
    name: str
    url: str
    ref: str | None
    commit: str
    directory: str
    file: str


class WorkflowSource(TypedDict):
    kind: Literal["bundled", "user", "project", "extra", "git"]
    file: str
    path: NotRequired[str | None]
    repository: NotRequired[WorkflowRepository | None]


class SameJob(TypedDict):
    workflowId: str
    takeThisFor: str
    takeOtherFor: str


class WorkflowSummary(TypedDict):
    id: str
    name: str
    description: str
    version: str
    kind: Literal["workflow", "routine"]
    idStatus: Literal["namespaced", "legacy"]
    namespace: str | None
    source: WorkflowSource
    stepCount: int
    outlineLength: int
    loopBodySteps: int
    workflowHash: str
    warningCount: int
    tags: list[str]
    example: bool
    sameJobAs: NotRequired[list[SameJob] | None]


class TagCount(TypedDict):
    id: str
    name: str
    when: list[str]
    count: int


class SourceCount(TypedDict):
    source: str
    count: int


class Problems(TypedDict):
    errors: int
    warnings: int
    command: str
    notLoaded: NotRequired[list[str] | None]


class CatalogOverview(TypedDict):
    tags: list[TagCount]
    sources: list[SourceCount]
    examplesHidden: int


class ListFilters(TypedDict):
    tags: NotRequired[list[str] | None]
    query: NotRequired[str | None]
    kind: NotRequired[Literal["workflow", "routine"] | None]
    namespace: NotRequired[str | None]
    includeExamples: NotRequired[bool]


class WorkflowListJson(TypedDict):
    count: int
    filters: ListFilters
    overview: NotRequired[CatalogOverview | None]
    workflows: list[WorkflowSummary]
    problems: NotRequired[Problems | None]
    warnings: NotRequired[list[Diagnostic] | None]


class UserInput(TypedDict):
    contextKey: str
    description: str
    stepId: str
    stepTitle: str


class WorkflowDetails(WorkflowSummary):
    warnings: NotRequired[list[Diagnostic] | None]
    validateCommand: NotRequired[str | None]
    fromTheUser: NotRequired[list[UserInput] | None]
    about: NotRequired[str | None]
    preconditions: NotRequired[list[str] | None]
    clarificationPrompts: NotRequired[list[str] | None]
    metaGuidance: NotRequired[list[str] | None]
    recommendedPreferences: NotRequired[JsonObject | None]
    examples: NotRequired[list[str] | None]
    features: NotRequired[list[str] | None]


class StepOutline(TypedDict):
    id: str
    title: str
    kind: Literal["step", "loop", "parallel"]
    runCondition: NotRequired[JsonObject | None]  # the workflow's condition, as it wrote it
    requireConfirmation: NotRequired[bool | JsonObject | None]
    loop: NotRequired[JsonObject | None]  # the compiled loop: type, maxIterations, condition...
    body: NotRequired[list[StepOutline] | None]
    prompt: NotRequired[str | None]
    promptTruncated: NotRequired[bool | None]
    agentRole: NotRequired[str | None]


class WorkflowInspectionJson(TypedDict):
    mode: Literal["metadata", "preview"]
    renamedFrom: NotRequired[str | None]
    lookAlike: NotRequired[str | None]
    workflow: WorkflowDetails
    steps: list[StepOutline]


# --- runs (runs/contract/execution.py) ------------------------------------------------------------------


class Warning(TypedDict):
    code: str
    message: str


class Issue(TypedDict):
    code: str
    message: str
    pointer: NotRequired[str | None]
    reason: NotRequired[str | None]


class UserDependency(TypedDict):
    reason: str
    description: str
    contextKey: str
    met: bool


class ExpectedContext(TypedDict):
    key: str
    type: Literal["string", "number", "integer", "boolean", "array", "object", "any"]
    values: NotRequired[list[Any] | None]  # JSON values the workflow compares it with
    choices: NotRequired[list[str] | None]
    why: str
    setByThisStep: bool
    mentionedByThisStep: NotRequired[bool | None]
    allowed: NotRequired[list[Any] | None]  # JSON values a contract's enum allows for a field of that name
    allowedBy: NotRequired[str | None]
    current: NotRequired[Any]  # its JSON value now


class LoopView(TypedDict):
    loopId: str
    iteration: int
    maxIterations: int
    item: NotRequired[Any]  # the JSON item of a forEach loop
    index: NotRequired[int | None]
    decisionDue: NotRequired[bool | None]


class DelegationView(TypedDict):
    index: int
    workflowId: str
    workflowName: NotRequired[str | None]
    goal: str
    runs: bool
    context: JsonObject
    receivesSharedContext: NotRequired[bool | None]
    available: bool
    fix: NotRequired[str | None]
    runId: NotRequired[str | None]
    status: NotRequired[str | None]
    stateToken: NotRequired[str | None]
    recorded: NotRequired[Recap | None]


class LinkedRunView(TypedDict):
    runId: str
    workflowId: str
    workflowName: str
    status: str
    stateToken: str
    recorded: NotRequired[Recap | None]


class DelegateWith(TypedDict):
    parentStateToken: str


class DelegatedBy(TypedDict):
    runId: str
    stepId: str
    stepTitle: str
    linked: NotRequired[bool | None]
    number: int
    count: int
    goal: str
    brief: list[str]
    unfinished: NotRequired[list[str] | None]
    parentStateToken: NotRequired[str | None]


class ReferenceView(TypedDict):
    id: str
    title: str
    source: str
    purpose: str
    authoritative: bool
    resolveFrom: Literal["workspace", "package"]
    path: str
    found: bool


class Pending(TypedDict):
    stepId: str
    title: str
    prompt: str
    agentRole: str | None
    requireConfirmation: bool
    notesRequired: bool
    outputContract: JsonObject | None  # not read by the text: the structured answer carries it
    loop: LoopView | None
    stepInstance: str
    userDependencies: NotRequired[list[UserDependency] | None]
    confirmation: NotRequired[str | None]
    expectedContext: NotRequired[list[ExpectedContext] | None]
    assessments: NotRequired[list[JsonObject] | None]  # likewise
    delegations: NotRequired[list[DelegationView] | None]
    sharedContext: NotRequired[JsonObject | None]
    linkedRuns: NotRequired[list[LinkedRunView] | None]
    linkedRunCount: NotRequired[int | None]
    delegateWith: NotRequired[DelegateWith | None]


class SessionRef(TypedDict):
    sessionId: str
    runId: str
    sessionKey: str | None


class WorkflowRef(TypedDict):
    id: str
    workflowHash: str


class Progress(TypedDict):
    completedSteps: int
    stepCount: NotRequired[int | None]
    outlineStep: NotRequired[str | None]
    outlineLength: NotRequired[int | None]
    summary: NotRequired[str | None]


class EffectivePreferences(TypedDict):
    autonomy: str
    riskPolicy: str


class NextCall(TypedDict):
    tool: Literal["continue_workflow"]
    arguments: JsonObject  # the exact arguments to send, shown as JSON
    instructions: str


class Blocked(TypedDict):
    issues: list[Issue]
    expectedOutputSchema: JsonObject | None  # JSON Schema
    expectedInputSchema: NotRequired[JsonObject | None]
    retry: str


class Branch(TypedDict):
    stateToken: str
    completedStepId: str | None
    via: Literal["step", "checkpoint"]
    notesPreview: str
    createdAt: str
    isComplete: bool
    pendingStepId: str | None
    tipStateToken: NotRequired[str | None]
    tipPendingStepId: NotRequired[str | None]
    tipIsComplete: NotRequired[bool | None]
    notesBelow: NotRequired[bool]


class RecordedOutput(TypedDict):
    notesMarkdown: str
    artifactKinds: list[str]


class RunCheckpoint(TypedDict):
    recorded: RecordedOutput
    note: str
    pendingStepId: str | None


class BranchTip(TypedDict):
    stateToken: str
    ackToken: str | None
    pendingStepId: str | None
    isComplete: bool


class ExecutionJson(TypedDict):
    kind: Literal["step", "blocked", "complete", "checkpoint"]
    isComplete: bool
    stateToken: str
    ackToken: str | None
    pending: Pending | None
    session: SessionRef
    workflow: WorkflowRef
    progress: Progress
    warnings: list[Warning]
    preferences: EffectivePreferences
    mode: Literal["guided", "autopilot", "unattended", "custom"]
    nextCall: NextCall | None
    blocked: NotRequired[Blocked | None]
    selfContained: NotRequired[bool]  # absent from answers recorded before it existed: read as true
    goal: NotRequired[str | None]
    guidance: NotRequired[list[str] | None]
    rehydrated: NotRequired[bool | None]
    runContext: NotRequired[JsonObject | None]  # the run's context values, as set
    recap: NotRequired[Recap | None]
    downstreamRecap: NotRequired[Recap | None]
    branches: NotRequired[list[Branch] | None]
    branchCount: NotRequired[int | None]
    fork: NotRequired[str | None]
    checkpoint: NotRequired[RunCheckpoint | None]
    references: NotRequired[list[ReferenceView] | None]
    branchTip: NotRequired[BranchTip | None]
    delegatedBy: NotRequired[DelegatedBy | None]


# --- notes sessions and resuming (runs/contract/sessions.py) ---------------------------------------------


class NotesSession(TypedDict):
    sessionId: str
    sessionKey: str | None
    title: str


class SessionNextCall(TypedDict):
    tool: Literal["checkpoint_workflow"]
    arguments: JsonObject  # the exact arguments to send, shown as JSON
    instructions: str


class SessionCheckpoint(TypedDict):
    recorded: RecordedOutput
    checkpointCount: int


class SessionJson(TypedDict):
    kind: Literal["session"]
    sessionToken: str
    session: NotesSession
    nextCall: SessionNextCall
    joined: NotRequired[bool | None]
    checkpoint: NotRequired[SessionCheckpoint | None]


class OtherTip(TypedDict):
    stateToken: str
    pendingStepId: str | None
    isComplete: bool
    updatedAt: str


class ResumeCandidate(TypedDict):
    sessionId: str
    sessionKey: str | None
    title: str
    runId: str | None
    workflowId: str | None
    status: str | None
    stateToken: str | None
    sessionToken: str | None
    pendingStepId: str | None
    isComplete: bool
    updatedAt: str
    snippet: str
    whyMatched: list[str]
    layer: int
    score: int
    otherTips: NotRequired[list[OtherTip] | None]
    otherTipCount: NotRequired[int | None]


class ResumeQuery(TypedDict):
    query: str | None
    words: list[str]
    gitBranch: str | None
    gitHeadSha: str | None
    workspacePath: str | None


class ResumeJson(TypedDict):
    candidates: list[ResumeCandidate]
    searched: JsonObject  # what each search layer read and found (free-form in the contract too)
    query: ResumeQuery


# checkpoint_workflow answers for a run or for a notes session.
CheckpointJson = ExecutionJson | SessionJson

ToolJson = Mapping[str, Any]
"""The structured content of any tool's answer, where the tool is not known (the timings' outcome, the
door to the SDK): one of the shapes above, by tool, or an error's ({"error": WorkRailError.as_dict()})."""
