"""What start_workflow, continue_workflow and checkpoint_workflow (on a run) answer.

One model for every path (start, advance, blocked, replay, rehydrate, checkpoint), so an agent always
reads the same fields, and `nextCall` carries the exact arguments of the next call, typed as that
call's own input.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from pydantic import Field

from runs.contract.base import FinalShape, Shape
from runs.contract.inputs import Autonomy, ContinueWorkflowInput, RiskPolicy
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import EngineIssue, EngineWarning

COMPLETED_STEPS_MEANING = (
    "Steps acknowledged on the way to this point: a loop's steps count once per pass, skipped steps not at all."
)


class Warning(Shape):
    code: str
    message: str


class Issue(Shape):
    """Why a step is not done yet; `pointer` is a JSON pointer into the arguments to fix."""

    code: str
    message: str
    pointer: str | None = None
    reason: str | None = None


class UserDependency(Shape):
    reason: str
    description: str
    context_key: str
    met: bool


# The same shapes as the plain dicts the use cases pass around before an answer is built: typed for
# the reader and mypy, checked once, by the answer's model, and free on the hot path.


class WarningDict(TypedDict):
    """A Warning before it is part of an answer (also what the run's warning events record)."""

    code: str
    message: str


class IssueDict(TypedDict):
    """An Issue before it is part of an answer (or of an error's details)."""

    code: str
    message: str
    pointer: NotRequired[str]
    reason: NotRequired[str]


def engine_warnings(found: list[EngineWarning]) -> list[WarningDict]:
    """The engine's warnings (workflows_app.engine.codes.warning: a code and a message) as WarningDicts."""
    return [{"code": item["code"], "message": item["message"]} for item in found]


def engine_issues(found: list[EngineIssue], under: str = "") -> list[IssueDict]:
    """The engine's issues (workflows_app.engine.codes.issue: a code, a message, maybe a pointer) as
    IssueDicts, each pointer put `under` a prefix: the engine points into `output`, an answer into the
    arguments of the call."""
    return [
        {"code": item["code"], "message": item["message"], "pointer": under + item["pointer"]}
        if "pointer" in item
        else {"code": item["code"], "message": item["message"]}
        for item in found
    ]


class UserDependencyDict(TypedDict):
    """A step's userDependencies entry (reason, description, contextKey, as the workflow declares
    it) with whether the run's context meets it."""

    reason: str
    description: str
    contextKey: str
    met: bool


class ExpectedContext(Shape):
    """A context variable to send with this step: one its prompt asks for, or one the workflow reads
    later that is not set yet."""

    key: str
    type: Literal["string", "number", "integer", "boolean", "array", "object", "any"]
    values: list[Any] | None = Field(
        default=None,
        description="Every value the workflow compares it with, anywhere. Not a closed set: other values are "
        "accepted, they just match none of those comparisons.",
    )
    choices: list[str] | None = Field(
        default=None,
        description="The values the step's prompt offers for it, where nothing in the workflow compares it "
        "(its words: Simple / Standard / Complex).",
    )
    why: str = Field(
        description="What reads it after this step (conditions, loops, templates, delegations), or that nothing does."
    )
    set_by_this_step: bool = Field(description="True when this step's prompt asks for it as a context value.")
    mentioned_by_this_step: bool | None = Field(
        default=None, description="True when this step's prompt names it without asking for it as a context value."
    )
    allowed: list[Any] | None = Field(
        default=None, description="The values a contract of this workflow allows for a field of the same name (enum)."
    )
    allowed_by: str | None = Field(default=None, description="Which contract, of which step, allows those values.")
    current: Any = Field(default=None, description="Its value now, when it is set already: this step may change it.")


class OutputContractView(Shape):
    contract_ref: str
    required: bool
    artifact_kind: str | None
    json_schema: JsonObject | None = Field(alias="schema")
    example: Any = Field(
        description="An illustration of a valid artifact, invented: never send it as your own. nextCall holds "
        "the template to fill in."
    )


class LoopView(Shape):
    loop_id: str = Field(description="The loop's id, as a wr.loop_control artifact names it.")
    iteration: int
    max_iterations: int
    item: Any = None
    index: int | None = None
    decision_due: bool | None = Field(
        default=None,
        description="For a loop that runs again only on a wr.loop_control decision: true when this step's "
        "acknowledgement must carry that decision (nextCall then holds its template).",
    )


class AssessmentDimension(Shape):
    id: str
    purpose: str
    levels: list[str]
    required: bool


class FollowUpTrigger(Shape):
    level: str
    guidance: str


class AssessmentView(Shape):
    """An assessment the step must rate with a `wr.assessment` artifact."""

    assessment_id: str
    purpose: str
    dimensions: list[AssessmentDimension]
    follow_up_when: list[FollowUpTrigger] = Field(
        description="Rating any dimension at one of these levels keeps the step pending until it is addressed."
    )


class DelegationView(Shape):
    """One delegation of a parallel step, and the run it is carried out in."""

    index: int
    workflow_id: str
    workflow_name: str | None = Field(default=None, description="The delegated workflow's name, when it is loaded.")
    goal: str = Field(description="Why this delegation exists, as the parallel step states it (may be empty).")
    runs: bool = Field(description="False when its runCondition does not hold: nothing to do.")
    context: JsonObject = Field(
        description="The context its run starts from; when receivesSharedContext, pending.sharedContext holds the rest."
    )
    receives_shared_context: bool | None = Field(
        default=None, description="True when its run also receives pending.sharedContext (given once for all)."
    )
    available: bool = Field(description="False when this WorkRail has no workflow of that id: do that part yourself.")
    fix: str | None = Field(default=None, description="When unavailable: how to make the workflow available.")
    run_id: str | None = None
    status: str | None = None
    state_token: str | None = Field(
        default=None, description="continue_workflow with only this stateToken shows the delegated run's step."
    )
    recorded: Recap | None = Field(
        default=None,
        description="What its run recorded so far (its notes: the first and the newest within a budget shared by "
        "the step's delegations); `omitted` names the resource with the rest.",
    )


class LinkedRunView(Shape):
    """A run the agent started for this step with start_workflow's parentStateToken (the step's prompt asked
    it to delegate), and what that run recorded."""

    run_id: str
    workflow_id: str
    workflow_name: str
    status: str
    state_token: str = Field(description="continue_workflow with only this stateToken shows the linked run's step.")
    recorded: Recap | None = Field(
        default=None,
        description="What the run recorded so far (its notes: the first and the newest within a budget shared by "
        "the step's linked runs); `omitted` names the resource with the rest.",
    )


class DelegateWith(Shape):
    """How to start a run linked to this step, given where the step's prompt asks the agent to delegate."""

    parent_state_token: str = Field(
        description="Send it as start_workflow's parentStateToken when starting a delegated run (a routine or a "
        "workflow): the run is linked to this step, which then shows what it recorded, and the run's last answer "
        "gives the call back here."
    )


class DelegatedBy(Shape):
    """A delegated run's link to the step that handed it out (a parallel step), or that it was started for
    (start_workflow's parentStateToken): given when the run starts linked, when a chat opens it (a rehydrate)
    and when it completes."""

    run_id: str = Field(description="The parent run, whose step handed out this delegation.")
    step_id: str
    step_title: str
    linked: bool | None = Field(
        default=None,
        description="True for a run the agent started with start_workflow's parentStateToken; number and count "
        "then count the runs linked to that step so far.",
    )
    number: int = Field(description="Which of the step's delegations this run carries out (1 is the first).")
    count: int = Field(description="How many delegations the step hands out.")
    goal: str = Field(description="Why this delegation exists, as the parallel step states it (may be empty).")
    brief: list[str] = Field(
        description="The context keys the parent handed to this run: its brief (their values are in runContext)."
    )
    unfinished: list[str] | None = Field(
        default=None, description="On completion: the step's other delegated runs that are not complete yet."
    )
    parent_state_token: str | None = Field(
        default=None,
        description="On completion: the parent's node at that step. continue_workflow with only this stateToken "
        "shows the step again, with what each delegation recorded, and an ackToken to acknowledge it.",
    )


class ReferenceView(Shape):
    """A document the workflow points to (never inlined: open it yourself when a step needs it)."""

    id: str
    title: str
    source: str = Field(description="The path as the workflow gives it.")
    purpose: str
    authoritative: bool = Field(description="True when the workflow says to follow the document strictly.")
    resolve_from: Literal["workspace", "package"]
    path: str = Field(description="Where it resolves on this machine (the project directory or the workflow's own).")
    found: bool = Field(description="False when no file is there: go on without it, or ask the user for it.")


class Pending(Shape):
    step_id: str
    title: str
    prompt: str
    agent_role: str | None
    require_confirmation: bool
    notes_required: bool
    output_contract: OutputContractView | None
    loop: LoopView | None
    step_instance: str
    user_dependencies: list[UserDependency] | None = None
    confirmation: str | None = None
    expected_context: list[ExpectedContext] | None = None
    assessments: list[AssessmentView] | None = None
    delegations: list[DelegationView] | None = None
    linked_runs: list[LinkedRunView] | None = Field(
        default=None,
        description="The runs started for this step with start_workflow's parentStateToken, oldest first (at most "
        "20, the newest), with what each recorded.",
    )
    linked_run_count: int | None = Field(default=None, description="How many runs are linked to this step in all.")
    delegate_with: DelegateWith | None = Field(
        default=None, description="Where the step's prompt asks to delegate: how to start a run linked to it."
    )
    shared_context: JsonObject | None = Field(
        default=None,
        description="Context every delegated run of this parallel step receives alike, given once here rather "
        "than in each delegation's context (see receivesSharedContext).",
    )


class SessionRef(Shape):
    session_id: str
    run_id: str
    session_key: str | None


class WorkflowRef(Shape):
    id: str
    workflow_hash: str


class Progress(Shape):
    completed_steps: int = Field(ge=0, description=COMPLETED_STEPS_MEANING)
    step_count: int | None = Field(
        default=None, ge=0, description="Steps in the workflow, counted as list_workflows counts them."
    )
    outline_step: str | None = Field(
        default=None,
        description="Where the pending step is in inspect_workflow's outline: '4' for the fourth step, '4.2' for "
        "the second step inside the fourth (a loop). Null when the run is complete.",
    )
    outline_length: int | None = Field(default=None, ge=0, description="Top-level steps in the outline.")
    summary: str | None = Field(default=None, description="The same in one sentence.")


class EffectivePreferences(Shape):
    autonomy: Autonomy
    risk_policy: RiskPolicy


class NextCall(Shape):
    tool: Literal["continue_workflow"]
    arguments: ContinueWorkflowInput
    instructions: str


class Blocked(Shape):
    issues: list[Issue]
    expected_output_schema: JsonObject | None  # JSON Schemas
    expected_input_schema: JsonObject | None = None
    retry: str


class RecapEntry(Shape):
    kind: Literal["step", "checkpoint"]
    step_id: str
    title: str
    notes_markdown: str
    artifact_kinds: list[str | None]
    position: int | None = Field(
        default=None, description="Its place on the path: 1 is the first entry after the start."
    )
    kept_because: str | None = Field(
        default=None,
        description="Why a recap over budget kept it: it set a value the pending step works through.",
    )


class RecapGap(Shape):
    """The entries a recap left out, and the resource that pages through them."""

    from_position: int
    to_position: int
    uri: str = Field(description="Read this resource for the left-out entries; each page names the next (nextUri).")
    how_to_read: str


class Recap(Shape):
    entries: list[RecapEntry]
    truncated: bool
    omitted_entries: int | None
    policy: str
    total_entries: int | None = Field(default=None, description="Every entry on the path, kept or not.")
    omitted: RecapGap | None = None


class Branch(Shape):
    state_token: str = Field(description="The branch's first node (just after this point).")
    completed_step_id: str | None
    via: Literal["step", "checkpoint", "fork"] = Field(
        description="How the branch began: a step acknowledged, a checkpoint, or a fork the user made by hand."
    )
    notes_preview: str
    created_at: str
    is_complete: bool
    pending_step_id: str | None
    tip_state_token: str | None = Field(
        default=None,
        description="Where the branch stands now (its latest node): continue_workflow with only this stateToken "
        "returns to it.",
    )
    tip_pending_step_id: str | None = None
    tip_is_complete: bool | None = None
    notes_below: bool = Field(
        default=False,
        description="The newest branch: its notes are in downstreamRecap (what a rewound chat lost), not here.",
    )


class BranchTip(Shape):
    """Where a branch stands now: its newest node, and the tokens that go on from there."""

    state_token: str
    ack_token: str | None = Field(
        description="The unused ackToken of its pending step; null when the run is complete there, or when "
        "continue_workflow with only the stateToken is the way to get one."
    )
    pending_step_id: str | None
    is_complete: bool


class RecordedOutput(Shape):
    notes_markdown: str
    artifact_kinds: list[str]


class RunCheckpoint(Shape):
    recorded: RecordedOutput
    note: str
    pending_step_id: str | None


# Final once built (FinalShape): the use case records its JSON (what a replay answers again) and the door
# sends the same dump. (A comment: a docstring would be the published schema's description.)
class ExecutionResult(FinalShape):
    kind: Literal["step", "blocked", "complete", "checkpoint"]
    is_complete: bool
    state_token: str
    ack_token: str | None
    pending: Pending | None
    session: SessionRef
    workflow: WorkflowRef
    progress: Progress
    warnings: list[Warning]
    preferences: EffectivePreferences
    mode: Literal["guided", "autopilot", "unattended", "custom"] = Field(
        description="The mode these preferences equal, or custom when none does (start_workflow's mode says "
        "which preferences each sets)."
    )
    next_call: NextCall | None
    blocked: Blocked | None = None
    self_contained: bool = Field(
        default=False,
        description="True for an answer a chat may start from (start_workflow, continue_workflow with only a "
        "stateToken): its text gives the goal whole, the workflow's guidance and the call instructions in full. "
        "Other answers refer to them in a line: each is said once, where it is first needed.",
    )
    goal: str | None = Field(
        default=None,
        description="The task's goal (context.goal), whole, with every pending step; the text shows it whole only "
        "where selfContained is true.",
    )
    guidance: list[str] | None = Field(
        default=None,
        description="At start and on a rehydrate: the workflow's rules for every step (its metaGuidance and what "
        "its features add; the advice on delegating only where a step delegates).",
    )
    rehydrated: bool | None = None
    run_context: JsonObject | None = Field(
        default=None,
        description="On a rehydrate: the run's context so far (the values earlier steps set), for a chat that "
        "lost them.",
    )
    recap: Recap | None = None
    downstream_recap: Recap | None = None
    branches: list[Branch] | None = Field(
        default=None, description="The newest branches that grew from this node (at most 10), oldest first."
    )
    branch_count: int | None = Field(default=None, description="How many branches grew from this node in all.")
    fork: str | None = None
    checkpoint: RunCheckpoint | None = None
    references: list[ReferenceView] | None = Field(
        default=None, description="At start: the documents the workflow points to, and where they are."
    )
    branch_tip: BranchTip | None = Field(
        default=None,
        description="On a replay with other output, when the branch that acknowledgement started has moved on "
        "since: where it stands now. The answer recorded then is older; go on from here.",
    )
    delegated_by: DelegatedBy | None = Field(
        default=None,
        description="A delegated run, when opened and when complete: the parent step that handed it out, its "
        "brief, and (once complete) the call that goes back to the waiting parent.",
    )


@dataclass(frozen=True)
class RecordedAnswer:
    """An answer recorded earlier, given again: an ack or a checkpoint sent a second time. It is served
    from the JSON stored then, not parsed back into the models: a replay says what was said, even if
    the shapes have changed since the store recorded it. `warnings_first` are put before its warnings
    (a replay that ignored a different output says so first)."""

    recorded_json: str
    warnings_first: tuple[WarningDict, ...] = ()
    branch_tip: BranchTip | None = None  # the branch has moved on since (a replay with other output)

    def dump(self) -> JsonObject:
        answer: JsonObject = json.loads(self.recorded_json)
        if self.warnings_first:
            answer["warnings"] = [*self.warnings_first, *answer["warnings"]]
        if self.branch_tip is not None:
            answer["branchTip"] = self.branch_tip.dump()
        return answer


ExecutionAnswer = ExecutionResult | RecordedAnswer  # built now, or recorded earlier and given again
