"""Read-only views behind the MCP resources (runs/mcp/resources.py) of recorded work. A resource
answers JSON text, and these views pass recaps, syntheses and artifacts on as the JSON they are, so
each answer is built as its JSON (the TypedDicts below name its keys). (The catalog resources are the
catalog use cases themselves: runs/mcp/services.py.)
An unknown run or session id is a WorkRailError (NOT_FOUND); an unknown
workflow id is WORKFLOW_NOT_FOUND, exactly as inspect_workflow says it.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from django.conf import settings

from runs.contract.dashboard import BranchOutcomeEntry
from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Checkpoint, Node, Output, Run, Session
from runs.readmodels import branches, outcomes, recap, versions
from runs.readmodels.shapes import Recap, RecapEntry, Synthesis
from runs.store import ownership, tokens
from runs.store.pinned import compiled_workflow
from runs.store.tokens import TokenKind
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.sources import worked_through

STEP: Literal["step"] = "step"
CHECKPOINT: Literal["checkpoint"] = "checkpoint"


class RunTip(TypedDict):
    pendingStepId: str | None
    isComplete: bool
    depth: int
    createdAt: str


class RunGap(TypedDict):
    """A gap the run went past (a step it could not do as asked)."""

    stepId: str
    reason: str
    description: str
    recordedAt: str


class RunAnswer(TypedDict):
    runId: str
    status: str  # the run's stored status (it follows the latest answer); statusSummary follows every branch
    statusSummary: str
    workflowId: str
    workflowHash: str
    sessionId: str
    sessionKey: str | None
    createdAt: str
    updatedAt: str
    tip: RunTip | None
    recap: Recap
    branchCount: int
    gaps: list[RunGap]
    synthesis: Synthesis | None
    # The tip's branch (BranchOutcomeEntry, with tipStateToken for the dashboard's tipNodeId): its status,
    # and why when blocked; every other branch (how it ended or where it stands); the tip's branch's
    # refusal (BlockedStep, with the refused node's stateToken): the issues, what to resend, since when.
    branch: JsonObject | None
    otherBranches: list[JsonObject]
    blocked: JsonObject | None


class NotesPageAnswer(TypedDict):
    """A page of notes; a run with no node yet answers only runId, stateToken, cursor, totalEntries, entries."""

    runId: str
    stateToken: str | None
    pendingStepId: NotRequired[str | None]
    isComplete: NotRequired[bool]
    order: NotRequired[str]
    cursor: int
    pageSize: NotRequired[int]
    totalEntries: int
    entries: list[RecapEntry]
    nextCursor: NotRequired[int | None]
    nextUri: NotRequired[str | None]


class SessionArtifact(TypedDict):
    runId: str | None
    stepId: str | None
    source: Literal["step", "checkpoint"]
    kind: Any  # the artifact's own "kind", whatever the agent sent
    data: JsonObject
    recordedAt: str


class SessionArtifacts(TypedDict):
    sessionId: str
    sessionKey: str | None
    count: int
    artifacts: list[SessionArtifact]


def read_run(run_id: str) -> RunAnswer:
    """Where a run stands: status, its latest tip, a recap of the notes on the way there, how often
    it forked, the gaps it went past, and the synthesis of the tip's branch once that branch completed
    (another branch's synthesis is not the tip's: branches.py decides what belongs to which). Every
    other branch's outcome is named (outcomes.py), and a blocked tip says why (blocked.py)."""
    run = _run(run_id)
    tree = branches.read(run, records=False)
    told = outcomes.of_run(tree)
    mine = next((o for o in told if o.number == tree.branch_of(tree.newest).number), None) if tree.newest else None
    tip = Node.objects.select_related("run").filter(pk=tree.newest).first() if tree.newest is not None else None
    gaps: list[RunGap] = [
        {
            "stepId": gap.step_id,
            "reason": gap.reason,
            "description": gap.description,
            "recordedAt": gap.created_at.isoformat(),
        }
        for gap in run.gaps.order_by("created_at", "pk")
    ]
    return {
        "runId": run.public_id,
        "status": run.status,
        "statusSummary": outcomes.summary_words(told),
        "workflowId": run.workflow_id,
        "workflowHash": run.pinned_id,
        "sessionId": run.session.public_id,
        "sessionKey": run.session.session_key,
        "createdAt": run.created_at.isoformat(),
        "updatedAt": run.updated_at.isoformat(),
        "tip": None
        if tip is None
        else {
            "pendingStepId": tip.pending_step_id or None,
            "isComplete": tip.is_complete,
            "depth": tip.depth,
            "createdAt": tip.created_at.isoformat(),
        },
        "recap": _tip_recap(run, tip),
        "branchCount": tree.fork_points(),
        "gaps": gaps,
        "synthesis": tree.synthesis_of(tip.pk) if tip is not None else None,
        "branch": _for_agent(mine) if mine is not None else None,
        "otherBranches": [_for_agent(o) for o in told if o is not mine],
        "blocked": _for_agent(mine)["blocked"] if mine is not None else None,
    }


def _tip_recap(run: Run, tip: Node | None) -> Recap:
    """The notes on the way to the tip, keeping (over budget) those that set what its step works through."""
    if tip is None:
        return recap.fit([], 0)
    sources = worked_through(compiled_workflow(run.pinned_id), tip.engine_state)
    return recap.path_recap(tip, sources=sources)


def _for_agent(outcome: BranchOutcomeEntry) -> JsonObject:
    """A branch's outcome as an agent uses it: a stateToken where the dashboard has a node id (an agent
    goes on from a token, never from a node id)."""
    answer = outcome.dump()
    answer.pop("state", None)  # the dashboard's badge word (states.py): the agent reads status and leftBehind
    answer.pop("line", None)  # the dashboard's line beside that badge
    tip = answer.pop("tipNodeId")
    answer["tipStateToken"] = tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, int(tip))
    refusal = answer.get("blocked")
    if isinstance(refusal, dict):
        refusal.pop("verdict", None)  # the dashboard panel's first line; the agent has the issues and nextCall
        refused_at = refusal.pop("nodeId")
        refusal["stateToken"] = tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, int(refused_at))
    return answer


def _run(run_id: str) -> Run:
    run = Run.objects.select_related("session").filter(public_id=run_id).first()
    if run is None:
        raise versions.run_not_found(run_id)
    ownership.require_mine(run.session)
    return run


def _latest_node(run: Run) -> Node | None:
    """The run's tip: where its most recent branch stands."""
    return Node.objects.select_related("run").filter(run=run).order_by("-created_at", "-pk").first()


def read_run_notes(run_id: str, state_token: str | None = None, cursor: str | None = None) -> NotesPageAnswer:
    """One page of every note on the path from the run's start to the node of `state_token` (the
    run's latest tip without one), in path order from position `cursor` (1 without one). Only that
    path: the notes of other branches are not in it. The same node and cursor always give the same
    page; `nextUri` names the next page, with the node fixed, until the path's end."""
    run = _run(run_id)
    if state_token:
        parsed = tokens.parse(settings.WORKRAIL_HOME, state_token, TokenKind.STATE)
        node = Node.objects.select_related("run").filter(public_id=parsed.id, run=run).first()
        if node is None:
            raise WorkRailError(
                ErrorCode.NOT_FOUND,
                f"The stateToken names no node of run '{run_id}'.",
                "Use a stateToken this run gave (or the URI a recap's 'omitted' part names), or leave stateToken "
                "out to read the notes on the way to the run's latest tip.",
            )
    else:
        node = _latest_node(run)
    start = _cursor(cursor)
    if node is None:
        return {"runId": run.public_id, "stateToken": None, "cursor": start, "totalEntries": 0, "entries": []}
    page = recap.notes_page(node, start)
    token = tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, node.public_id)
    following = page.next_cursor
    return {
        "runId": run.public_id,
        "stateToken": token,
        "pendingStepId": node.pending_step_id or None,
        "isComplete": node.is_complete,
        "order": "path order, from the run's start to this node; position 1 is the first entry",
        "cursor": start,
        "pageSize": recap.PAGE_ENTRIES,
        "totalEntries": page.total_entries,
        "entries": page.entries,
        "nextCursor": following,
        "nextUri": recap.notes_uri(run.public_id, token, following) if following is not None else None,
    }


def _cursor(cursor: str | None) -> int:
    if cursor in (None, ""):
        return 1
    text = str(cursor).strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9 or int(text) < 1:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"The cursor '{text[:40]}' is not a position (a whole number from 1).",
            "Use the nextCursor or nextUri of the previous page, or leave cursor out to start at the first entry.",
        )
    return int(text)


def read_session_artifacts(session_id: str) -> SessionArtifacts:
    """Every artifact recorded in a session (step outputs of its runs, and checkpoints), oldest first."""
    session = Session.objects.filter(public_id=session_id).first()
    if session is None:
        raise WorkRailError(
            ErrorCode.NOT_FOUND,
            f"No session has the id '{session_id}'.",
            "Use the sessionId from a start_workflow or continue_workflow answer (session.sessionId).",
        )
    ownership.require_mine(session)
    rows: list[tuple[Any, int, int, str | None, str | None, list[Any]]] = []
    outputs = Output.objects.filter(node__run__session=session).values_list(
        "created_at", "pk", "node__run__public_id", "step_id", "artifacts"
    )
    rows += [(at, 0, pk, run_id, step_id, artifacts) for at, pk, run_id, step_id, artifacts in outputs]
    checkpoints = Checkpoint.objects.filter(session=session).values_list(
        "created_at", "pk", "node__run__public_id", "node__pending_step_id", "artifacts"
    )
    rows += [(at, 1, pk, run_id, step_id or None, artifacts) for at, pk, run_id, step_id, artifacts in checkpoints]
    rows.sort(key=lambda row: (row[0], row[1], row[2]))
    items: list[SessionArtifact] = [
        {
            "runId": run_id,
            "stepId": step_id,
            "source": CHECKPOINT if source else STEP,
            "kind": artifact.get("kind"),
            "data": artifact,
            "recordedAt": at.isoformat(),
        }
        for at, source, _pk, run_id, step_id, artifacts in rows
        for artifact in artifacts or []
        if isinstance(artifact, dict)
    ]
    return {"sessionId": session.public_id, "sessionKey": session.session_key, "count": len(items), "artifacts": items}
