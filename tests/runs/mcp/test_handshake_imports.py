"""`manage.py mcp` answers `initialize` without loading what only tools, resources, HTTP or the dashboard need.

Start-up is on the agent's critical path (runs/mcp/entry.py): the typed models behind the tools, the
interpreter and jsonschema, the dashboard's parts of Django and the HTTP transport load after the
handshake, on first use or on the start-up thread. An import added at the top of a module on the
handshake path would silently bring them back; this test names them.

A real `manage.py mcp` process is started with an audit hook that notes every module imported by any
thread but the start-up one (which is also held back, so it cannot import a module first and hide
that the handshake imports it too). It is sent `initialize`, answers it, and is killed.
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

from harness.processes import server_env
from harness.stdio import initialize_message
from tests.support.paths import REPO

PROBE = """
import sys, threading
sys.path.insert(0, {repo!r})
log = open({log!r}, "w", buffering=1)

def note(event, args):
    if event == "import" and threading.current_thread().name != "workrail-setup":
        log.write(args[0] + "\\n")

sys.addaudithook(note)
import manage
from runs.mcp import readiness

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


def handshake_imports(tmp_path: Path) -> set[str]:
    log = tmp_path / "imports.txt"
    probe = PROBE.format(repo=str(REPO), log=str(log))
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
        process.stdin.write((json.dumps(initialize_message()) + "\n").encode())
        process.stdin.flush()
        answer = _line(process.stdout.fileno(), deadline=time.monotonic() + 60)
    finally:
        os.kill(process.pid, signal.SIGKILL)  # the start-up thread is held back: no clean exit to wait for
        process.wait(timeout=30)
        process.stdin.close()
        process.stdout.close()
    assert json.loads(answer)["result"]["serverInfo"]["name"] == "workrail"
    return set(log.read_text(encoding="utf-8").split())


def _line(fd: int, deadline: float) -> bytes:
    received = b""
    while b"\n" not in received:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 1 << 16) if ready else b""
        assert chunk, f"no answer to initialize (read so far: {received!r})"
        received += chunk
    return received.split(b"\n", 1)[0]


def test_the_handshake_loads_none_of_the_deferred_modules(tmp_path):
    imported = handshake_imports(tmp_path)
    assert "mcp.server.lowlevel.server" in imported  # the probe sees the handshake's imports at all
    assert "runs.mcp.server" in imported
    brought_back = sorted(
        name for name in imported if any(name == heavy or name.startswith(f"{heavy}.") for heavy in DEFERRED)
    )
    assert brought_back == []
