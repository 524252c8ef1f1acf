"""`manage.py mcp` answers `initialize` without loading what only tools, resources, HTTP or the dashboard
need, and never loads what only the dashboard and the HTTP API need.

Start-up is on the agent's critical path (runs/mcp/entry.py): the typed models behind the tools, the
interpreter and jsonschema, the dashboard's parts of Django and the HTTP transport load after the
handshake, on first use or on the start-up thread. An import added at the top of a module on the
handshake path would silently bring them back; these tests name them. The server's memory is the
other reason: the apps that serve only the web (runs/mcp/readiness.py) stay out of it for good.

A real `manage.py mcp` process is started with an audit hook that notes every module imported (for
the handshake: by any thread but the start-up one, which is also held back, so it cannot import a
module first and hide that the handshake imports it too), is sent requests, answers them, and is killed.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness.processes import server_env
from harness.stdio import initialize_message
from tests.support.paths import REPO

PROBE = """
import sys, threading
sys.path.insert(0, {repo!r})
log = open({log!r}, "w", buffering=1)
handshake_only = {handshake_only!r}

def note(event, args):
    if event == "import" and not (handshake_only and threading.current_thread().name == "workrail-setup"):
        log.write(args[0] + "\\n")

sys.addaudithook(note)
import manage
from runs.mcp import readiness

if handshake_only:
    readiness.HANDSHAKE_HEAD_START_S = 3600  # Django's set-up waits: only the handshake's imports are noted
sys.argv = ["manage.py", "mcp"]
manage.main()
"""

DEFERRED = {
    # our typed models, the tool registry and the use cases (runs/mcp/deferred.py)
    "runs.mcp.tool_spec",
    "runs.mcp.tools",
    "runs.mcp.services",
    "runs.contract.schema",
    "runs.contract.features",
    "runs.models",
    "runs.execution",
    "runs.readmodels.resources",
    # the interpreter and what it validates with (workflows_app/engine/__init__.py loads it on first use)
    "workflows_app.engine.interpreter",
    "workflows_app.loader",
    "jsonschema",
    "jsonschema_rs",
    # Django beyond its settings: the app registry's models, templates, forms, the admin
    "django.db.models",
    "django.template",
    "django.forms",
    "django.contrib",
    "django.utils.html",
    "ninja",
    # what the dashboard, reports and bundles need
    "runs.dashboard",
    "runs.api",
    "exports",
    "weasyprint",
    "markdown_it",
    "nh3",
    # the HTTP transport is started by `manage.py mcp --http` only
    "runs.mcp.http",
    # the SDK's rich log handler, which logging.basicConfig would discard (runs/mcp/server.py)
    "rich",
}

WEB_ONLY = {
    "ninja",  # and through its settings module, Django's test framework
    "django.test",
    "unittest",
    "django.contrib.staticfiles",
    "runs.admin",  # the admin's autodiscovery: every app's admin.py
    "django.contrib.auth.admin",
    "axes.admin",
    "runs.dashboard",
    "runs.api",
    "runs.mcp.http",
    "weasyprint",
    "rich",
}


def imports_answering(tmp_path: Path, *, handshake_only: bool, calls: list[dict[str, Any]] = ()) -> set[str]:
    """The modules a `manage.py mcp` imported by the time it answered `initialize` and then `calls`
    (tools/call params), one after the other."""
    log = tmp_path / "imports.txt"
    probe = PROBE.format(repo=str(REPO), log=str(log), handshake_only=handshake_only)
    env = server_env(tmp_path / "home", DJANGO_SETTINGS_MODULE="workrail_site.settings")
    process = subprocess.Popen(
        [sys.executable, "-c", probe],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        deadline = time.monotonic() + 120
        process.stdin.write((json.dumps(initialize_message()) + "\n").encode())
        process.stdin.flush()
        answer = _line(process.stdout.fileno(), deadline)
        for number, params in enumerate(calls, start=2):
            call = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}
            process.stdin.write((json.dumps(call) + "\n").encode())
            process.stdin.flush()
            called = json.loads(_line(process.stdout.fileno(), deadline))
            assert called["id"] == number and not called["result"].get("isError"), called
    finally:
        os.kill(process.pid, signal.SIGKILL)  # the start-up thread may be held back: no clean exit to wait for
        process.wait(timeout=30)
        process.stdin.close()
        process.stdout.close()
    assert json.loads(answer)["result"]["serverInfo"]["name"] == "workrail"
    return set(log.read_text(encoding="utf-8").split())


def _line(fd: int, deadline: float) -> bytes:
    """One line of stdout (the server writes one answer at a time here: nothing follows it unasked)."""
    received = b""
    while not received.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 1) if ready else b""
        assert chunk, f"no answer (read so far: {received!r})"
        received += chunk
    return received


def among(imported: set[str], packages: set[str]) -> list[str]:
    return sorted(name for name in imported if any(name == top or name.startswith(f"{top}.") for top in packages))


@pytest.mark.subprocess
def test_the_handshake_loads_none_of_the_deferred_modules(tmp_path):
    imported = imports_answering(tmp_path, handshake_only=True)
    assert "mcp.server.lowlevel.server" in imported  # the probe sees the handshake's imports at all
    assert "runs.mcp.server" in imported
    assert among(imported, DEFERRED) == []


@pytest.mark.subprocess
def test_a_working_server_never_loads_what_only_the_web_needs(tmp_path):
    calls = [
        {"name": "list_workflows", "arguments": {}},
        {"name": "start_workflow", "arguments": {"workflowId": "wr.change_in_slices"}},  # waits for the store
    ]
    imported = imports_answering(tmp_path, handshake_only=False, calls=calls)
    assert "runs.execution.start" in imported  # the probe sees the start-up thread's imports
    assert "django.contrib.admin.sites" in imported  # its tables are the store's: the app stays
    assert among(imported, WEB_ONLY) == []
