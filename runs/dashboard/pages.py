"""A node, the workflow catalog, the tool timings and the connect instructions."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from runs.dashboard.connect import connection_instructions
from runs.dashboard.errors import shows_errors
from runs.execution import catalog
from runs.readmodels import overview, run_view, trace
from runs.readmodels.timings import tool_timings


@require_GET
@shows_errors
def node_page(request: HttpRequest, node_id: str) -> HttpResponse:
    node = run_view.node_detail(node_id)
    session = overview.get_session(node.run.session_id)
    context = {"nav": "sessions", "node": node, "trace": trace.node_trace(node_id), "live_version": session.last_seq}
    return render(request, "dashboard/node.html", context)


@require_GET
@shows_errors
def workflows(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/workflows.html", {"nav": "workflows", "listing": catalog.list_workflows().dump()})


@require_GET
@shows_errors
def workflow(request: HttpRequest, workflow_id: str) -> HttpResponse:
    inspection = catalog.inspect_workflow(workflow_id, "metadata").dump()  # the templates read the wire names
    return render(request, "dashboard/workflow.html", {"nav": "workflows", "inspection": inspection})


@require_GET
def timings(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/timings.html", {"nav": "timings", "timings": tool_timings()})


@require_GET
def connect(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/connect.html", {"nav": "connect", "connect": connection_instructions()})
