"""The run's name links to its workflow's catalog page, or says once, quietly, where its pinned copy stands
(runs/dashboard/run_workflow.py; friction60a 15, 60b 16: runs of workflows the catalog did not list, and a
run title that was no link)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from runs.models import PinnedWorkflow, Run
from tests.support.mcp_calls import start_workflow
from tests.support.pages import page

pytestmark = pytest.mark.django_db

PLAN = "wr.routine-focused_plan"


def title_line(html: str) -> str:
    return html.split('<div class="run-name-line">')[1].split("</div>")[0]


def test_the_run_name_links_to_its_workflow_or_says_where_its_copy_stands(service_catalog) -> None:
    run_id = start_workflow(PLAN, context={"sessionKey": "WF-LINK-1"})["session"]["runId"]
    client = Client()
    # The catalog holds this very version: the name is a link to its page, and nothing more is said.
    line = title_line(page(client, f"/runs/{run_id}/"))
    assert f'<h2 id="run-title"><a href="/workflows/{PLAN}/">' in line and "run-origin" not in line
    # The catalog holds the id at another version: still the link, and which copy the run follows.
    run = Run.objects.get(public_id=run_id)
    other = PinnedWorkflow.objects.create(
        workflow_hash="sha256:" + "0" * 64, workflow_id=PLAN, compiled=run.pinned.compiled, created_at=timezone.now()
    )
    Run.objects.filter(pk=run.pk).update(pinned=other)
    line = title_line(page(client, f"/runs/{run_id}/"))
    assert f'<a href="/workflows/{PLAN}/">' in line
    assert (
        '<span class="run-origin muted small" id="run-origin">pinned copy; the catalog&#x27;s version differs</span>'
        in line
    )
    # A workflow the catalog does not hold: no link to a page that is not there; said once, beside the name.
    PinnedWorkflow.objects.filter(pk=other.pk).update(workflow_id="team.gone")
    Run.objects.filter(pk=run.pk).update(workflow_id="team.gone")
    html = page(client, f"/runs/{run_id}/")
    line = title_line(html)
    assert "<a " not in line.split("</h2>")[0]
    assert ">pinned copy; not in this catalog now</span>" in line
    assert html.count("not in this catalog now") == 1
