"""The product as a user installs it (issue 30): the wheel built from this checkout, installed into a
fresh virtualenv with requirements/runtime.txt alone (no dev tools, no Node), then its console script
`workrail-py` run from `/` as an MCP client launches it (the real `mcp` client: handshake and a whole
workflow), and `workrail-py dashboard` (every page 200, with its CSS and JS).

Slow (a build and an install: about half a minute, once per test session): marked `installed`, so
`pytest -m "not installed"` leaves it out.
"""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from harness.processes import clean_env, free_port
from tests.support.client_calls import structured
from tests.support.mcp_calls import notes_for
from tests.support.paths import REPO
from tests.support.processes import wait_until_answering

pytestmark = pytest.mark.installed

COMMAND = "workrail-py"
PLAN = "wr.routine-focused_plan"
DEV_ONLY = ["pytest", "ruff", "mypy", "playwright", "schemathesis", "hypothesis", "uv"]


def uv() -> str:
    return str(Path(sys.executable).parent / "uv")


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Path:
    """The bin/ directory of a fresh venv holding the runtime lock and the wheel, made once per session."""
    root = tmp_path_factory.mktemp("installed")
    dist = root / "dist"
    subprocess.run(
        [uv(), "build", "--wheel", "--quiet", "--python", sys.executable, "--out-dir", str(dist), str(REPO)], check=True
    )
    (wheel,) = dist.glob("workrail_py-*.whl")
    venv = root / "venv"
    subprocess.run([uv(), "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    python = str(venv / "bin" / "python")
    install = [uv(), "pip", "install", "--quiet", "--python", python]
    subprocess.run([*install, "--require-hashes", "-r", str(REPO / "requirements" / "runtime.txt")], check=True)
    subprocess.run([*install, "--no-deps", str(wheel)], check=True)
    return venv / "bin"


def test_the_install_holds_the_runtime_only(installed):
    present = subprocess.run(
        [
            str(installed / "python"),
            "-c",
            f"import importlib.util as u; print([m for m in {DEV_ONLY!r} if u.find_spec(m)])",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert present == "[]"
    version = subprocess.run([str(installed / COMMAND), "version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith(f"{COMMAND} ")


def test_the_installed_mcp_server_runs_a_whole_workflow_from_the_root_directory(installed, tmp_path):
    params = StdioServerParameters(
        command=str(installed / COMMAND), args=["mcp"], env=clean_env(WORKRAIL_HOME=str(tmp_path / "home")), cwd="/"
    )

    async def session() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            listing = await structured(client, "list_workflows", {"namespace": "wr"})
            assert PLAN in {workflow["id"] for workflow in listing["workflows"]}  # the bundled workflows
            answer = await structured(client, "start_workflow", {"workflowId": PLAN, "context": {"sessionKey": "W-1"}})
            steps = 0
            while not answer["isComplete"]:
                arguments = {
                    "stateToken": answer["stateToken"],
                    "ackToken": answer["ackToken"],
                    "output": notes_for(answer["pending"]),
                }
                answer = await structured(client, "continue_workflow", arguments)
                steps += 1
            assert answer["kind"] == "complete" and steps >= 2

    anyio.run(session)


@pytest.fixture
def dashboard(installed, tmp_path) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [str(installed / COMMAND), "dashboard", "--port", str(port)],
        env=clean_env(WORKRAIL_HOME=str(tmp_path / "home")),
        cwd="/",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until_answering(process, port, timeout=120)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.kill()
        process.communicate()


def fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read().decode("utf-8", "replace")


def test_the_installed_dashboard_serves_every_page_with_its_css_and_js(dashboard):
    pages = ["/", "/sessions/", "/workflows/", f"/workflows/{PLAN}/", "/timings/", "/connect/", "/admin/login/"]
    assets: set[str] = set()
    for page in pages:
        status, html = fetch(dashboard + page)
        assert status == 200, page
        found = re.findall(r'<(?:link[^>]+href|script[^>]+src)="(/static/[^"]+)"', html)
        assert found, f"{page} links no CSS or JS"
        assets.update(found)
    assert any(asset.endswith(".css") for asset in assets) and any(asset.endswith(".js") for asset in assets)
    for asset in sorted(assets):
        assert fetch(dashboard + asset)[0] == 200, asset
    status, connect = fetch(dashboard + "/connect/")
    # The installed command, not a manage.py that is not there (its name kept whole by a nowrap span).
    assert f"{COMMAND} mcp" in re.sub(r"<[^>]+>", "", connect)
