"""End to end: a project directory holding hostile `*.json` files (100,000-deep nesting, a FIFO, a
symlink to /dev/zero) does not take `manage.py mcp` down: tools/list, list_workflows and
start_workflow of a bundled workflow all answer normally, and each bad file is one warning."""

from __future__ import annotations

import contextlib
import os
import shlex
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.workflow_files import workflow_doc, write_json

DEEP = 100_000
# Address-space cap of the server (KiB), so that a regression reading /dev/zero without end dies
# with MemoryError instead of eating the machine's memory.
ADDRESS_SPACE_KIB = 8 * 1024 * 1024


def capped(params: StdioServerParameters) -> StdioServerParameters:
    command = " ".join(shlex.quote(part) for part in [params.command, *params.args])
    return params.model_copy(
        update={"command": "/bin/sh", "args": ["-c", f"ulimit -v {ADDRESS_SPACE_KIB} 2>/dev/null; exec {command}"]}
    )


def hostile_project(project: Path) -> Path:
    workflows = project / ".workrail" / "workflows"
    write_json(workflows / "good.json", workflow_doc("project.good"))
    (workflows / "deep.json").write_text("[" * DEEP + "]" * DEEP)
    os.mkfifo(workflows / "pipe.json")
    (workflows / "zero.json").symlink_to("/dev/zero")
    return workflows


def test_hostile_project_files_leave_every_tool_working(launch, tmp_path):
    workflows = hostile_project(tmp_path / "project")
    params = capped(launch(WORKRAIL_PROJECT_DIR=str(tmp_path / "project")))

    async def session():
        with anyio.fail_after(60):
            async with Client(params, read_timeout_seconds=20) as client:
                tools = {tool.name for tool in (await client.list_tools()).tools}
                assert {"list_workflows", "start_workflow", "continue_workflow"} <= tools

                for _ in range(2):  # the second listing comes from the cached catalog
                    listing = await client.call_tool("list_workflows", {})
                    assert not listing.is_error, listing.content
                    # deep.json cannot be read (an error), pipe.json and zero.json are skipped (warnings): counted,
                    # with the command that shows them, never with their paths.
                    problems = listing.structured_content["problems"]
                    assert (problems["errors"], problems["warnings"]) == (1, 2), problems
                    assert str(workflows) not in listing.content[0].text
                    listed = await client.call_tool("list_workflows", {"kind": "workflow"})
                    ids = {w["id"] for w in listed.structured_content["workflows"]}
                    assert {"project.good", "wr.code_review", "wr.evidence_first_bug_fix"} <= ids

                start = await client.call_tool("start_workflow", {"workflowId": "wr.evidence_first_bug_fix"})
                assert not start.is_error, start.content
                first = start.structured_content
                advanced = await client.call_tool(
                    "continue_workflow",
                    {
                        "stateToken": first["stateToken"],
                        "ackToken": first["ackToken"],
                        "output": {"notesMarkdown": "Problem statement written."},
                    },
                )
                assert not advanced.is_error, advanced.content
                mine = await client.call_tool("start_workflow", {"workflowId": "project.good"})
                assert not mine.is_error, mine.content

    try:
        anyio.run(session)
    finally:  # a regression stuck opening the FIFO is released, so the server can exit
        with contextlib.suppress(OSError):
            os.close(os.open(workflows / "pipe.json", os.O_WRONLY | os.O_NONBLOCK))
