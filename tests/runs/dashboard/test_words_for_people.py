"""Pages a person reads say things in words and show each thing once (issue 32's friction review):
the catalog's short cells and warnings only where there are some, the sessions list's branch named
once under a group heading, a failed tool call's code in words, paths that wrap between directories."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import timezone

from runs.models import Session, ToolCall
from runs.readmodels.timings import outcome_words
from runs.templatetags.dashboard import path_breaks
from tests.support.mcp_calls import start_workflow
from tests.support.workflow_files import workflow_doc, write_json

pytestmark = pytest.mark.django_db


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def test_the_catalog_shows_warnings_only_on_workflows_that_have_some(client, service_catalog):
    write_json(service_catalog["extra"] / "ship.json", workflow_doc("team.ship", name="Ship it"))
    html = page(client, "/workflows/")
    head = html.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert "Warnings" not in head and "Steps" in head  # no column of zeros
    assert not re.search(r'<td class="num">0</td>', html)
    assert "outline steps" not in html  # the Steps cell is short: "7 steps (9 with loops)"
    placeholder = re.search(r'id="workflow-query"[^>]*placeholder="([^"]*)"', html)
    assert placeholder is not None and len(placeholder[1]) <= 32


def test_grouped_by_branch_the_sessions_list_names_the_branch_once(client, service_catalog):
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-01"})
    Session.objects.filter(session_key="KEY-01").update(workspace_path="/src/shop", git_branch="main")
    grouped = page(client, "/sessions/?group=branch")
    assert ' · branch <span class="mono">main</span>' in grouped  # the group's heading names it
    assert ">Git branch</th>" not in grouped
    by_repository = page(client, "/sessions/?group=workspace")
    assert ">Git branch</th>" in by_repository  # here nothing else names it


def test_the_sessions_list_leads_each_row_with_its_state_and_folds_sort_and_group(client, service_catalog):
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "KEY-02"})
    html = page(client, "/sessions/")
    row = html.split('<tr class="session-row"')[1].split("</tr>")[0]
    assert row.index('<td class="session-state">') < row.index('<td class="session-name">')
    assert row.index('<td class="session-name">') < row.index('<td class="session-where">')
    assert '<details class="filter-fold" id="session-filters" open>' in html  # open until filters.js folds it
    assert html.index('id="f-q"') < html.index('id="session-filters"')  # the search is not folded
    assert "dashboard/filters.js" in html
    searched = page(client, "/sessions/?q=KEY")
    assert 'id="session-filters" open>' in searched  # a search in use is outside the fold
    sorted_ = page(client, "/sessions/?sort=title")
    assert 'id="session-filters" open data-active>' in sorted_  # a sort in use stays in view


def test_a_failed_tool_call_says_its_code_in_words(client, built):
    now = timezone.now()
    ToolCall.objects.bulk_create(
        [
            ToolCall(tool="continue_workflow", outcome="TOKEN_UNKNOWN", duration_ms=3.0, started_at=now),
            ToolCall(tool="start_workflow", outcome="error", duration_ms=9.0, started_at=now),
        ]
    )
    recent = page(client, "/timings/").split('id="recent-title"', 1)[1].split("</table>", 1)[0]
    assert '<code class="small">TOKEN_UNKNOWN</code>' in recent
    assert "the token sent names nothing stored here" in recent
    assert "failed without an error code (its message is not kept)" in recent
    assert outcome_words("ok") == ""
    assert outcome_words("STORE_BUSY") == "the store was busy"
    assert outcome_words("BUNDLE_TOO_LARGE") == "bundle too large"  # a code with no words of its own


def test_a_path_wraps_between_directories_not_inside_a_name(client):
    assert str(path_breaks("/work/main/.venv/bin/python")) == "/<wbr>work/<wbr>main/<wbr>.venv/<wbr>bin/<wbr>python"
    assert str(path_breaks("/a<b>/c")) == "/<wbr>a&lt;b&gt;/<wbr>c"
    html = page(client, "/connect/")
    assert "manage.py mcp</code>" in html and "/<wbr>" in html.split("It runs <code>", 1)[1].split("</code>", 1)[0]
