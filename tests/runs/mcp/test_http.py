"""`manage.py mcp --http` before it serves: what it refuses to serve, the Host/Origin rule it gives the
SDK, and what several workers offer (tests/e2e/test_mcp_http.py drives the real server)."""

from __future__ import annotations

import socket
from unittest.mock import MagicMock

import pytest
from django.test import override_settings
from mcp.server.transport_security import TransportSecurityMiddleware
from starlette.requests import Request
from uvicorn.protocols.http.h11_impl import H11Protocol

from runs.mcp.http import BoundedH11Protocol, RefusedToServe, options_for
from runs.mcp.http_app import SUBSCRIPTION_METHODS, build_app
from runs.mcp.http_options import HttpOptions, is_loopback
from runs.mcp.server import WorkRailServer
from tests.support.processes import run_manage


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("10.0.0.5", False),
        ("workrail.example.com", False),
    ],
)
def test_loopback_is_told_apart(host, loopback):
    assert is_loopback(host) is loopback


def test_a_non_loopback_host_needs_allowed_hosts():
    with pytest.raises(RefusedToServe, match=r"Refusing to serve on --host 0\.0\.0\.0.*WORKRAIL_MCP_ALLOWED_HOSTS"):
        options_for("0.0.0.0", 8766, 1)
    with override_settings(WORKRAIL_MCP_ALLOWED_HOSTS=["workrail.example.com"]):
        assert options_for("0.0.0.0", 8766, 1).allowed_hosts == ("workrail.example.com",)


@pytest.mark.parametrize(("port", "workers"), [(0, 1), (70000, 1), (8766, 0), (8766, 65)])
def test_ports_and_worker_counts_out_of_range_are_refused(port, workers):
    with pytest.raises(RefusedToServe):
        options_for("127.0.0.1", port, workers)


def request(host: str, origin: str | None = None) -> Request:
    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin else [])
    return Request({"type": "http", "method": "POST", "path": "/mcp", "headers": headers})


async def status(options: HttpOptions, host: str, origin: str | None = None) -> int:
    refused = await TransportSecurityMiddleware(options.security()).validate_request(request(host, origin))
    return 200 if refused is None else refused.status_code


@pytest.mark.anyio
async def test_the_sdk_rule_allows_loopback_and_the_configured_names_only():
    loopback = HttpOptions()
    assert await status(loopback, "127.0.0.1:8766") == 200
    assert await status(loopback, "localhost:9999", "http://localhost:9999") == 200
    assert await status(loopback, "evil.test:8766") == 421
    assert await status(loopback, "127.0.0.1:8766", "https://evil.test") == 403
    team = HttpOptions(allowed_hosts=("workrail.example.com",), allowed_origins=("https://workrail.example.com",))
    assert await status(team, "workrail.example.com", "https://workrail.example.com") == 200
    assert await status(team, "workrail.example.com:443") == 200
    assert await status(team, "workrail.example.com", "https://evil.test") == 403


def test_several_workers_serve_statelessly_and_offer_no_subscriptions():
    one, several = WorkRailServer(), WorkRailServer()
    build_app(one, HttpOptions(workers=1))
    build_app(several, HttpOptions(workers=2))
    assert one._lowlevel_server.get_capabilities().resources.subscribe is True  # type: ignore[union-attr]
    capabilities = several._lowlevel_server.get_capabilities()
    assert capabilities.resources is not None and capabilities.resources.subscribe is False
    assert all(several._lowlevel_server.get_request_handler(method) is None for method in SUBSCRIPTION_METHODS)
    assert HttpOptions(workers=2).stateless and not HttpOptions(workers=1).stateless


def test_every_connection_has_nagles_algorithm_off():
    """A worker's connections come from a socket uvicorn's parent made, which asyncio leaves with Nagle on."""
    with socket.create_server(("127.0.0.1", 0)) as listening, socket.create_connection(listening.getsockname()):
        accepted, _ = listening.accept()
        with accepted, pytest.MonkeyPatch.context() as patch:
            accepted.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0)
            transport = MagicMock()
            transport.get_extra_info = lambda name, default=None: accepted if name == "socket" else default
            patch.setattr(H11Protocol, "connection_made", lambda self, transport: None)  # uvicorn's own part
            patch.setattr(BoundedH11Protocol, "_await_headers", lambda self: None)  # the header deadline's
            BoundedH11Protocol.__new__(BoundedH11Protocol).connection_made(transport)
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("setting", "value", "said"),
    [
        ("WORKRAIL_MCP_ALLOWED_HOSTS", "https://workrail.example.com", "is not a host name"),
        ("WORKRAIL_MCP_ALLOWED_HOSTS", "workrail.example.com/mcp", "is not a host name"),
        ("WORKRAIL_MCP_ALLOWED_ORIGINS", "workrail.example.com", "is not an origin"),
    ],
)
def test_a_malformed_allow_list_stops_the_program_at_start(tmp_path, setting, value, said):
    """A URL where a host name belongs would match no request: every request through the proxy would then be
    refused with advice to add what the operator believes was added. Refused at start instead."""
    result = run_manage(tmp_path, "check", **{setting: value})
    assert result.returncode == 2 and "configuration error" in result.stderr
    assert f"{setting}: {value!r} {said}" in result.stderr


def test_uvicorn_believes_no_proxy_unless_one_is_configured_and_waits_for_starting_workers():
    """Unset, no X-Forwarded-For is believed (a local process would choose the address its refusals are
    recorded from); and a worker gets more than uvicorn's 5 s to start on a loaded machine."""
    import inspect

    import uvicorn

    from runs.mcp.http import WORKER_HEALTHCHECK_S, server_options

    options = server_options("INFO")
    assert (options["proxy_headers"], options["forwarded_allow_ips"]) == (False, None)
    if "timeout_worker_healthcheck" in inspect.signature(uvicorn.Config).parameters:
        assert options["timeout_worker_healthcheck"] == WORKER_HEALTHCHECK_S >= 60
    with override_settings(WORKRAIL_MCP_FORWARDED_ALLOW_IPS="127.0.0.1"):
        behind_a_proxy = server_options("INFO")
    assert (behind_a_proxy["proxy_headers"], behind_a_proxy["forwarded_allow_ips"]) == (True, "127.0.0.1")
