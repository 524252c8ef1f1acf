"""What the developer's side reads: sessions, runs, their graphs, nodes, events and tool timings.

The dashboard's templates and the HTTP API (/api/v1/) render the same objects, built by the read
services in runs/readmodels/overview.py, runs/readmodels/run_view.py and runs/readmodels/timings.py.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from runs.contract.base import Shape
from runs.contract.fork import OperatorForkNote
from runs.contract.inputs import ModeName, Preferences
from workflows_app.engine.jsontypes import JsonObject

SessionStatusName = Literal["in_progress", "stalled", "blocked", "complete", "canceled", "notes"]
RunStatusName = Literal["in_progress", "stalled", "blocked", "complete", "canceled"]
BranchStatusName = Literal["complete", "open", "blocked", "canceled"]
SessionSort = Literal["activity", "-activity", "created", "-created", "title", "-title"]
SessionGroup = Literal["none", "branch", "workspace"]


class SessionSummary(Shape):
    session_id: str
    title: str
    session_key: str | None
    status: SessionStatusName
    workflow_ids: list[str]
    run_count: int
    branch_count: int
    git_branch: str
    workspace_path: str
    created_at: datetime
    last_activity: datetime
    status_summary: str | None = Field(
        default=None,
        description="The status in words, branch by branch, when a run of the session forked (the status alone "
        "would hide a finished branch behind an open one): 'completed on branch 1 (Request changes) · branch 2 "
        "open'. Null when no run forked: `status` says it all. The session page gives it for every session.",
    )


class SessionGroupHeading(Shape):
    """Where a group of the current page starts, when the list is grouped by branch or workspace."""

    label: str
    first_index: int
    count: int


class SessionPage(Shape):
    items: list[SessionSummary]
    total: int = Field(description="Sessions matching the filters, across all pages.")
    page: int
    pages: int
    per_page: int
    query: str
    status: SessionStatusName | None
    sort: SessionSort
    group: SessionGroup
    groups: list[SessionGroupHeading]
    status_counts: dict[str, int] = Field(description="Sessions per status among those matching the search.")


class RunSummary(Shape):
    run_id: str
    session_id: str
    workflow_id: str
    workflow_name: str
    workflow_hash: str
    status: RunStatusName
    node_count: int
    branch_count: int
    delegated_by: str | None = Field(description="The run that handed this one out (a parallel step), if any.")
    created_at: datetime
    updated_at: datetime
    status_summary: str | None = Field(
        default=None,
        description="The status in words, telling finished branches from open ones: 'completed on branch 1 "
        "(Request changes) · branch 2 open', 'open at step 4: Review api', 'blocked at step 2 (...) since ...'. "
        "`status` keeps its values (it follows the run's latest answer); this follows every branch.",
    )


class CheckpointEntry(Shape):
    run_id: str | None
    node_id: str | None
    step_id: str | None
    notes_markdown: str
    artifacts: list[JsonObject]
    created_at: datetime


class TimelineLane(Shape):
    run_id: str
    label: str
    points: list[float] = Field(description="When each node was created, as a fraction of the session's span.")
    first_at: datetime | None = Field(default=None, description="When the run's first node was created.")
    last_at: datetime | None = Field(default=None, description="When the run's newest node was created.")


class SessionDetail(Shape):
    session: SessionSummary
    preferences: dict[str, str]
    mode: str
    runs: list[RunSummary]
    checkpoints: list[CheckpointEntry]
    timeline: list[TimelineLane]
    last_seq: int


class GraphNode(Shape):
    node_id: str = Field(description="The node id as a string (64-bit: JavaScript cannot hold it as a number).")
    parent_id: str | None
    step_id: str | None
    title: str
    depth: int
    lane: int
    is_complete: bool
    is_tip: bool = Field(description="The newest node: where the run most recently stands.")
    is_leaf: bool
    via: Literal["start", "step", "checkpoint", "fork"] = Field(
        description="What made the node: the run's start, a step taken, a checkpoint, or an operator fork (a "
        "branch a developer started by hand)."
    )
    step_number: int = Field(
        description="The step of the workflow the node stands at, counted along its path: step N is the Nth "
        "step taken there (a checkpoint or an operator fork keeps its parent's number; a completed node is one "
        "past the last step)."
    )
    is_blocked: bool = Field(
        default=False, description="The tip of a blocked branch: the answer to its step was refused."
    )
    created_at: datetime
    iteration: int | None = Field(
        default=None, description="The iteration (1 for the first) of the innermost loop the node's pending step is in."
    )
    loop_title: str = Field(default="", description="That loop's title; empty outside a loop.")


class GraphEdge(Shape):
    source: str
    target: str


class RunGraph(Shape):
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    lanes: int
    depth: int
    tip: str | None


class ChangedFile(Shape):
    path: str
    summary: str
    risk: str


class Finding(Shape):
    severity: Literal["critical", "major", "minor", "nit"]
    title: str
    location: str
    rationale: str
    suggestion: str
    comment: str = Field(description="A copy-ready review comment.")


class ArtifactEntry(Shape):
    kind: str
    step_id: str | None
    data: JsonObject  # the artifact as the agent recorded it


class ArtifactTables(Shape):
    changed_files: list[ChangedFile]
    findings: list[Finding]
    others: list[ArtifactEntry]


class BlockedIssue(Shape):
    """One problem the refusal named, as the agent was told it."""

    code: str
    message: str
    pointer: str | None = Field(description="A JSON pointer into the continue_workflow arguments to fix.")
    reason: str | None


class BlockedStep(Shape):
    """Why a branch is blocked: the refused answer that holds it (runs/readmodels/blocked.py)."""

    node_id: str = Field(description="The node whose step was refused.")
    step_id: str
    step_title: str
    since: datetime = Field(description="The oldest refusal that still stands at this step.")
    last_refused_at: datetime
    refusals: int = Field(description="How many answers were refused here since the last step taken.")
    reason: str = Field(description="The first issue in a sentence.")
    issues: list[BlockedIssue] = Field(description="The newest refusal's issues (at most 20; see issueCount).")
    issue_count: int
    resend: list[str] = Field(
        description="The parts of continue_workflow the agent must send again (with the same stateToken and the "
        "fresh ackToken the refusal gave): 'output.artifacts (mr_review.changed_files)', 'context: reviewAreas'."
    )
    retry: str = Field(description="What the refusal told the agent to do.")


class BranchOutcomeEntry(Shape):
    """How one branch of a run ended, or where it stands (runs/readmodels/outcomes.py)."""

    number: int = Field(description="Branch 1 is the run's first; then in the graph's lane order.")
    status: BranchStatusName
    tip_node_id: str = Field(description="The branch's latest node: `?tip=` on the run page shows the branch.")
    is_newest: bool = Field(description="Its tip is the run's newest node.")
    verdict: str | None = Field(
        description="A completed branch's verdict: from a standing artifact's verdict, else a 'Verdict:' line of "
        "its notes; null when it has none."
    )
    verdict_source: str | None
    findings: dict[str, int] = Field(description="A completed branch's standing findings, by severity.")
    step_number: int | None = Field(description="An unfinished branch's pending step: its number on the branch.")
    step_id: str | None
    step_title: str | None
    at: datetime = Field(description="When it completed, was blocked (since), or last moved.")
    headline: str = Field(description="The same in one sentence: 'Branch 1 completed: Request changes, ...'.")
    blocked: BlockedStep | None


class StepEntry(Shape):
    node_id: str = Field(description="The node where the step was pending.")
    child_id: str | None = Field(description="The node the step's acknowledgement led to.")
    kind: Literal["step", "checkpoint"]
    step_id: str
    step_number: int = Field(
        description="The step of the workflow it was recorded at, counted along the path (a checkpoint is "
        "recorded at a step and does not move the count)."
    )
    title: str
    prompt: str
    notes_markdown: str
    artifacts: list[JsonObject]
    started_at: datetime
    recorded_at: datetime
    seconds: float


class GapEntry(Shape):
    node_id: str
    step_id: str
    reason: str
    description: str
    created_at: datetime


class WarningEntry(Shape):
    node_id: str | None
    code: str
    message: str
    created_at: datetime


class RunDetail(Shape):
    run: RunSummary
    graph: RunGraph
    branch_tip: str | None = Field(description="The leaf whose path the steps show.")
    steps: list[StepEntry]
    tables: ArtifactTables
    gaps: list[GapEntry]
    warnings: list[WarningEntry]
    synthesis: JsonObject | None  # published as an open object: the synthesis recorded when the run completed
    delegations: list[RunSummary]
    pending_step_id: str | None
    pending_title: str | None
    operator_forks: list[OperatorForkNote] = Field(
        default_factory=list, description="The branches a developer started by hand on the shown branch's path."
    )
    branch: BranchOutcomeEntry | None = Field(
        default=None, description="The shown branch (the one ending at branchTip): its status, and why if blocked."
    )
    other_branches: list[BranchOutcomeEntry] = Field(
        default_factory=list, description="Every other branch of the run: how it ended or where it stands."
    )


class BranchEntry(Shape):
    node_id: str
    state_token: str
    via: Literal["step", "checkpoint", "fork"] = Field(description="fork: a developer started it by hand.")
    step_id: str | None
    notes_preview: str
    is_complete: bool
    pending_step_id: str | None
    created_at: datetime


class NodeDetail(Shape):
    node_id: str
    run: RunSummary
    parent_id: str | None
    depth: int
    step_number: int = Field(
        description="The step of the workflow the node stands at, counted along its path (as the run's graph "
        "numbers it: a checkpoint or an operator fork keeps its parent's number)."
    )
    step_id: str | None
    title: str
    prompt: str
    is_complete: bool
    preferences: dict[str, str]
    created_at: datetime
    state_token: str = Field(description="Pass to continue_workflow to resume (or fork) from this node.")
    recorded: list[StepEntry] = Field(description="Notes and artifacts recorded on this node.")
    recap: JsonObject = Field(description="The notes on the path to this node, as a rehydrating agent reads them.")
    branches: list[BranchEntry]
    context: JsonObject = Field(default_factory=dict, description="The run's context at this node.")
    operator_fork: OperatorForkNote | None = Field(
        default=None, description="When a developer started this node's branch here by hand: from where, and why."
    )
    on_branch: BranchOutcomeEntry | None = Field(
        default=None, description="The branch of the run this node is on (the graph's lane): how it stands."
    )
    other_branches: list[BranchOutcomeEntry] = Field(
        default_factory=list, description="The run's other branches: how each ended or where it stands."
    )
    blocked: BlockedStep | None = Field(
        default=None, description="When this node's step is the one refused: why, what to resend, since when."
    )


class EventEntry(Shape):
    seq: int
    kind: str
    data: JsonObject  # the event's payload as stored in the log
    created_at: datetime


class EventPage(Shape):
    session_id: str
    items: list[EventEntry]
    next_after: int | None = Field(description="Pass as `after` for the next page; null on the last page.")


class ToolCallEntry(Shape):
    tool: str
    outcome: str
    duration_ms: float
    started_at: datetime


class ToolStats(Shape):
    tool: str
    calls: int
    errors: int
    p50_ms: float
    p95_ms: float
    max_ms: float


class ToolTimings(Shape):
    recent: list[ToolCallEntry]
    stats: list[ToolStats]
    kept: int = Field(description="How many recent calls the store keeps (WORKRAIL_TOOL_TIMINGS_KEPT).")


class PreferencesChange(Shape):
    """A change of mode or preferences from the dashboard or the API (the same closed set as the tools)."""

    mode: ModeName | None = None
    preferences: Preferences | None = None


class PreferencesChangeResult(Shape):
    session_id: str
    preferences: dict[str, str]
    mode: str
    runs_changed: list[str] = Field(description="Runs whose open tips take the new preferences at their next step.")


class CancelResult(Shape):
    run_id: str
    status: RunStatusName
