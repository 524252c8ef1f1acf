"""Workflows: the catalog as list_workflows and inspect_workflow answer it (the same typed shapes)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Path, Query, Router
from pydantic import Field

from runs.api.errors import described, responses
from runs.contract.catalog import ListFilters, WorkflowInspection, WorkflowList
from runs.contract.inputs import MAX_WORKFLOW_ID_CHARS
from runs.execution import catalog
from workflows_app.tags import TAG_ID

router = Router(tags=["workflows"])


@router.get(
    "/workflows",
    response=responses(WorkflowList, 400),
    by_alias=True,
    exclude_unset=True,
    summary="List workflows",
    description="Every workflow and routine (examples included, marked), the catalog's overview by tag and "
    "source, and every problem in full under `warnings`; tags, query, kind and namespace narrow the list "
    "as in the list_workflows tool (which answers an agent the overview alone when given no filter).",
    openapi_extra=described(400),
)
def list_workflows(
    request: HttpRequest,
    tags: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=40, pattern=TAG_ID.pattern)]] | None,
        Query(max_length=10, description="Only workflows with any of these tag ids ('untagged' for the rest)."),
    ] = None,
    query: Annotated[
        str | None,
        Query(max_length=200, description="Only workflows whose id, title, description or tags hold every word."),
    ] = None,
    kind: Annotated[
        Literal["workflow", "routine"] | None, Query(description="Only workflows or only routines.")
    ] = None,
    namespace: Annotated[
        str | None, Query(max_length=100, description="Only ids in this namespace, e.g. 'wr'.")
    ] = None,
) -> Any:
    given = {"tags": tags, "query": query, "kind": kind, "namespace": namespace}
    filters = ListFilters(include_examples=True, **{name: value for name, value in given.items() if value})
    return catalog.list_workflows(filters, for_people=True)


@router.get(
    "/workflows/{workflowId}",
    response=responses(WorkflowInspection, 404, 409),
    by_alias=True,
    exclude_unset=True,
    summary="One workflow",
    description="Its purpose, preconditions, questions to clarify and step outline (what inspect_workflow "
    "answers in metadata mode).",
    openapi_extra=described(404, 409),
)
def inspect_workflow(
    request: HttpRequest,
    workflow_id: Annotated[
        str,
        Path(
            alias="workflowId", min_length=1, max_length=MAX_WORKFLOW_ID_CHARS, description="An id from GET /workflows."
        ),
    ],
) -> Any:
    return catalog.inspect_workflow(workflow_id, mode="metadata", for_people=True)
