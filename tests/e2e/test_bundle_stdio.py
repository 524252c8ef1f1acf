"""A session moves between two machines: exported with the command on one, imported with the command
on another that has never seen its workflow file, and carried on there by a real MCP client."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import anyio
from mcp import Client

from harness.processes import manage_command, run_captured, server_env
from tests.e2e.mcp_clients import server_parameters
from tests.plugins.store_template import seed_home
from tests.support.client_calls import acknowledged, started
from tests.support.paths import FIXTURE_WORKFLOWS, REPO

FIXTURE = FIXTURE_WORKFLOWS / "step_fields.json"
ON = {"WORKRAIL_ENABLE_RESUME_SESSION": "1"}


def machine(root: Path, **extra: str) -> dict[str, str]:
    return server_env(root / "home", WORKRAIL_PROJECT_DIR=str(root / "project"), **ON, **extra)


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_captured(manage_command(*args), env=env, cwd=REPO, timeout=120)


def test_a_session_exported_on_one_machine_goes_on_on_another(tmp_path, migrated_store):
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    seed_home(mine / "home", migrated_store)  # an up-to-date store; theirs is new: the import migrates it
    workflows = mine / "project" / ".workrail" / "workflows"
    workflows.mkdir(parents=True)
    (theirs / "project").mkdir(parents=True)
    shutil.copy(FIXTURE, workflows / FIXTURE.name)
    bundle = tmp_path / "session.workrail-bundle.json"

    async def work_on_my_machine() -> tuple[str, str]:
        async with Client(server_parameters(machine(mine), mine), read_timeout_seconds=60) as client:
            start = await started(client, "fixture.step_fields", {"sessionKey": "NIGHTLY-7"})
            moved = await acknowledged(client, start, "The first error is a timeout in the cache warmer.")
            return moved["session"]["sessionId"], moved["stateToken"]

    session_id, my_token = anyio.run(work_on_my_machine)
    exported = manage(machine(mine), "export_session", session_id, "--output", str(bundle))
    assert exported.returncode == 0, exported.stderr
    imported = manage(machine(theirs), "import_bundle", str(bundle))
    assert imported.returncode == 0, imported.stderr
    assert f"Imported session {session_id}" in imported.stdout

    async def carry_on_on_their_machine() -> None:
        async with Client(server_parameters(machine(theirs), theirs), read_timeout_seconds=60) as client:
            foreign = await client.call_tool("continue_workflow", {"stateToken": my_token})
            assert foreign.is_error and foreign.structured_content["error"]["code"] == "TOKEN_BAD_SIGNATURE"
            found = (await client.call_tool("resume_session", {"query": "NIGHTLY-7"})).structured_content
            [candidate] = [c for c in found["candidates"] if c["sessionId"] == session_id]
            answer = (
                await client.call_tool("continue_workflow", {"stateToken": candidate["stateToken"]})
            ).structured_content
            assert answer["pending"]["stepId"] == "locate-cause"
            assert "timeout in the cache warmer" in str(answer)
            # locate-cause, then the virtual steps the workflow's audit and verification add, then rerun-job.
            notes = iter(["Commit abc broke the warmer."] + ["Checked; the smoke target passes."] * 5)
            while not answer["isComplete"]:
                result = await client.call_tool(
                    "continue_workflow",
                    {
                        "stateToken": answer["stateToken"],
                        "ackToken": answer["ackToken"],
                        "output": {"notesMarkdown": next(notes)},
                    },
                )
                assert not result.is_error, result.content[0].text
                answer = result.structured_content
                assert answer["kind"] != "blocked", answer["blocked"]
            assert answer["isComplete"] is True

    anyio.run(carry_on_on_their_machine)
    again = manage(machine(theirs), "import_bundle", str(bundle))  # its session is there already
    assert again.returncode != 0 and "[BUNDLE_ALREADY_IMPORTED]" in again.stderr and session_id in again.stderr
    copy = manage(machine(theirs), "import_bundle", "--copy", str(bundle))
    assert copy.returncode == 0 and "new ids" in copy.stdout
