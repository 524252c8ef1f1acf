"""The run page's branch graph and the session page's timeline as served (the drawing itself is tested
in tests/runs/readmodels/test_graph_drawing.py): labelled cards, short node ids in link texts with the
full id in their title and URL, and a timeline with clock times and durations."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from runs.models import Node
from tests.support.looped_run import looped_and_forked

pytestmark = pytest.mark.django_db


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def test_the_run_page_draws_labelled_cards_with_loop_marks_and_tags(client, service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    html = page(client, f"/runs/{looped.run_id}/")
    svg = html.split('<svg class="run-graph"', 1)[1].split("</svg>", 1)[0]
    titles = re.findall(r'<text class="ct"[^>]*>([^<]*)</text>', svg)
    assert titles[:3] == ["Scope the change int…", "Verify slice 1", "Record what the slic…"]
    assert "Complete" in titles
    assert svg.count('<tspan class="loop">↻ 2</tspan>') == 3  # the second iteration's two steps, and the fork
    assert re.findall(r'<text class="tag-text (\w+)"[^>]*>([^<]*)<', svg) == [
        ("lane", "Branch 1"),
        ("lane", "Branch 2"),
        ("newest", "newest"),
        ("current", "shown"),
    ]
    assert '<script src="/static/dashboard/graph.js" defer></script>' in html


def test_node_ids_in_link_texts_are_short_with_the_full_id_in_the_title_and_the_url(client, service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    newest = Node.objects.filter(run__public_id=looped.run_id).order_by("-created_at", "-pk").first()
    assert newest is not None
    full = str(newest.public_id)
    html = page(client, f"/runs/{looped.run_id}/")
    pending = html.split('id="pending-step"', 1)[1].split("</p>", 1)[0]
    assert f'<a href="/nodes/{full}/" title="node {full}">node {full[:8]}</a>' in pending
    session = page(client, f"/sessions/{looped.session_id}/")
    notes = session.split("Session notes and checkpoints", 1)[1]
    links = re.findall(r'href="/nodes/(\d+)/" title="node (\d+)">node (\d+)</a>', notes)
    assert links and all(url == title and text == url[:8] for url, title, text in links)
    node = page(client, f"/nodes/{full}/")
    assert re.search(rf"<title>Step \d+ · Record what the slice showed · node {full[:8]}", node)


def test_the_timeline_has_clock_times_on_its_axis_and_each_runs_duration(client, service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    html = page(client, f"/sessions/{looped.session_id}/")
    timeline = html.split('id="timeline-title"', 1)[1].split("</section>", 1)[0]
    ticks = re.findall(r'<text class="tl-tick"[^>]*>([^<]*)</text>', timeline)
    assert ticks and all(re.fullmatch(r"(\d\d \w\w\w )?\d\d:\d\d(:\d\d)?", tick) for tick in ticks)
    assert re.search(r'<text class="tl-duration"[^>]*>[\d.]+ s · 11 nodes</text>', timeline)
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d to [\d: -]+ UTC · [\d.]+ s</text>", timeline)
    assert "first node" not in timeline and "newest node" not in timeline
