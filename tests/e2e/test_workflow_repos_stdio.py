"""End to end: `manage.py mcp` with a workflow repository it never pinned answers the handshake at once,
fetches and pins the repository on its set-up thread, and then lists and starts its workflows."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
from mcp import Client

from tests.support.client_calls import started, structured
from tests.support.git_repos import BareRepo
from tests.support.workflow_files import workflow_doc


def test_the_server_pins_a_new_repository_after_start_up_and_runs_its_workflows(launch, tmp_path):
    origin = BareRepo(tmp_path / "remotes", "team")
    commit = origin.commit({"workflows/release.json": workflow_doc("team.release", name="Release")})
    params = launch(WORKRAIL_WORKFLOW_REPOS=f"{origin.url}#main:workflows")

    async def session():
        with anyio.fail_after(90):
            async with Client(params, read_timeout_seconds=30) as client:
                while True:  # the fetch runs beside the session; until it is done, a warning says so
                    listing = await structured(client, "list_workflows", {"namespace": "team"})
                    found = [w for w in listing["workflows"] if w["id"] == "team.release"]
                    if found:
                        break
                    assert listing["problems"]["notLoaded"] == ["team"]  # REPO_NOT_SYNCED, until the fetch is done
                    await anyio.sleep(0.2)
                assert found[0]["source"]["repository"]["commit"] == commit
                answer = await started(client, "team.release", {})
                assert answer["pending"]["stepId"] == "first-step"

    anyio.run(session)
    pins = json.loads((Path(params.env["WORKRAIL_HOME"]) / "workflow-repos" / "pins.json").read_text())
    assert [entry["commit"] for entry in pins["repositories"].values()] == [commit]
