"""Small things said one way (fourth review, item 12): the search button alike on the sessions list and the
catalog; the catalog's Source cell says where a workflow comes from once, without its file's name again; a
session's key is marked to stay whole and a session named by its title carries the whole title on hover;
the connect page's settings file in plain steps (which file, what to write, when it takes effect)."""

from __future__ import annotations

import re

import pytest
from django.conf import settings

from tests.support.mcp_calls import start_workflow
from tests.support.pages import page
from tests.support.workflow_files import workflow_doc, write_json

pytestmark = pytest.mark.django_db


def search_button(html: str) -> str:
    found = re.findall(r"<button[^>]*>Search</button>", html)
    assert len(found) == 1, found
    return found[0]


def test_the_search_button_is_the_same_on_the_sessions_list_and_the_catalog(client, service_catalog):
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "FIND-1"})  # the list, not the empty page
    assert search_button(page(client, "/sessions/")) == search_button(page(client, "/workflows/"))
    assert 'class="primary"' not in search_button(page(client, "/sessions/"))


def test_the_catalog_says_a_workflows_source_once_with_its_file_on_hover(client, service_catalog):
    write_json(service_catalog["extra"] / "ship.json", workflow_doc("team.ship", name="Ship it"))
    html = page(client, "/workflows/")
    row = html.split('href="/workflows/team.ship/"', 1)[1].split("</tr>", 1)[0]
    source = row.split("</td>")[2]  # Workflow, Kind, Source
    assert re.search(r'<span class="tag source-kind" title="[^"]*/ship\.json">extra</span>', source), source
    assert ">ship.json<" not in source.replace("<wbr>", "") and "team.ship" not in source
    # The workflow's own page still names the file.
    assert "ship.json" in page(client, "/workflows/team.ship/").replace("<wbr>", "")


def test_a_sessions_key_stays_whole_and_a_title_is_whole_on_hover(client, service_catalog):
    start_workflow("wr.routine-focused_plan", context={"sessionKey": "CANCEL-1"})
    start_workflow("wr.routine-focused_plan")  # no key: named by its workflow's title
    html = page(client, "/sessions/")
    assert re.search(r'<a href="/sessions/ses_\w+/" class="session-link session-key" [^>]*>CANCEL-1</a>', html)
    titled = re.search(r'<a href="/sessions/ses_\w+/" class="break session-link" title="([^"]*)">([^<]*)</a>', html)
    assert titled is not None and titled[1].startswith(titled[2] + " (session ses_"), titled


def test_the_settings_file_is_said_in_steps(client, service_catalog):
    html = page(client, "/connect/")
    section = html.split('aria-labelledby="settings-file-title"', 1)[1].split("</section>", 1)[0]
    steps = re.findall(r"<li>(.*?)</li>", section, flags=re.S)
    assert len(steps) == 3, steps
    which, what, when = (re.sub(r"<[^>]+>|\s+", " ", step).replace(" ", "") for step in steps)
    assert which.startswith("Open") and "config.toml" in which and "createit" in which  # no file yet here
    # The sample's retention is the one in use, from the settings (friction62b 18: a literal 30 beside 60).
    assert "withoutWORKRAIL_" in what and f"retention_days={settings.WORKRAIL_RETENTION_DAYS}" in what
    assert when.startswith("Restart")
