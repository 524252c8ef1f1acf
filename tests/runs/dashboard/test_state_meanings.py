"""A state pill's one-line meaning on tap (friction24b 9: a tooltip cannot be read on a phone): state_chip puts
the pill in a button that opens a popover, and base.html's state_meanings draws one popover per meaning the page
shows, not one per pill, in the words of states.MEANINGS (the sessions list's glossary's table)."""

from __future__ import annotations

import re

from django.template import Context, Template
from django.test import RequestFactory

from runs.readmodels import states

PAGE = (
    "{% load dashboard %}"
    "{% state_chip 'stalled' %}{% state_chip 'stalled' %}{% state_chip 'done' %}"
    "<a href='/x/'>{% state_chip 'running' tap=False %}</a>"
    "{% state_meanings %}"
)


def test_each_pill_opens_its_meaning_one_popover_per_meaning_on_the_page():
    said = Template(PAGE).render(Context({"request": RequestFactory().get("/")}))
    targets = re.findall(r'<button type="button" class="pill-tap" popovertarget="([^"]+)">', said)
    assert targets == ["means-stalled-yours", "means-stalled-yours", "means-done-nobody"]
    popovers = re.findall(r'<div id="([^"]+)" popover class="state-means">', said)
    assert popovers == ["means-stalled-yours", "means-done-nobody"]  # one per meaning, not per pill
    stalled = states.pill("stalled", "yours")
    assert f"<strong>{stalled.words}</strong> {stalled.means}</div>" in said.replace("&#x27;", "'")
    # The pill keeps its look and its accessible description; one inside a link stays a plain pill.
    assert said.count(f'aria-description="{stalled.means}"') == 2
    assert "<a href='/x/'><span title=" in said and "means-running" not in said
    assert 'data-live-region="state-meanings"' in said  # a pill a live update brings has its meaning too


def test_without_a_request_a_pill_is_the_plain_pill_and_no_popover_is_drawn():
    said = Template(PAGE).render(Context({}))
    assert "<button" not in said and "popover" not in said
    assert said.count('class="badge state-stalled"') == 2
