"""A node, the workflow catalog, the tool timings and the connect instructions."""

from __future__ import annotations

from django.contrib.staticfiles import finders
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from runs.dashboard.connect import connection_instructions
from runs.dashboard.errors import shows_errors
from runs.execution import catalog
from runs.readmodels import overview, run_view
from runs.readmodels.timings import tool_timings


@require_safe
@shows_errors
def node_page(request: HttpRequest, node_id: str) -> HttpResponse:
    node = run_view.node_detail(node_id)
    session = overview.get_session(node.run.session_id)
    return render(request, "dashboard/node.html", {"nav": "sessions", "node": node, "live_version": session.last_seq})


@require_safe
@shows_errors
def workflows(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/workflows.html", {"nav": "workflows", "listing": catalog.list_workflows().dump()})


@require_safe
@shows_errors
def workflow(request: HttpRequest, workflow_id: str) -> HttpResponse:
    inspection = catalog.inspect_workflow(workflow_id, "metadata").dump()  # the templates read the wire names
    return render(request, "dashboard/workflow.html", {"nav": "workflows", "inspection": inspection})


@require_safe
def timings(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/timings.html", {"nav": "timings", "timings": tool_timings()})


@require_safe
def connect(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/connect.html", {"nav": "connect", "connect": connection_instructions()})


FAVICON = "dashboard/favicon.svg"


@require_safe
def favicon(request: HttpRequest) -> FileResponse:
    """`/favicon.ico`, which browsers ask for on pages that name no icon (the admin's): the dashboard's
    SVG icon, so that no page logs a 404 in the browser's console."""
    found = finders.find(FAVICON)
    if not isinstance(found, str):
        raise Http404("The dashboard's icon is missing from static/.")
    response = FileResponse(open(found, "rb"), content_type="image/svg+xml")  # noqa: SIM115 (closed by FileResponse)
    response["Cache-Control"] = "public, max-age=86400"
    return response
