"""Runs and nodes: a run with its graph and steps, the graph alone, canceling a run, and one node."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest
from ninja import Path, Query, Router

from runs.api.errors import described, responses
from runs.contract.dashboard import CancelResult, NodeDetail, RunDetail, RunGraph
from runs.execution import session_actions
from runs.readmodels import run_view

RunIdPath = Annotated[str, Path(alias="runId", description="A run id (runs[].runId of a session).")]
NodeIdPath = Annotated[str, Path(alias="nodeId", description="A node id, as a string (graph.nodes[].nodeId of a run).")]
router = Router(tags=["runs"])


@router.get(
    "/runs/{runId}",
    response=responses(RunDetail, 400, 403, 404),
    by_alias=True,
    summary="One run",
    description="The run's graph, the steps recorded on one branch (the newest, or the one ending at `tip`), "
    "its artifact tables, gaps, warnings, synthesis and delegated runs.",
    openapi_extra=described(400, 403, 404),
)
def get_run(
    request: HttpRequest,
    run_id: RunIdPath,
    tip: Annotated[
        str | None,
        Query(max_length=run_view.MAX_NODE_ID_CHARS, description="A node id of this run: show the branch to it."),
    ] = None,
) -> RunDetail:
    return run_view.run_detail(run_id, tip=tip)


@router.get(
    "/runs/{runId}/graph",
    response=responses(RunGraph, 403, 404),
    by_alias=True,
    summary="A run's graph",
    description="Its nodes (with their lane and depth) and edges, laid out on the server.",
    openapi_extra=described(403, 404),
)
def get_run_graph(request: HttpRequest, run_id: RunIdPath) -> RunGraph:
    return run_view.run_detail(run_id).graph


@router.post(
    "/runs/{runId}/cancel",
    response=responses(CancelResult, 400, 403, 404, 429),
    by_alias=True,
    summary="Cancel a run",
    description="Stops the run for good (its tokens then answer RUN_CANCELED). Canceling twice is not an error; "
    "a complete run cannot be canceled (INVALID_INPUT).",
    openapi_extra=described(400, 403, 404, 429),
)
def cancel_run(request: HttpRequest, run_id: RunIdPath) -> CancelResult:
    return session_actions.cancel_run(run_id)


@router.get(
    "/nodes/{nodeId}",
    response=responses(NodeDetail, 403, 404),
    by_alias=True,
    summary="One node",
    tags=["nodes"],
    description="What was recorded there, the recap an agent resuming there reads, its branches, and a "
    "stateToken to resume (or fork) from it.",
    openapi_extra=described(403, 404),
)
def get_node(request: HttpRequest, node_id: NodeIdPath) -> NodeDetail:
    return run_view.node_detail(node_id)
