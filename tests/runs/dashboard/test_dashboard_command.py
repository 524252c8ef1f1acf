"""`manage.py dashboard` (what `make run` starts): a busy port fails first, then the connect block, then
waitress serves the site, static files included, on 127.0.0.1 only."""

import contextlib
import http.client
import io
import json
import os
import re
import signal
import socket
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from harness.processes import free_port
from runs.management.commands import dashboard
from tests.support.processes import run_manage, running_dashboard


@contextlib.contextmanager
def busy_port() -> Iterator[int]:
    """A port some other program is listening on, on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def run_dashboard(tmp_path, *args, **env):
    return run_manage(tmp_path, "dashboard", *args, **env)


@pytest.mark.subprocess
@pytest.mark.parametrize("how", ["WORKRAIL_PORT", "--port"])
def test_a_busy_port_is_one_clear_error_before_anything_is_printed(tmp_path, how):
    with busy_port() as port:
        if how == "--port":
            result = run_dashboard(tmp_path, "--port", str(port))
        else:
            result = run_dashboard(tmp_path, WORKRAIL_PORT=str(port))
    assert result.returncode != 0
    assert result.stdout == ""  # no connect block, no dashboard URL
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert f"Port {port} on 127.0.0.1 is already in use" in lines[0]
    assert "WORKRAIL_PORT" in lines[0] and "--port" in lines[0]
    assert "Traceback" not in result.stderr


def test_the_port_check_raises_a_command_error_and_the_server_never_starts(monkeypatch):
    started = []
    monkeypatch.setattr(dashboard, "serve", started.append)
    out = io.StringIO()
    with busy_port() as port, pytest.raises(CommandError, match=rf"Port {port} .*WORKRAIL_PORT"):
        call_command("dashboard", port=port, stdout=out)
    assert out.getvalue() == ""
    assert started == []


def test_an_invalid_port_is_refused_before_binding():
    with pytest.raises(CommandError, match="Port 70000 is not a valid port"):
        dashboard.check_port_free(70000)


@pytest.mark.django_db  # the command prepares the store (pending migrations) before it serves
def test_a_free_port_prints_the_connect_block_with_the_data_directory_and_serves_on_loopback(
    settings, tmp_path, monkeypatch
):
    started = []
    monkeypatch.setattr(dashboard, "serve", started.append)
    settings.WORKRAIL_HOME = tmp_path / "elsewhere"
    settings.DATABASE_URL_SECRET = ""
    settings.WORKRAIL_WORKFLOW_PATHS = []
    port = free_port()
    out = io.StringIO()
    call_command("dashboard", port=port, stdout=out)
    text = out.getvalue()
    assert f"http://127.0.0.1:{port}/" in text
    assert f"claude mcp add workrail -e WORKRAIL_HOME={tmp_path / 'elsewhere'} -- " in text
    block = re.search(r"^\{.*^\}$", text, flags=re.MULTILINE | re.DOTALL)
    assert block is not None
    assert json.loads(block.group(0))["mcpServers"]["workrail"]["env"] == {"WORKRAIL_HOME": str(tmp_path / "elsewhere")}
    assert started == [port]


@pytest.mark.django_db  # the command prepares the store (pending migrations) before it serves
def test_the_terminal_gets_the_database_password_with_a_warning(settings, tmp_path, monkeypatch):
    monkeypatch.setattr(dashboard, "serve", lambda port: None)
    settings.DATABASE_URL_SECRET = "postgres://workrail:s3cret@db.local/workrail"
    out = io.StringIO()
    call_command("dashboard", port=free_port(), stdout=out)
    text = out.getvalue()
    assert "-e DATABASE_URL=postgres://workrail:s3cret@db.local/workrail" in text
    assert "DATABASE_URL may contain a password" in text


def test_losing_the_port_after_the_check_is_the_same_clear_error(monkeypatch):
    with busy_port() as port, pytest.raises(CommandError, match=rf"Port {port} on 127.0.0.1 cannot be used"):
        dashboard.make_server(port)


# --- The real server, as `make run` starts it -------------------------------------------------------


def request(port: int, path: str, host: str | None = None) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}"})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def listening_addresses(port: int) -> set[str]:
    """Local addresses of the LISTEN sockets on `port` (Linux /proc/net), as hex as the kernel writes them."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(FileNotFoundError), open(table) as lines:
            for line in list(lines)[1:]:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.rsplit(":", 1)
                if state == "0A" and int(hex_port, 16) == port:
                    found.add(address)
    return found


def refuses(address: tuple[str, int], family: int = socket.AF_INET) -> bool:
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.settimeout(2)
        try:
            probe.connect(address)
        except OSError:
            return True
        return False


@pytest.fixture
def served_dashboard(tmp_path, migrated_home):
    with running_dashboard(tmp_path) as (process, port):
        yield process, port


@pytest.mark.subprocess
def test_the_dashboard_is_served_by_waitress_with_static_files_on_loopback_only(served_dashboard):
    process, port = served_dashboard

    home = request(port, "/")
    assert home.status == 200
    server = home.getheader("Server")
    assert server == "workrail", server  # waitress with our ident; runserver says "WSGIServer/0.2 CPython/..."
    assert "Content-Security-Policy" in home.headers

    css = request(port, "/static/admin/css/base.css")  # DEBUG is off: WhiteNoise, no collectstatic
    assert css.status == 200
    assert css.getheader("Content-Type", "").startswith("text/css")
    assert request(port, "/static/admin/css/missing.css").status == 404
    assert request(port, "/", host="evil.example").status == 400

    if os.path.exists("/proc/net/tcp"):
        assert listening_addresses(port) == {"0100007F"}  # 127.0.0.1, and nothing on IPv6 or 0.0.0.0
    assert refuses(("127.0.0.2", port))  # another loopback address: not bound
    if socket.has_ipv6:
        assert refuses(("::1", port), socket.AF_INET6)

    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=15)
    assert process.returncode == 0, err
    assert f"WorkRail dashboard: http://127.0.0.1:{port}/" in out
    assert "claude mcp add workrail" in out
    # The refused Host is one line in the log, not a traceback (workrail_site/log_filters.py).
    assert "Traceback" not in err and err.count("Invalid HTTP_HOST header: 'evil.example'") == 1, err
    assert "runserver" not in out + err and "development server" not in out + err
    assert refuses(("127.0.0.1", port))  # the listening socket is closed


@pytest.mark.subprocess
def test_ctrl_c_stops_the_dashboard_cleanly(served_dashboard):
    process, _port = served_dashboard
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=15)
    assert process.returncode == 0, err
    assert "Traceback" not in err
