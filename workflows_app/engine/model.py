"""The shapes of the engine's own data: the compiled workflow, the engine state and the pending view.

All three are plain JSON on purpose. A compiled workflow is hashed (its hash is the workflow's
identity, see hashing.py), pinned in the store and carried in bundles; an engine state is stored
with every node of a run. Their bytes must not depend on Python classes, so they are typed here as
TypedDicts: mypy sees every key, and at run time they stay the dicts and lists `json` reads and
writes. Nothing here is a runtime class, and importing this module loads only `jsontypes` besides.

What stays `JsonObject` is what users shape: the run's context and its values, artifacts, JSON
Schemas, stored event payloads, error details.

Three families, one section each below:
- the compiled workflow (`CompiledWorkflow`) and its steps (`CompiledStep`, a union told apart
  by `kind`), with the conditions, loops, output contracts and the rest a step carries;
- the engine state (`EngineState`), the only thing a run needs besides the compiled workflow;
- what the engine hands out: the pending step (`PendingView`) and the step just done
  (`CompletedStep`), with the issues and warnings of an advance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

from workflows_app.engine.jsontypes import JsonObject

if TYPE_CHECKING:  # typing.TypeIs is Python 3.13's; mypy knows typing_extensions', nothing loads it at run time
    from typing_extensions import TypeIs

# --------------------------------------------------------------------------------------------------
# Conditions (workflows_app/conditions.py evaluates them; the format's condition language)
# --------------------------------------------------------------------------------------------------

# `and`, `or`, `not` and `in` are Python keywords, hence the functional form. An object holds any
# number of operators, all of which must hold; `{}` always holds. The compared values are the
# author's JSON (Any). `var` names a context variable (dots reach into objects).
Condition = TypedDict(
    "Condition",
    {
        "var": str,
        "equals": Any,
        "not_equals": Any,
        "gt": Any,
        "gte": Any,
        "lt": Any,
        "lte": Any,
        "contains": Any,
        "startsWith": Any,
        "endsWith": Any,
        "matches": Any,
        "in": Any,
        "and": list["Condition"],
        "or": list["Condition"],
        "not": "Condition",
    },
    total=False,
)


class ConfirmationGate(TypedDict):
    """The object form of `requireConfirmation`: a gate of a kind, required unless `condition` is false."""

    kind: Literal["coordinator_eval", "human_approval"]
    condition: NotRequired[Condition]


type ConfirmationRule = bool | ConfirmationGate | Condition
"""`requireConfirmation`: always/never, a gate, or a condition on the run's context."""


# --------------------------------------------------------------------------------------------------
# Output contracts (compiler.resolve_contract writes them, engine/contracts.py reads them)
# --------------------------------------------------------------------------------------------------


class OutputContract(TypedDict):
    """A step's output contract, resolved at compile time into the step (so into the workflow's hash)."""

    contractRef: str  # the registry's name (wr.contracts.*) or the author's, for an inline contract
    required: bool  # whether the step needs an artifact of the contract's kind to be done
    artifactKind: str  # the `kind` an artifact must carry to be checked against `schema`
    schema: JsonObject | None  # None for a contract nobody defines: its artifacts are accepted unchecked
    example: JsonObject  # an artifact that passes, shown to the agent
    unresolved: NotRequired[Literal[True]]  # the contract is one this build does not know (see leftOut)


class ContractView(TypedDict):
    """`pending.outputContract`: the contract as the agent is shown it (engine/contracts.Contract.view)."""

    contractRef: str
    required: bool
    artifactKind: str | None
    schema: JsonObject | None
    example: Any


# --------------------------------------------------------------------------------------------------
# Loops (engine/loops.py reads them into a LoopSpec with every default applied)
# --------------------------------------------------------------------------------------------------


class ArtifactConditionSource(TypedDict):
    """A while/until loop steered by the agent's wr.loop_control decisions."""

    kind: Literal["artifact_contract"]
    contractRef: str  # the contract the decisions follow (wr.contracts.loop_control)
    loopId: NotRequired[str]  # the id decisions name (default: the loop step's id)


class ContextConditionSource(TypedDict):
    """A while/until loop steered by a condition on the context, as `loop.condition` would hold it."""

    kind: Literal["context_variable"]
    condition: Condition


type ConditionSource = ArtifactConditionSource | ContextConditionSource
"""The explicit form of a while/until loop's condition."""


class LoopConfig(TypedDict, total=False):
    """A loop step's `loop`. The type defaults to while; the variable names to currentIteration,
    currentItem and currentIndex; maxIterations to 100 (capped at 1000)."""

    type: Literal["while", "until", "for", "forEach"]
    condition: Condition  # while / until: checked before each iteration
    conditionSource: ConditionSource
    items: str  # forEach: the context variable holding the list (snapshotted at loop entry)
    count: int | str  # for: a number, or the context variable holding one
    maxIterations: int
    iterationVar: str
    itemVar: str
    indexVar: str


# --------------------------------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------------------------------


class Origin(TypedDict):
    """Where a step expanded from a routine came from: the template and the calling step's id."""

    templateId: str
    callStepId: str


class VirtualOf(TypedDict):
    """A step the compiler added after an authored one (its synthesis, audit or verification)."""

    stepId: str
    kind: Literal["synthesis", "audit", "verify"]


class PromptFragment(TypedDict):
    """Text appended to a step's prompt at render time when `when` holds."""

    id: NotRequired[str]
    when: NotRequired[Condition]
    text: str


class Delegation(TypedDict):
    """One delegation of a parallel step: a workflow or routine run on its own."""

    workflowId: str
    goal: NotRequired[str]
    runCondition: NotRequired[Condition]
    contextMapping: NotRequired[dict[str, str]]  # parent context key -> child context key
    args: NotRequired[JsonObject]  # fixed values of the child's context, winning over the mapping
    modelTier: NotRequired[str]
    allowedTools: NotRequired[list[str]]


class AssessmentTrigger(TypedDict):
    anyEqualsLevel: str
    forAssessment: NotRequired[str]  # the assessment whose rating triggers it; any when absent


class AssessmentEffect(TypedDict):
    kind: str
    guidance: str


class AssessmentConsequence(TypedDict):
    """A follow-up a step asks for when an assessment it names is rated at a given level."""

    when: AssessmentTrigger
    effect: AssessmentEffect


class AssessmentDimension(TypedDict):
    id: str
    purpose: NotRequired[str]
    levels: list[str]  # the levels a rating may take, as the author orders them
    required: NotRequired[bool]  # default true


class AssessmentDefinition(TypedDict):
    """One of the workflow's `assessments`: what a step naming it asks the agent to rate."""

    id: str
    purpose: NotRequired[str]
    dimensions: list[AssessmentDimension]


class UserDependency(TypedDict):
    """What a step needs that only the user can give; met when the context holds `contextKey`."""

    reason: str  # schema.USER_DEPENDENCY_REASONS: document, secret, decision, approval, access, information
    description: str
    contextKey: str


class DeclaredAsks(TypedDict, total=False):
    """What a step's `promptBlocks.outputRequired` declares it asks the agent to set (compiler.declared_asks):
    the context variables of its `context.<name>` keys, and whether another key asks for something written."""

    context: list[str]
    notes: Literal[True]


class _StepBase(TypedDict):
    """What every compiled step has, whatever its kind."""

    id: str  # unique in the workflow; a routine's steps are prefixed with the calling step's id
    title: NotRequired[str]
    runCondition: NotRequired[Condition]  # the step is skipped when this is false
    requireConfirmation: NotRequired[ConfirmationRule]
    notesOptional: NotRequired[bool]  # true: the step is done without output.notesMarkdown
    origin: NotRequired[Origin]


class _AgentStepBase(_StepBase):
    """What a step handed to the agent has (kind step or parallel). The compiler keeps every authored
    field it does not consume (compiler.CONSUMED_STEP_FIELDS), so the optional ones are those of the
    format; the rendered prompt is always there."""

    prompt: str  # rendered by the compiler: blocks, guidance and functions included, templates kept
    agentRole: NotRequired[str]
    modelTier: NotRequired[str]
    askForFiles: NotRequired[bool]
    hasValidation: NotRequired[bool]
    validationCriteria: NotRequired[Any]  # a rule or a composition (engine/validation.py)
    outputContract: NotRequired[OutputContract]
    assessmentRefs: NotRequired[list[str]]  # ids of the workflow's `assessments` the agent must rate
    assessmentConsequences: NotRequired[list[AssessmentConsequence]]
    promptFragments: NotRequired[list[PromptFragment]]
    userDependencies: NotRequired[list[UserDependency]]
    virtualOf: NotRequired[VirtualOf]
    declaredAsks: NotRequired[DeclaredAsks]  # what promptBlocks.outputRequired declares (absent in older pins)


class TaskStep(_AgentStepBase):
    """An ordinary step: the agent does what the prompt says and acknowledges it."""

    kind: Literal["step"]


class ParallelStep(_AgentStepBase):
    """A step that hands work to other workflows' runs (a parallel step, or a delegated audit)."""

    kind: Literal["parallel"]
    parallelDelegations: list[Delegation]


class LoopStep(_StepBase):
    """A loop, its body inline (a body given by reference is inlined by the compiler)."""

    kind: Literal["loop"]
    loop: LoopConfig
    body: list[CompiledStep]


type AgentStep = TaskStep | ParallelStep
"""A step the agent is given: never a loop."""

type CompiledStep = TaskStep | ParallelStep | LoopStep
"""One compiled step, told apart by `kind`."""


def is_loop(step: CompiledStep) -> TypeIs[LoopStep]:
    """Whether `step` is a loop (mypy narrows both branches; `.get` keeps hand-built steps readable)."""
    return step.get("kind") == "loop"


def delegations_of(step: CompiledStep) -> list[Delegation]:
    """A step's `parallelDelegations` (only a parallel step has any)."""
    found = step.get("parallelDelegations")
    return found if isinstance(found, list) else []


def user_dependencies_of(step: CompiledStep | None) -> list[UserDependency]:
    """What a step declares only the user can give (a loop, or no step, declares nothing)."""
    found = step.get("userDependencies") if step is not None else None
    return found if isinstance(found, list) else []


def is_parallel(step: CompiledStep) -> TypeIs[ParallelStep]:
    """Whether `step` hands work out to other runs (a parallel step, or a delegated audit)."""
    return step.get("kind") == "parallel"


# --------------------------------------------------------------------------------------------------
# The compiled workflow
# --------------------------------------------------------------------------------------------------


type LeftOutKind = Literal["function", "ref", "feature", "contract"]


class LeftOut(TypedDict):
    """Something the workflow names that this build does not have, left out at compile time
    (structure.unresolved_references finds them)."""

    kind: LeftOutKind
    name: str
    pointer: str  # a JSON pointer into the workflow file (the call site, for a routine's)
    origin: NotRequired[JsonObject]  # in a routine: {"templateId", "workflowId", "pointer"} inside it


class Binding(TypedDict):
    """A binding slot in effect: the routine or workflow id put in place of its token."""

    value: str
    source: Literal["project", "default"]


class WorkflowReference(TypedDict):
    """A file the workflow points the agent to (catalog.resolved_references locates it)."""

    id: str
    title: str
    source: str  # a path: relative to the project (workspace) or to the workflow file (package)
    purpose: str
    authoritative: NotRequired[bool]
    resolveFrom: NotRequired[Literal["workspace", "package"]]


class ResolvedReference(TypedDict):
    """A `references` entry with where it resolves to in this checkout."""

    id: str
    title: str
    source: str
    purpose: str
    authoritative: bool
    resolveFrom: str
    path: str
    found: bool  # whether a file is there


class ExtensionPoint(TypedDict):
    """A binding slot the workflow declares: `{{wr.bindings.<slotId>}}` tokens take its value."""

    slotId: str
    purpose: str
    default: str  # the routine or workflow id bound unless the project's bindings.json says otherwise
    acceptedKinds: NotRequired[list[str]]


class CompiledWorkflow(TypedDict):
    """A workflow as runs execute it (compiler.compile_workflow); its hash is its identity.

    The workflow-level fields an author writes for the agent (about, preconditions, metaGuidance,
    assessments, ...) are carried as written (compiler.CARRIED_FIELDS)."""

    compilerVersion: int
    id: str
    kind: str  # workflow | routine
    name: str
    description: str
    version: str
    steps: list[CompiledStep]
    about: NotRequired[str]
    preconditions: NotRequired[list[str]]
    clarificationPrompts: NotRequired[list[str]]
    metaGuidance: NotRequired[list[str]]  # features' guidance appended
    recommendedPreferences: NotRequired[JsonObject]
    modelTier: NotRequired[str]
    assessments: NotRequired[list[AssessmentDefinition]]
    references: NotRequired[list[WorkflowReference]]
    extensionPoints: NotRequired[list[ExtensionPoint]]
    metricsProfile: NotRequired[str]
    examples: NotRequired[list[str]]
    features: NotRequired[list[str]]  # the wr.features.* this build applies
    leftOut: NotRequired[list[LeftOut]]
    bindings: NotRequired[dict[str, Binding]]  # slot id -> binding in effect (sorted by slot)


# --------------------------------------------------------------------------------------------------
# The engine state (engine/state.py: Machine.to_json writes it, Machine.from_json checks it)
# --------------------------------------------------------------------------------------------------


class LoopFrame(TypedDict):
    """One active loop, outermost first in `cursor.loops`."""

    loopId: str  # the loop step's id
    iteration: int  # 1-based
    items: NotRequired[list[Any]]  # forEach: the list as it was at loop entry
    count: NotRequired[int]  # for: the iteration count resolved at loop entry
    since: NotRequired[int]  # decision-driven: completedSteps ordinal of this iteration's first step


class Cursor(TypedDict):
    position: list[int]  # top-level index, then one body index per active loop; [len(steps)] at the end
    loops: list[LoopFrame]  # one frame per body index of `position`


class PendingRef(TypedDict):
    """Which step the state waits for."""

    stepId: str
    stepInstance: str  # unique in a run: the (loop#iteration) chain, then the step id


class LoopDecision(TypedDict):
    """A wr.loop_control decision not yet consumed."""

    decision: Literal["continue", "stop"]
    at: int  # completedSteps ordinal of the step that sent it


class EngineState(TypedDict):
    """Everything needed to continue a run besides the compiled workflow (format: engine/state.py)."""

    version: int
    workflowId: str
    complete: bool
    context: JsonObject  # the run's external context, shallow-merged from every start and advance
    cursor: Cursor
    pending: PendingRef | None  # None when complete
    loopDecisions: dict[str, LoopDecision]  # by the loopId they target ("*": any loop)
    completedSteps: int


# --------------------------------------------------------------------------------------------------
# What the engine hands out
# --------------------------------------------------------------------------------------------------


class LoopView(TypedDict):
    """`pending.loop` / `completed.loop`: the innermost active loop."""

    loopId: str  # the decisions' loopId where the workflow declares one, else the loop step's id
    iteration: int
    maxIterations: int
    item: NotRequired[Any]  # forEach: this iteration's item
    index: NotRequired[int]  # forEach: its 0-based index
    decisionDue: NotRequired[bool]  # decision-driven loops: whether this step must send the decision


class DimensionView(TypedDict):
    id: str
    purpose: str
    levels: list[str]
    required: bool


class FollowUpView(TypedDict):
    level: str
    guidance: str


class AssessmentView(TypedDict):
    """One assessment the pending step asks the agent to rate."""

    assessmentId: str
    purpose: str
    dimensions: list[DimensionView]
    followUpWhen: list[FollowUpView]  # the levels that keep the step pending, and what to do then


class DelegationView(TypedDict):
    """One delegation of the pending parallel step, resolved against the run's context."""

    index: int  # its place in the step's parallelDelegations
    workflowId: str
    goal: str
    runs: bool  # its runCondition held
    context: JsonObject  # the context its run starts from


class PendingView(TypedDict):
    """The step the agent must do now, rendered against the run's context (engine/view.py)."""

    stepId: str
    title: str
    prompt: str
    agentRole: str | None
    requireConfirmation: bool
    notesRequired: bool
    outputContract: ContractView | None
    loop: LoopView | None
    stepInstance: str
    assessments: NotRequired[list[AssessmentView]]
    delegations: NotRequired[list[DelegationView]]


class CompletedStep(TypedDict):
    """The step an advance acknowledged."""

    stepId: str
    title: str
    loop: LoopView | None


class EngineIssue(TypedDict):
    """Why an advance was refused (codes.IssueCode)."""

    code: str
    message: str
    pointer: NotRequired[str]  # a JSON pointer into the output the agent sent


class EngineWarning(TypedDict):
    """Something the engine did that the agent might not expect (codes.WarningCode)."""

    code: str
    message: str
