"""The live path's rules, applied to a bundle's events before anything is written.

The payload models (runs/store/events.py) say what type each field has; the services that write events on
the live path guarantee much more, and the projector, the pages, the API and continue_workflow rely
on it: statuses from a closed set that change only as runs/store/status.py allows, preferences from the
closed set of runs/contract/preferences.py, engine states the engine made for the run's own workflow, a node
one deeper than its parent, one answer per ackToken, times that have happened, numbers the columns
can hold. A bundle is an event log someone else wrote, so each of those rules is checked here,
event by event, on a model of the session kept in memory (ids are already known to be well formed
and declared before use: ids.check_references). The model also gives the session's summary, which
must be the bundle's `session` section.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import ConfigDict, ValidationError

from exports.bundle import document as fmt
from exports.bundle.problems import BundleProblem, pointer_to
from exports.bundle.schemas import first_error
from runs.contract.base import Shape
from runs.contract.inputs import MAX_NOTES_BYTES, MAX_OUTPUT_BYTES, MAX_RUN_CONTEXT_BYTES, json_size
from runs.contract.preferences import CHOICES
from runs.models import AckOutcome, RunStatus, SessionKind
from runs.store.projections import session_status
from runs.store.status import IllegalTransition, transition
from workflows_app import engine
from workflows_app.engine.contracts import Contract, known_contracts
from workflows_app.engine.model import CompiledWorkflow
from workflows_app.engine.tree import top_steps

# Times: the store's clocks may differ a little from this one, but an event cannot have happened
# later than that; nor before WorkRail existed (a date in year 1 breaks date arithmetic).
CLOCK_SKEW = timedelta(minutes=5)
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
MAX_COUNTER = 2**31 - 1  # PositiveIntegerField: depth, notesOnPath, delegationIndex
# A node stores the run's whole context: the live path refuses a call that takes it past
# MAX_RUN_CONTEXT_BYTES; a start's goal (up to 1,000 characters) comes on top of its context.
MAX_CONTEXT_BYTES = MAX_RUN_CONTEXT_BYTES + 8 * 1024
MAX_CONTEXT_DEPTH = 64  # as runs.contract.inputs refuses deeper contexts
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
SOURCES = ("agent", "dashboard")


class _Synthesized(Shape):
    """The parts of a run's synthesis (runs/services/synthesis.synthesize) its readers rely on, each of
    its type; fields a later version may add are let through."""

    model_config = ConfigDict(extra="allow", strict=True)


class _SynthesisStep(_Synthesized):
    step_id: str
    title: str
    kind: str
    notes_markdown: str
    artifacts: list[dict[str, Any]]


class _SynthesisArtifact(_Synthesized):
    kind: str
    step_id: str
    final: bool
    data: dict[str, Any]


class _Synthesis(_Synthesized):
    run_id: str
    workflow_id: str
    workflow_hash: str
    completed_at: str
    steps: list[_SynthesisStep]
    artifacts: list[_SynthesisArtifact]
    notes_markdown: str


@dataclass
class _Run:
    compiled: CompiledWorkflow
    workflow_id: str
    top_level: bool
    at: datetime
    status: str = RunStatus.IN_PROGRESS.value
    nodes: int = 0
    branches: int = 1  # 1 + the forks, as Run.branch_count


@dataclass
class _Node:
    run_id: str
    parent: int | None
    depth: int
    notes_on_path: int
    complete: bool
    children: int = 0
    finalized: bool = False
    checkpoints: set[str] = field(default_factory=set)


@dataclass
class _Session:
    created: dict[str, Any] = field(default_factory=dict)
    preferences: dict[str, str] = field(default_factory=dict)
    git_branch: str = ""
    workspace_path: str = ""
    checkpoints: set[str] = field(default_factory=set)  # digests of checkpoints without a node


class Rules:
    """Applies the rules to events in order (`check`), then gives the session's summary (`summary`)."""

    def __init__(self, workflows: dict[str, tuple[str, CompiledWorkflow]], now: datetime) -> None:
        self.workflows = workflows  # by hash: (workflow id, compiled form as it will be stored)
        self.latest = now + CLOCK_SKEW
        self.session = _Session()
        self.runs: dict[str, _Run] = {}
        self.nodes: dict[int, _Node] = {}
        self.attempts: dict[int, tuple[int, bool]] = {}  # attempt id: (its node, whether it was answered)
        self.first_at = self.last_at = ""
        self._index = 0
        self._seq = 0
        self._known: dict[int, dict[str, Contract]] = {}  # by id() of a compiled workflow held in `workflows`

    def check(self, events: list[dict[str, Any]]) -> None:
        for index, event in enumerate(events):
            self._index, self._seq = index, event["seq"]
            at = fmt.parse_timestamp(event["at"])
            self._check_time(at, event["at"])
            getattr(self, "_" + event["kind"])(event["data"], at)
        if events:
            self.first_at, self.last_at = events[0]["at"], events[-1]["at"]
        for run_id, run in self.runs.items():
            if run.nodes == 0:
                raise BundleProblem(f"run {run_id} has no node", "/events")

    def summary(self) -> dict[str, Any]:
        """The session section these events project to (exports/bundle/export.session_section)."""
        top = sorted(
            ((run.at, index, run) for index, run in enumerate(self.runs.values()) if run.top_level),
            key=lambda item: (item[0], item[1]),
        )
        created = self.session.created
        return {
            "sessionId": created["sessionId"],
            "sessionKey": created["sessionKey"],
            "title": created["title"],
            "kind": created["kind"],
            "tags": list(created["tags"]),
            "preferences": dict(self.session.preferences),
            "status": session_status(created["kind"], [run.status for _, _, run in top]).value,
            "workflowIds": " ".join(dict.fromkeys(run.workflow_id for _, _, run in top))[:1000].split(),
            "runCount": len(top),
            "branchCount": sum(run.branches for _, _, run in top),
            "gitBranch": self.session.git_branch,
            "workspacePath": self.session.workspace_path,
            "createdAt": self.first_at,
            "lastActivityAt": self.last_at,
        }

    # --- helpers -----------------------------------------------------------------------------------

    def _where(self, *parts: str | int) -> str:
        return pointer_to("events", self._index, "data", *parts)

    def _refuse(self, why: str, *parts: str | int) -> BundleProblem:
        return BundleProblem(f"event {self._seq}: {why}", self._where(*parts))

    def _check_time(self, moment: datetime, at: str) -> None:
        if not EARLIEST <= moment <= self.latest:
            raise BundleProblem(
                f"event {self._seq} happened at {at}, "
                + ("in the future" if moment > self.latest else "before any WorkRail store existed"),
                pointer_to("events", self._index, "at"),
            )

    def _text(self, data: dict[str, Any], name: str, limit: int, *, optional: bool = False) -> None:
        value = data.get(name)
        if value is None and optional:
            return
        if not isinstance(value, str) or len(value) > limit:
            raise self._refuse(f"{name} must be text of at most {limit} characters", name)

    def _counter(self, data: dict[str, Any], name: str) -> int:
        value = data.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNTER:
            raise self._refuse(f"{name} must be an integer from 0 to {MAX_COUNTER}", name)
        return value

    def _preferences(self, value: Any, name: str) -> dict[str, str]:
        """Preferences as the live path writes them: every key of the closed set, each a known choice."""
        if not isinstance(value, dict) or set(value) != set(CHOICES):
            raise self._refuse(f"{name} must set exactly {', '.join(sorted(CHOICES))}", name)
        for key, choices in CHOICES.items():
            if value[key] not in choices:
                raise self._refuse(f"{name}.{key} must be one of {', '.join(choices)}", name, key)
        return dict(value)

    def _node_of(self, data: dict[str, Any], name: str = "nodeId") -> _Node:
        """The node `name` names, which must belong to the event's run."""
        node = self.nodes[data[name]]
        if node.run_id != data.get("runId"):
            raise self._refuse(f"{name} names a node of another run", name)
        return node

    def _child_of(self, data: dict[str, Any]) -> None:
        """childNodeId, when set, names a node created from nodeId."""
        child = data.get("childNodeId")
        if child is not None and self._node_of(data, "childNodeId").parent != data["nodeId"]:
            raise self._refuse("childNodeId names a node that is not a child of nodeId", "childNodeId")

    def _recorded_work(self, data: dict[str, Any]) -> None:
        """Notes and artifacts as StepOutput accepts them, each artifact of a kind its run knows and
        matching that kind's contract, as the engine judges artifacts (engine/output.artifact_issues),
        but matched in linear time (exports/bundle/schemas.py)."""
        notes, artifacts = data.get("notesMarkdown"), data.get("artifacts")
        if not isinstance(notes, str) or len(notes.encode()) > MAX_NOTES_BYTES:
            raise self._refuse(f"notesMarkdown must be text of at most {MAX_NOTES_BYTES} bytes", "notesMarkdown")
        if not isinstance(artifacts, list):
            raise self._refuse("artifacts must be a list", "artifacts")
        for position, artifact in enumerate(artifacts):
            kind = artifact.get("kind") if isinstance(artifact, dict) else None
            if not isinstance(kind, str) or not 1 <= len(kind) <= 200:
                raise self._refuse(
                    "an artifact must be an object with a kind of 1 to 200 characters", "artifacts", position
                )
        if json_size({"notesMarkdown": notes, "artifacts": artifacts}) > MAX_OUTPUT_BYTES:
            raise self._refuse(f"the output is larger than {MAX_OUTPUT_BYTES} bytes", "artifacts")
        run = self.runs.get(data["runId"]) if data.get("runId") is not None else None
        known = self._contracts(run.compiled if run is not None else None)
        for position, artifact in enumerate(artifacts):
            contract = known.get(artifact["kind"])
            if contract is None:
                raise self._refuse("an artifact has a kind no contract of its run defines", "artifacts", position)
            problem = first_error(contract.schema or {}, artifact)
            if problem is not None:
                raise self._refuse(
                    f"an artifact does not match contract {contract.contract_ref}: {problem.message[:200]}",
                    "artifacts",
                    position,
                    *problem.absolute_path,
                )

    def _contracts(self, compiled: CompiledWorkflow | None) -> dict[str, Contract]:
        """The artifact kinds a run of `compiled` may record (the engine's rule: the registry's and the
        workflow's own contracts), worked out once per workflow."""
        key = id(compiled)
        if key not in self._known:
            self._known[key] = known_contracts(top_steps(compiled) if compiled is not None else [])
        return self._known[key]

    def _answer(self, data: dict[str, Any]) -> None:
        """The recorded answer: the exact JSON text of an object, replayed as it is."""
        if not isinstance(data.get("outputDigest"), str) or not DIGEST.fullmatch(data["outputDigest"]):
            raise self._refuse("outputDigest must be sha256: and 64 hex digits", "outputDigest")
        try:
            answer = json.loads(data["response"])
        except (TypeError, ValueError):
            answer = None
        if not isinstance(answer, dict):
            raise self._refuse("response must be the JSON text of an object", "response")

    # --- one method per event kind ---------------------------------------------------------------------

    def _session_created(self, data: dict[str, Any], at: datetime) -> None:
        self._text(data, "sessionKey", 200, optional=True)
        self._text(data, "title", 200)
        if data.get("kind") not in SessionKind.values:
            raise self._refuse(f"kind must be one of {', '.join(SessionKind.values)}", "kind")
        tags = data.get("tags")
        if not isinstance(tags, list) or len(tags) > 20 or not all(isinstance(t, str) and len(t) <= 60 for t in tags):
            raise self._refuse("tags must be at most 20 texts of at most 60 characters", "tags")
        self.session.preferences = self._preferences(data.get("preferences"), "preferences")
        self.session.created = data

    def _run_started(self, data: dict[str, Any], at: datetime) -> None:
        pinned = self.workflows.get(data["workflowHash"])
        if pinned is None:
            raise self._refuse("workflowHash names no workflow of the bundle", "workflowHash")
        workflow_id, compiled = pinned
        if data["workflowId"] != workflow_id:
            raise self._refuse("workflowId is not the id of the workflow its hash names", "workflowId")
        if data.get("workflowName") not in (None, compiled.get("name")):
            raise self._refuse("workflowName is not the name of its workflow", "workflowName")
        self._text(data, "sourcePath", 1024)
        self._text(data, "sourceStat", 64)
        parent_run, parent_node = data.get("parentRunId"), data.get("parentNodeId")
        # A parallel step's delegation names its index among the step's delegations; a run the agent linked
        # with start_workflow's parentStateToken names its parent run and node only.
        if (parent_run is None) != (parent_node is None) or (
            parent_run is None and data.get("delegationIndex") is not None
        ):
            raise self._refuse(
                "a delegated run names its parent run and parent node together (and a delegationIndex only with them)",
                "parentRunId",
            )
        if parent_run is not None:
            if data.get("delegationIndex") is not None:
                self._counter(data, "delegationIndex")
            if self.nodes[data["parentNodeId"]].run_id != parent_run:
                raise self._refuse("parentNodeId names a node of another run than parentRunId", "parentNodeId")
        self.runs[data["runId"]] = _Run(compiled, workflow_id, top_level=parent_run is None, at=at)

    def _node_created(self, data: dict[str, Any], at: datetime) -> None:
        run = self.runs[data["runId"]]
        depth, notes = self._counter(data, "depth"), self._counter(data, "notesOnPath")
        parent_id = data.get("parentNodeId")
        if parent_id is None:
            if run.nodes or depth or notes:
                raise self._refuse("a node without a parent must be its run's first node, at depth 0", "parentNodeId")
        else:
            parent = self.nodes[parent_id]
            if depth != parent.depth + 1:
                raise self._refuse("depth must be one more than its parent's", "depth")
            if notes - parent.notes_on_path not in (0, 1):
                raise self._refuse("notesOnPath must be its parent's, or one more", "notesOnPath")
            parent.children += 1
            if parent.children >= 2:  # every child after the first starts a branch, as the projector counts
                run.branches += 1
        complete = self._engine_state(data, run.compiled)
        self._preferences(data.get("preferences"), "preferences")
        run.nodes += 1
        self.nodes[data["nodeId"]] = _Node(data["runId"], parent_id, depth, notes, complete)

    def _engine_state(self, data: dict[str, Any], compiled: CompiledWorkflow) -> bool:
        """The state must be one the engine made for this workflow: it loads it, renders its pending
        step, its expected context and output schema (what every page and continue_workflow do)."""
        state = data["engineState"]
        context = state.get("context")
        if isinstance(context, dict) and (
            json_size(context) > MAX_CONTEXT_BYTES or _depth(context) > MAX_CONTEXT_DEPTH
        ):
            raise self._refuse(
                f"the run's context is over {MAX_CONTEXT_BYTES} bytes or nested over {MAX_CONTEXT_DEPTH} levels",
                "engineState",
                "context",
            )
        try:
            pending = engine.pending_view(compiled, state)
            engine.expected_context(compiled, state)
            engine.output_schema(compiled, state)
        except Exception as exc:  # anything the engine raises: a state it did not make for this workflow
            raise self._refuse(
                f"its engine state does not fit its workflow ({type(exc).__name__}: {exc})"[:400], "engineState"
            ) from None
        complete = pending is None
        if data["isComplete"] is not complete or state.get("complete") is not complete:
            raise self._refuse("isComplete disagrees with its engine state", "isComplete")
        expected_step = None if pending is None else state["pending"]["stepId"]
        if data["pendingStepId"] != expected_step:
            raise self._refuse("pendingStepId is not its engine state's pending step", "pendingStepId")
        return complete

    def _attempt_issued(self, data: dict[str, Any], at: datetime) -> None:
        if self._node_of(data).complete:
            raise self._refuse("an ackToken is issued for a node whose run is complete there", "nodeId")
        self.attempts[data["attemptId"]] = (data["nodeId"], False)

    def _step_acked(self, data: dict[str, Any], at: datetime) -> None:
        self._node_of(data)
        attempt_node, answered = self.attempts[data["attemptId"]]
        if attempt_node != data["nodeId"]:
            raise self._refuse("attemptId was issued for another node", "attemptId")
        if answered:
            raise self._refuse("attemptId is answered a second time (an ackToken is answered once)", "attemptId")
        self.attempts[data["attemptId"]] = (attempt_node, True)
        if data.get("outcome") not in AckOutcome.values:
            raise self._refuse(f"outcome must be one of {', '.join(AckOutcome.values)}", "outcome")
        if (data.get("childNodeId") is None) != (data["outcome"] == AckOutcome.BLOCKED):
            raise self._refuse("a blocked answer has no child node, and any other has one", "childNodeId")
        if data.get("refused") is not None and data["outcome"] != AckOutcome.BLOCKED:
            raise self._refuse("only a blocked answer keeps what the agent sent", "refused")
        self._child_of(data)
        self._answer(data)

    def _output_recorded(self, data: dict[str, Any], at: datetime) -> None:
        self._node_of(data)
        if data.get("childNodeId") is None:
            raise self._refuse("an output leads to a child node", "childNodeId")
        self._child_of(data)
        self._text(data, "stepId", 200)
        self._text(data, "stepTitle", 200)
        self._recorded_work(data)

    def _run_status_changed(self, data: dict[str, Any], at: datetime) -> None:
        self._status_change(data, completes=False)

    def _run_completed(self, data: dict[str, Any], at: datetime) -> None:
        self._status_change(data, completes=True)

    def _status_change(self, data: dict[str, Any], *, completes: bool) -> None:
        """A change runs/store/status.py allows, from the run's status, recorded as run_completed exactly when
        it completes the run (runs/services/nodes.set_status)."""
        run = self.runs[data["runId"]]
        if data.get("from") != run.status:
            raise self._refuse(f"from is {str(data.get('from'))[:40]!r}, but the run is {run.status}", "from")
        try:
            changed = transition(run.status, data["to"])
        except (ValueError, IllegalTransition):  # ValueError: not a run status at all
            changed = None
        if changed is None or (changed == RunStatus.COMPLETE) != completes:
            raise self._refuse(f"a run cannot go from {run.status} to {str(data['to'])[:40]!r} this way", "to")
        run.status = changed.value

    def _warning_recorded(self, data: dict[str, Any], at: datetime) -> None:
        self._node_of(data)
        self._text(data, "code", 100)
        self._text(data, "onceKey", 200, optional=True)

    def _checkpoint_recorded(self, data: dict[str, Any], at: datetime) -> None:
        self._answer(data)
        self._recorded_work(data)
        digest = data["outputDigest"]
        if data.get("nodeId") is None:
            if data.get("runId") is not None or data.get("childNodeId") is not None:
                raise self._refuse("a checkpoint without a node names no run and no child", "nodeId")
            recorded = self.session.checkpoints
        else:
            node = self._node_of(data)
            self._child_of(data)
            recorded = node.checkpoints
        if digest in recorded:
            raise self._refuse("the same checkpoint is recorded twice at one place", "outputDigest")
        recorded.add(digest)

    def _preferences_changed(self, data: dict[str, Any], at: datetime) -> None:
        preferences = self._preferences(data.get("preferences"), "preferences")
        self._preferences(data.get("previous"), "previous")
        if data.get("source") not in SOURCES:
            raise self._refuse(f"source must be one of {', '.join(SOURCES)}", "source")
        if data.get("nodeId") is not None:
            self._node_of(data)
        elif data.get("runId") is not None:
            raise self._refuse("a change for a run names the node it applies to", "nodeId")
        else:
            self.session.preferences = preferences

    def _observation_recorded(self, data: dict[str, Any], at: datetime) -> None:
        for name, limit in (("gitBranch", 255), ("gitHeadSha", 64), ("workspacePath", 1024)):
            self._text(data, name, limit, optional=True)
        self.session.git_branch = data.get("gitBranch") or ""
        self.session.workspace_path = data.get("workspacePath") or ""

    def _gap_recorded(self, data: dict[str, Any], at: datetime) -> None:
        self._node_of(data)
        self._text(data, "stepId", 200)
        self._text(data, "reason", 40)

    def _operator_forked(self, data: dict[str, Any], at: datetime) -> None:
        """A branch a developer started (runs/execution/operator_fork.py): the node it names is a child of
        nodeId, made just for it (no step acknowledged into it, nothing recorded on the way)."""
        node = self._node_of(data)
        self._child_of(data)
        child = self._node_of(data, "childNodeId")
        if node.complete or child.complete or child.notes_on_path != node.notes_on_path:
            raise self._refuse("a fork starts from a pending step, at the same step, with no notes added", "nodeId")
        self._text(data, "reason", 1000)
        if data.get("via") not in ("dashboard", "api"):
            raise self._refuse("via must be dashboard or api", "via")
        removed = data.get("contextRemoved")
        if not isinstance(removed, list) or not all(isinstance(key, str) and len(key) <= 200 for key in removed):
            raise self._refuse("contextRemoved must be a list of keys", "contextRemoved")
        if json_size(data.get("contextSet")) > MAX_CONTEXT_BYTES:
            raise self._refuse(f"contextSet is larger than {MAX_CONTEXT_BYTES} bytes", "contextSet")

    def _run_finalized(self, data: dict[str, Any], at: datetime) -> None:
        node = self._node_of(data)
        if not node.complete or node.finalized:
            raise self._refuse("a synthesis belongs to a completed node, once", "nodeId")
        node.finalized = True
        try:
            synthesis = _Synthesis.model_validate(data["synthesis"])
            datetime.fromisoformat(synthesis.completed_at)
        except (ValidationError, ValueError) as exc:
            raise self._refuse(
                f"its synthesis is not one WorkRail makes ({str(exc).splitlines()[0][:200]})", "synthesis"
            ) from None
        if synthesis.run_id != data["runId"]:
            raise self._refuse("its synthesis is of another run", "synthesis", "runId")


def _depth(value: Any) -> int:
    """How deep arrays and objects are nested in `value`, walked without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest
