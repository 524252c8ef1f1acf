"""End to end: `manage.py mcp --http` with a workflow repository it never pinned starts serving at once,
fetches and pins the repository beside the requests (as the stdio server does on its set-up thread), and
then lists and starts its workflows for an agent with a token."""

from __future__ import annotations

import anyio

from harness.http_server import HttpServer, create_token
from harness.processes import server_env
from tests.e2e.mcp_clients import http_client
from tests.support.client_calls import started, structured
from tests.support.git_repos import BareRepo
from tests.support.workflow_files import workflow_doc


def test_the_http_server_pins_a_new_repository_after_start_up(tmp_path):
    origin = BareRepo(tmp_path / "remotes", "team")
    commit = origin.commit({"workflows/release.json": workflow_doc("team.release", name="Release")})
    env = server_env(tmp_path / "home", WORKRAIL_WORKFLOW_REPOS=f"{origin.url}#main:workflows")
    token = create_token(env, tmp_path, "alice")
    server = HttpServer(env, tmp_path, tmp_path / "server.log")

    async def session() -> None:
        with anyio.fail_after(90):
            async with http_client(server.url, token) as client:
                while True:
                    listing = await structured(client, "list_workflows", {"namespace": "team"})
                    found = [w for w in listing["workflows"] if w["id"] == "team.release"]
                    if found:
                        break
                    await anyio.sleep(0.2)
                assert found[0]["source"]["repository"]["commit"] == commit
                answer = await started(client, "team.release", {})
                assert answer["pending"]["stepId"] == "first-step"

    try:
        anyio.run(session)
    finally:
        server.close()
