"""The workflow page's outline says when a step runs, when it asks for confirmation and how a loop
repeats in words (workflows_app/condition_words.py, the style for people), not as raw JSON; the JSON
stays in the tooltip for authors."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json

pytestmark = pytest.mark.django_db

RISKY = {"or": [{"var": "riskLevel", "equals": "high"}, {"var": "changeSize", "in": ["large", "huge"]}]}


def outline(client: Client, workflow_id: str) -> str:
    response = client.get(f"/workflows/{workflow_id}/")
    assert response.status_code == 200
    page = response.content.decode()
    return page.split('id="outline-title"', 1)[1].split("</section>", 1)[0]


def test_conditions_loops_and_confirmations_read_as_words(client: Client, service_catalog):
    steps = [
        step_doc("deep-review", "Deep review", "Look hard.", runCondition=RISKY),
        step_doc("ship", "Ship", "Ship it.", requireConfirmation={"not": {"var": "dryRun"}}),
        loop_doc(
            "polish",
            "Polish",
            {"type": "while", "condition": {"var": "polishRounds", "gt": 0}, "maxIterations": 3},
            [step_doc("polish-once", "Polish once", "Polish.")],
        ),
        loop_doc(
            "areas",
            "Areas",
            {"type": "forEach", "items": "reviewAreas", "maxIterations": 15},
            [step_doc("area", "Area", "Review it.")],
        ),
    ]
    write_json(service_catalog["extra"] / "worded.json", workflow_doc("team.worded", steps=steps))
    shown = html.unescape(outline(client, "team.worded"))
    assert "runs only if risk level is 'high' or change size is one of 'large' or 'huge'" in shown
    assert "asks for confirmation when dry run is false or not set" in shown
    assert "Repeats while polish rounds is more than 0 (at most 3 rounds)" in shown
    # The variable said as words, its name as written on hover (friction64 A1).
    assert 'Repeats once for each item in <span class="var-name" title="reviewAreas">review areas</span> (at' in shown
    assert "forEach loop" not in shown  # the engine's loop type is not a word for people
    assert "<code>{" not in shown  # no condition printed as raw JSON
    assert 'title="{&quot;or&quot;' in outline(client, "team.worded")  # the JSON, for authors, in the tooltip


def test_the_workflow_page_speaks_words_not_field_names(client: Client, service_catalog):
    """Recommended preferences, the pinned hash and a templated step title read as words."""
    document = workflow_doc(
        "team.named",
        steps=[
            loop_doc(
                "areas",
                "Areas",
                {"type": "forEach", "items": "reviewAreas", "itemVar": "area", "maxIterations": 4},
                [step_doc("area", "Review {{area}}", "Review it.")],
            )
        ],
    )
    document["recommendedPreferences"] = {"recommendedAutonomy": "guided", "recommendedRiskPolicy": "balanced"}
    document["features"] = ["wr.features.subagent_guidance"]
    write_json(service_catalog["extra"] / "named.json", document)
    page = html.unescape(client.get("/workflows/team.named/").content.decode())
    # The session head's mode words, what they make the agent do beside them (friction12 10).
    recommended = page.split('<dd id="recommended-mode">', 1)[1].split("</dd>", 1)[0]
    assert recommended.startswith("Guided, balanced risk") and "asks you at every confirmation" in recommended
    assert "autonomy guided" not in page and "risk policy" not in page
    assert "recommendedAutonomy" not in page
    # Features in a person's words from the one table (outline_words.FEATURE_WORDS), the id on hover.
    assert '<span title="wr.features.subagent_guidance">The agent delegates self-contained work' in page
    assert "<dt>Features</dt>" not in page
    assert "<dt>workflowHash</dt>" not in page and "<dt>Content hash</dt>" in page
    assert "Review [area]" in page and "{{area}}" not in page
    # The loop's rounds called by its item, as its run's pages count them ("area 1 of 2"), never "rounds".
    assert 'for each area in <span class="var-name" title="reviewAreas">review areas</span> (at most 4 areas)' in page
    assert "each area:" in page and "each round:" not in page
    # The breadcrumb names the workflow as its heading does; the id is its title.
    crumbs = page.split('<p class="crumbs">', 1)[1].split("</p>", 1)[0]
    name = page.split("<h1>", 1)[1].split("</h1>", 1)[0]
    assert crumbs.endswith(f'<span title="team.named">{name}</span>') and name != "team.named"
