"""`manage.py dashboard` (what `make run` starts): a busy port fails first, then the connect block."""

import contextlib
import io
import json
import re
import socket
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.management.commands import dashboard
from tests.helpers import run_manage


@contextlib.contextmanager
def busy_port() -> Iterator[int]:
    """A port some other program is listening on, on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_dashboard(tmp_path, *args, **env):
    return run_manage(tmp_path, "dashboard", *args, **env)


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
    monkeypatch.setattr(dashboard, "call_command", lambda *args, **kwargs: started.append(args))
    out = io.StringIO()
    with busy_port() as port, pytest.raises(CommandError, match=rf"Port {port} .*WORKRAIL_PORT"):
        call_command("dashboard", port=port, stdout=out)
    assert out.getvalue() == ""
    assert started == []


def test_an_invalid_port_is_refused_before_binding():
    with pytest.raises(CommandError, match="Port 70000 is not a valid port"):
        dashboard.check_port_free(70000)


def test_a_free_port_prints_the_connect_block_with_the_data_directory_and_serves_on_loopback(
    settings, tmp_path, monkeypatch
):
    started = []
    monkeypatch.setattr(dashboard, "call_command", lambda *args, **kwargs: started.append((args, kwargs)))
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
    assert started == [(("runserver", f"127.0.0.1:{port}"), {"use_reloader": False})]


def test_the_terminal_gets_the_database_password_with_a_warning(settings, tmp_path, monkeypatch):
    monkeypatch.setattr(dashboard, "call_command", lambda *args, **kwargs: None)
    settings.DATABASE_URL_SECRET = "postgres://workrail:s3cret@db.local/workrail"
    out = io.StringIO()
    call_command("dashboard", port=free_port(), stdout=out)
    text = out.getvalue()
    assert "-e DATABASE_URL=postgres://workrail:s3cret@db.local/workrail" in text
    assert "DATABASE_URL may contain a password" in text
