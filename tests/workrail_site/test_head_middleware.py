"""HEAD through a server that does not strip bodies itself (waitress): the middleware does."""

from __future__ import annotations

from django.http import FileResponse, HttpResponse
from django.test import RequestFactory

from workrail_site.middleware import HeadWithoutBodyMiddleware


def test_a_head_answer_keeps_the_get_headers_and_drops_the_body(tmp_path) -> None:
    page = HeadWithoutBodyMiddleware(lambda request: HttpResponse("<p>hello</p>", content_type="text/html"))
    head = page(RequestFactory().head("/"))
    assert head.content == b"" and head["Content-Length"] == "12" and head["Content-Type"] == "text/html"
    assert page(RequestFactory().get("/")).content == b"<p>hello</p>"
    icon = tmp_path / "icon.svg"
    icon.write_bytes(b"<svg/>")
    streamed = HeadWithoutBodyMiddleware(lambda request: FileResponse(icon.open("rb")))(RequestFactory().head("/"))
    assert b"".join(streamed.streaming_content) == b"" and streamed["Content-Length"] == "6"
