"""The session, run, node and sessions pages tell the truth about branches and blocked runs (issue 20)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.support.branched_review import blocked_review, forked_review

pytestmark = pytest.mark.django_db

SUMMARY = "completed on branch 1 (Request changes) · branch 2 open"


def html_of(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_each_branch_page_shows_its_own_work_and_names_the_other(client, service_catalog):
    review = forked_review()
    newest = html_of(client, f"/runs/{review.run_id}/")
    assert 'id="synthesis-title"' not in newest and 'id="findings-title"' not in newest
    assert "Branch 1 completed: Request changes, 1 critical finding" in newest
    assert f'href="/runs/{review.run_id}/?tip={review.done_tip}"' in newest
    assert SUMMARY in newest

    first = html_of(client, f"/runs/{review.run_id}/?tip={review.done_tip}")
    assert "Synthesis of branch 1" in first and "Artifacts that stand on branch 1" in first
    assert "SQL built from user input" in first  # the findings table
    assert "Branch 2 open at step 4: Review storage" in first

    assert SUMMARY in html_of(client, f"/sessions/{review.session_id}/")
    assert SUMMARY in html_of(client, "/sessions/")
    node = html_of(client, f"/nodes/{review.open_tip}/")
    assert "On branch 2" in node and "Branch 1 completed: Request changes, 1 critical finding" in node


def test_a_blocked_run_explains_itself_on_every_page(client, service_catalog):
    stuck = blocked_review()
    message = stuck.refused["blocked"]["issues"][0]["message"].replace("'", "&#x27;")
    for url in (f"/sessions/{stuck.session_id}/", f"/runs/{stuck.run_id}/", f"/nodes/{stuck.node_id}/"):
        html = html_of(client, url)
        assert 'class="blocked-panel"' in html, url
        assert 'id="pending-step"' not in html, url
        assert "ARTIFACT_MISSING" in html and message in html and "/output/artifacts" in html, url
        assert "output.artifacts (mr_review.changed_files)" in html and "context: reviewAreas" in html, url
        assert "was refused, first at " in html, url
