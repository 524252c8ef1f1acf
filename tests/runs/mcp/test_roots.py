"""The client's roots, as the server asks for them: only from a client that declared them and can be
asked, once per connection until it says they changed; only `file://` roots name a directory."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import anyio
from mcp_types import ClientCapabilities, ListRootsResult, Root, RootsCapability

from runs.mcp.roots import client_roots, local_path, roots_changed


class FakeSession:
    """What runs/mcp/roots.py reads of the SDK's per-request ServerSession."""

    def __init__(self, roots: list[str] | None, *, can_send: bool = True, answers: Any = None) -> None:
        self.client_capabilities = ClientCapabilities(roots=RootsCapability() if roots is not None else None)
        self.can_send_request = can_send
        self._connection = SimpleNamespace(state={})
        self.roots = roots or []
        self.asked = 0
        self.answers = answers

    async def send_request(self, request: Any, result_type: Any, **options: Any) -> ListRootsResult:
        self.asked += 1
        if self.answers is not None:
            raise self.answers
        return ListRootsResult(roots=[Root(uri=uri) for uri in self.roots])


def context_of(session: FakeSession) -> Any:
    return SimpleNamespace(request_context=SimpleNamespace(session=session, request_id=7))


def asked(session: FakeSession) -> tuple[str, ...]:
    return anyio.run(client_roots, context_of(session))


def test_file_uris_become_paths_and_other_uris_are_left_out():
    assert local_path("file:///home/me/my%20project") == "/home/me/my project"
    assert local_path("file://localhost/srv/app") == "/srv/app"
    assert local_path("https://example.com/repo") is None
    assert local_path("file://otherhost/share") is None


def test_roots_are_asked_once_per_connection_until_they_change():
    session = FakeSession(["file:///srv/shop", "file://otherhost/share"])
    assert asked(session) == ("/srv/shop",)
    assert asked(session) == ("/srv/shop",) and session.asked == 1
    session.roots = ["file:///srv/blog"]
    anyio.run(roots_changed, SimpleNamespace(session=session), None)
    assert asked(session) == ("/srv/blog",) and session.asked == 2


def test_a_client_without_roots_or_a_channel_is_not_asked():
    without = FakeSession(None)
    assert asked(without) == () and without.asked == 0
    no_channel = FakeSession(["file:///srv/shop"], can_send=False)
    assert asked(no_channel) == () and no_channel.asked == 0
    assert anyio.run(client_roots, None) == ()


def test_a_client_that_fails_to_answer_has_no_roots_and_is_not_asked_again():
    failing = FakeSession(["file:///srv/shop"], answers=RuntimeError("method not found"))
    assert asked(failing) == () and asked(failing) == ()
    assert failing.asked == 1
