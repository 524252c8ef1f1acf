"""What on a session's page belongs to the shown run and what to the whole session (runs/readmodels/session_scope.py):
with several runs, one "Whole session" divider over the session's notes, timeline and mode (friction28a 8, 28b 4);
a later run's start said beside its name, not on a line of its own (friction28a 16, 28b 5); the head counts the
runs at every size."""

from __future__ import annotations

import re

import pytest

from tests.support.mcp_calls import start_workflow
from tests.support.pages import page, text_of
from tests.support.sample_session import PLAN

pytestmark = pytest.mark.django_db


def test_several_runs_put_the_session_wide_sections_under_one_divider(client, built):
    for url in (f"/runs/{built.review_run}/", f"/runs/{built.plan_run}/", f"/sessions/{built.session_id}/"):
        html = page(client, url)
        assert html.count('id="scope-divider"') == 1, url
        divider = html.index('id="scope-divider"')
        assert text_of(html[divider : html.index("</h2>", divider)].split(">", 1)[1]) == "Whole session"
        # Everything of the shown run before it; the timeline and the mode after it.
        assert html.index('id="steps-title"') < divider < html.index('id="timeline-title"'), url
        assert divider < html.index('id="mode-title"'), url
        # The shown run's own sections after its card under a divider naming the run (friction29a 14, 29b 8).
        assert html.count('id="run-scope-divider"') == 1, url
        own = html.index('id="run-scope-divider"')
        named = text_of(html[own : html.index("</h2>", own)].split(">", 1)[1])
        assert re.fullmatch(r"Run [12] of 2: .+", named), named
        assert html.index('id="run-title"') < own < html.index('id="steps-title"'), url


def test_a_later_run_says_when_it_started_beside_its_name_the_first_run_not_at_all(client, built):
    later = page(client, f"/runs/{built.plan_run}/")
    head = later.split('class="run-name-line"', 1)[1].split("</div>", 1)[0]
    assert 'id="run-title"' in head and 'id="run-started"' in head
    assert text_of(head.split('id="run-started"', 1)[1].split(">", 1)[1]).startswith("started ")
    first = page(client, f"/runs/{built.review_run}/")
    # The first run started with its session, whose head says when: its card says it nowhere.
    assert 'id="run-started"' not in first
    for html in (later, first):
        facts = html.split('id="run-facts"', 1)[1].split("</ul>", 1)[0]
        assert "started" not in text_of(facts.split('<details class="run-details"', 1)[0])


def test_one_run_needs_no_scope_words(client):
    one = start_workflow(PLAN)
    html = page(client, f"/sessions/{one['session']['sessionId']}/")
    assert 'id="scope-divider"' not in html and "Whole session" not in html
    assert 'id="run-scope-divider"' not in html
    assert 'id="run-started"' not in html
    assert '<li class="fact-runs">1 run</li>' in html
