"""The operator fork over HTTP: a new branch from a node, with edited context and a reason (the same use
case as the node page's form, runs/execution/operator_fork.py)."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest
from ninja import Path, Router

from runs.api.errors import MEANING, responses
from runs.contract.fork import OperatorForkInput, OperatorForkResult
from runs.execution import operator_fork

NodeIdPath = Annotated[str, Path(alias="nodeId", description="A node id, as a string (graph.nodes[].nodeId of a run).")]
router = Router(tags=["nodes"])

# What each error status means for this operation (409 has other causes here than a workflow file's).
FORK_ERRORS = {
    400: "INVALID_INPUT: the body does not fit, or the reason is missing or too long. CONTEXT_CHANGE_INVALID: the "
    "context change is not an object, too large, or changes a reserved key (details.pointer).",
    403: MEANING[403],
    404: "NOT_FOUND: no node has this id.",
    409: "NODE_COMPLETE: the node is where its branch completed. RUN_CANCELED: the run was canceled.",
    429: MEANING[429],
}


@router.post(
    "/nodes/{nodeId}/fork",
    response=responses(OperatorForkResult, *FORK_ERRORS),
    by_alias=True,
    summary="Fork a node: a new branch with edited context",
    description="Starts a new branch from the node: a child at the same pending step, with `context` merged into "
    "the node's context (a value sets a key, null removes it) and `reason` recorded (an `operator_forked` event). "
    "Nothing on existing branches changes. Answers the new node's stateToken and `call`, the exact "
    "continue_workflow call to give the agent.",
    openapi_extra={
        "responses": {
            status: {"description": FORK_ERRORS.get(status, MEANING[status])}
            for status in sorted({400, 401, 500, 503, *FORK_ERRORS})
        }
    },
)
def fork_node(request: HttpRequest, node_id: NodeIdPath, body: OperatorForkInput) -> OperatorForkResult:
    return operator_fork.fork_node(node_id, body.context, body.reason, via="api")
