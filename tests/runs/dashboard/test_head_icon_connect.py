"""Faults a developer met on the dashboard (issue 20): HEAD refused with 405 on pages, /favicon.ico a
404 (an error in the console on admin pages), "Connect an agent" said twice on one page."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_head_answers_every_dashboard_page_as_get_does_without_a_body(client: Client, built) -> None:
    pages = ["/", "/sessions/", f"/sessions/{built.session_id}/", f"/runs/{built.review_run}/", "/workflows/"]
    pages += ["/workflows/wr.risk_scaled_mr_review/", "/timings/", "/connect/", "/live/sessions", "/favicon.ico"]
    for url in pages:
        got, head = client.get(url), client.head(url)
        assert head.status_code == got.status_code == 200, url
        assert head["Content-Type"] == got["Content-Type"], url
        assert b"".join(head) == b"" if head.streaming else head.content == b"", url
    assert client.head("/sessions/ses_nope/").status_code == client.get("/sessions/ses_nope/").status_code == 404
    assert client.put("/sessions/").status_code == 405


def test_the_favicon_is_a_real_icon_for_pages_that_name_none(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert b"".join(response.streaming_content).startswith(b"<svg")


def test_the_connect_page_says_connect_an_agent_once(client: Client) -> None:
    html = client.get("/connect/").content.decode()
    assert html.count(">Connect an agent<") == 1  # the heading; the <title> has " · WorkRail" after it
    assert 'aria-labelledby="connect-title"' in html and 'id="connect-title"' in html


def test_the_empty_sessions_list_names_connecting_an_agent_once(client: Client) -> None:
    html = client.get("/sessions/").content.decode()
    assert html.count("Connect an agent") == 1
