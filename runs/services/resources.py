"""Read-only views behind the MCP resources (runs/mcp/resources.py): plain dicts, ready for JSON.

The catalog views are the catalog use cases themselves, so a resource and the matching tool can
never disagree. An unknown run or session id is a WorkRailError (NOT_FOUND); an unknown
workflow id is WORKFLOW_NOT_FOUND, exactly as inspect_workflow says it.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count

from runs.errors import ErrorCode, WorkRailError
from runs.models import Checkpoint, Node, Output, Run, Session
from runs.services import catalog, recap

STEP = "step"
CHECKPOINT = "checkpoint"


def read_workflows() -> dict[str, Any]:
    """The catalog: the same data as the list_workflows tool without filters."""
    return catalog.list_workflows()


def read_workflow(workflow_id: str) -> dict[str, Any]:
    """One workflow: the same data as inspect_workflow in mode 'metadata'."""
    return catalog.inspect_workflow(workflow_id, "metadata")


def read_run(run_id: str) -> dict[str, Any]:
    """Where a run stands: status, its latest tip, a recap of the notes on the way there, how often
    it forked, the gaps it went past, and its synthesis once it has one."""
    run = Run.objects.select_related("session").filter(public_id=run_id).first()
    if run is None:
        raise WorkRailError(
            ErrorCode.NOT_FOUND,
            f"No run has the id '{run_id}'.",
            "Use the runId from a start_workflow or continue_workflow answer (session.runId).",
        )
    # The latest node is the run's tip: where its most recent branch stands.
    tip = Node.objects.filter(run=run).order_by("-created_at", "-pk").first()
    branch_count = (
        Node.objects.filter(run=run).annotate(child_count=Count("children")).filter(child_count__gt=1).count()
    )
    gaps = [
        {
            "stepId": gap.step_id,
            "reason": gap.reason,
            "description": gap.description,
            "recordedAt": gap.created_at.isoformat(),
        }
        for gap in run.gaps.order_by("created_at", "pk")
    ]
    synthesis = run.syntheses.order_by("-created_at", "-pk").values_list("synthesis", flat=True).first()
    return {
        "runId": run.public_id,
        "status": run.status,
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
        "recap": recap.path_recap(tip) if tip is not None else recap.fit([], 0),
        "branchCount": branch_count,
        "gaps": gaps,
        "synthesis": synthesis,
    }


def read_session_artifacts(session_id: str) -> dict[str, Any]:
    """Every artifact recorded in a session (step outputs of its runs, and checkpoints), oldest first."""
    session = Session.objects.filter(public_id=session_id).first()
    if session is None:
        raise WorkRailError(
            ErrorCode.NOT_FOUND,
            f"No session has the id '{session_id}'.",
            "Use the sessionId from a start_workflow or continue_workflow answer (session.sessionId).",
        )
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
    items = [
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
