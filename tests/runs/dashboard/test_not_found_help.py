"""The dashboard's not-found page says why a session, run, node or workflow may not be here and where to
look instead (runs/readmodels/lost.py): the sessions search filled in with the id, the sessions list and
the catalog; never a URL pattern.
The API's 404s (JSON, their own words) are pinned by tests/surface."""

from __future__ import annotations

import pytest
from django.test import Client

from runs.readmodels.lost import lost_help

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "looked_for", "thing"),
    [
        ("/runs/run_0000000000000000/", "run_0000000000000000", "run"),
        ("/sessions/ses_0000000000000000/", "ses_0000000000000000", "session"),
        ("/nodes/424242/", "424242", "step"),
        ("/sessions/ses_0000000000000000/report.md", "ses_0000000000000000", "session"),
    ],
)
def test_an_unknown_id_says_why_and_offers_a_search_for_it(client: Client, settings, url, looked_for, thing):
    settings.WORKRAIL_RETENTION_DAYS = 45
    response = client.get(url)
    assert response.status_code == 404
    shown = response.content.decode()
    help_box = shown.split('id="lost-help"', 1)[1].split("</section>", 1)[0]
    # A session is deleted itself ("deleted with its session" said of a session would read as nonsense).
    deleted = "may have been deleted" if thing == "session" else "may have been deleted with its session"
    assert f"The {thing} {deleted}: sessions with no activity for 45 days" in help_box
    assert "session may have been deleted with its session" not in help_box
    assert "lives on another dashboard (recorded or imported there)" in help_box
    assert f'name="q" value="{looked_for}"' in help_box and 'action="/sessions/"' in help_box
    assert 'href="/sessions/"' in help_box and 'href="/workflows/"' in help_box
    assert "&lt;id&gt;" not in shown and "/api/v1/" not in help_box  # no URL patterns for people


def test_an_unknown_workflow_points_to_the_catalog_without_a_session_search(client: Client, service_catalog):
    response = client.get("/workflows/team.nothing_here/")
    assert response.status_code == 404
    help_box = response.content.decode().split('id="lost-help"', 1)[1]
    assert "workflow sources of this dashboard" in help_box
    assert 'name="q"' not in help_box and 'href="/workflows/"' in help_box


def test_an_unknown_step_of_a_run_that_is_here_keeps_the_errors_own_help(client: Client, built):
    shown = client.get(f"/runs/{built.review_run}/?tip=123").content.decode()
    assert 'id="lost-help"' not in shown and "Pick a node of this run from its graph." in shown


def test_a_route_that_names_nothing_gets_plain_help():
    plain = lost_help("timings", {})
    assert plain is not None and plain.search == ""
    long = lost_help("run", {"run_id": "x" * 500})
    assert long is not None and long.search == "x" * 200  # as much as the search box takes
