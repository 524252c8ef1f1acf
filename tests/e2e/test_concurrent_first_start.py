"""Several `manage.py mcp` started at the same moment on a new store all come up and serve calls.

Each server migrates its store at start-up; without runs/store/migration_lock.py the ones that lost the
race to create the tables failed their start-up, and every call they got answered INTERNAL_ERROR.
"""

from __future__ import annotations

import stat

from harness.processes import server_env
from harness.stdio import StdioServer

SERVERS = 4


def test_servers_started_together_on_a_new_store_all_serve(tmp_path):
    home = tmp_path / "home"
    env = server_env(home)
    servers = [StdioServer(env, tmp_path, tmp_path / "servers.log", timeout=60) for _ in range(SERVERS)]
    try:
        for server in servers:
            server.initialize()
        answers = [
            server.call(
                "start_workflow", {"workflowId": "wr.evidence_first_bug_fix", "context": {"ticketId": f"T-{n}"}}
            )
            for n, server in enumerate(servers)
        ]
    finally:
        for server in servers:
            server.close()

    log = (tmp_path / "servers.log").read_text()
    assert [answer.get("isError", False) for answer in answers] == [False] * SERVERS, log[-3000:]
    assert "already exists" not in log
    lock = home / "workrail.sqlite3.migrate-lock"
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600  # owner-only, like every file of the store
