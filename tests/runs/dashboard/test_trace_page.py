"""The node page says why its step was chosen ("Why this step"), or that this was not recorded."""

from __future__ import annotations

import html as html_text
import re

import pytest
from django.test import Client

from runs.models import Node
from tests.support.traced_run import install, traced_run

pytestmark = pytest.mark.django_db


def why(client: Client, node_id: str) -> str:
    response = client.get(f"/nodes/{node_id}/")
    assert response.status_code == 200
    page = response.content.decode()
    start = page.index('<h2 id="trace-title"')
    section = page[start : page.index("</section>", start)]
    return html_text.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", section))).strip()


def test_the_node_page_explains_the_skipped_step_and_the_loop(client, service_catalog):
    install(service_catalog["extra"])
    run = traced_run()
    after_skip = why(client, run.node_at("phase-1"))
    assert after_skip.startswith("Why this step")
    assert (
        "Skipped Phase 0b: it runs only if task complexity is 'Small', and task complexity is 'Large'. "
        "Condition: taskComplexity == 'Small'" in after_skip
    )
    assert "Went on to Phase 1, the next step in the workflow (it has no condition)." in after_skip
    second_slice = why(client, run.node_at("verify", 1))
    assert "Next round of loop Verify slices: this is round 2 of 3 (3 rounds because slice count is 3)." in second_slice
    assert "Went on to Verify slice 2, the next step in the workflow (it has no condition)." in second_slice
    page = client.get(f"/nodes/{run.node_at('phase-1')}/").content.decode()
    assert '<span class="trace-code muted small"> Condition: <code>taskComplexity == &#x27;Small&#x27;</code>' in page


def test_an_ordinary_step_has_no_why_card(client, service_catalog):
    """ "Went on to Intake, the next step in the workflow" says nothing: the card is left out."""
    install(service_catalog["extra"])
    run = traced_run()
    page = client.get(f"/nodes/{run.node_at('intake')}/").content.decode()
    assert 'id="trace-title"' not in page
    assert 'id="trace-title"' in client.get(f"/nodes/{run.node_at('phase-1')}/").content.decode()


def test_a_node_recorded_before_traces_says_so_in_words(client, service_catalog):
    install(service_catalog["extra"])
    run = traced_run(until="phase-1")
    Node.objects.filter(run__public_id=run.run_id).update(trace=None)  # as every node recorded before
    said = why(client, run.node_at("phase-1"))
    assert said == (
        "Why this step Not recorded: this node was made before WorkRail kept why each step is chosen "
        "(conditions, loops and decisions)."
    )


def test_the_node_page_speaks_to_people_not_in_the_recaps_policy_words(client, service_catalog):
    """The recap's policy (bytes, path order) is what an agent reads; the page says it in plain words."""
    install(service_catalog["extra"])
    run = traced_run()
    page = client.get(f"/nodes/{run.node_at('phase-1')}/").content.decode()
    text = html_text.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page)))
    # One subtitle on every step's page, its last sentence only where an agent can still go on (resumed or
    # branched; friction19a 5, friction20a 15: two different subtitles for the same list).
    assert "Notes recorded on the way to this step, oldest first. An agent going on from here reads them." in text
    assert "bytes" not in text and "path order" not in text
    assert "Chosen " not in text
    # The mode as people say it, and only when it is not the server's default (this run's is).
    assert "riskPolicy" not in text and "balanced risk" not in text
    title = re.search(r"<title>([^<]*)</title>", page)
    assert title is not None and not re.search(r"node \d{8}", title[1])


def test_the_error_page_heads_with_a_sentence_and_keeps_the_code_small(client):
    response = client.get("/nodes/123456789012345/")
    assert response.status_code == 404
    page = response.content.decode()
    assert '<h1 id="error-title">Nothing here by that name</h1>' in page
    assert "<code>NOT_FOUND</code>" in page.split("</h1>", 1)[1]
