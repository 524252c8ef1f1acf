"""End to end: a real MCP server records its tool calls for the dashboard's timings page."""

from __future__ import annotations

import sqlite3
import time

import anyio
from mcp import Client


def test_the_server_records_each_tool_call_within_a_few_seconds(launch, tmp_path):
    params = launch()

    async def session() -> None:
        async with Client(params, read_timeout_seconds=30) as client:
            await client.call_tool("list_workflows", {})
            await client.call_tool("continue_workflow", {"stateToken": "st1_nope"})
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if len(_rows(tmp_path)) >= 2:
                    break
                await anyio.sleep(0.2)

    anyio.run(session)
    assert _rows(tmp_path) == [("list_workflows", "ok"), ("continue_workflow", "TOKEN_MALFORMED")]


def _rows(tmp_path) -> list[tuple[str, str]]:
    database = tmp_path / "home" / "workrail.sqlite3"
    if not database.exists():
        return []
    with sqlite3.connect(database) as connection:
        try:
            return connection.execute("SELECT tool, outcome FROM runs_toolcall ORDER BY id").fetchall()
        except sqlite3.OperationalError:  # the migration has not run yet
            return []
