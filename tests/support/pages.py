"""Fetching a dashboard page in a unit test, and reading its words: one helper for every page test."""

from __future__ import annotations

import re
from html import unescape

from django.test import Client


def page(client: Client, url: str, status: int = 200) -> str:
    """The page's HTML, after checking it answered `status` (its first bytes in the failure, to see why)."""
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code, response.content[:2000])
    return response.content.decode()


def text_of(html: str) -> str:
    """The words of an HTML fragment, its tags and attributes left out."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())  # a no-break space is a space
