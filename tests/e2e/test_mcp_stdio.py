"""End to end: the real `mcp` client launches `manage.py mcp` as a subprocess and talks over stdio."""

from __future__ import annotations

import json
import sqlite3

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client

from harness.processes import server_env
from harness.stdio import INITIALIZED, initialize_message, spawn_mcp
from tests.support.client_calls import DEFAULT_TOOLS
from tests.support.corpus import CORPUS_WORKFLOWS, corpus_available
from tests.support.paths import FIXTURE_WORKFLOWS
from tests.support.workflow_files import workflow_doc, write_json

MODES = ["legacy", "2026-07-28"]  # the initialize handshake (2025-11-25) and the stateless era


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


@pytest.mark.parametrize("mode", MODES)
def test_an_agent_lists_and_inspects_real_workflows(launch, tmp_path, corpus_dir, mode):
    write_json(tmp_path / ".workrail" / "workflows" / "mine.json", workflow_doc("project.mine"))
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "bad.json").write_text('{"id": "team.bad",')
    write_json(tmp_path / "broken" / "evil.json", workflow_doc("wr.evil"))
    params = launch(WORKRAIL_WORKFLOW_PATHS=f"{corpus_dir}:{tmp_path / 'broken'}")
    corpus_ids = {json.loads(p.read_text())["id"] for p in corpus_dir.rglob("*.json")}

    async def session():
        async with Client(params, mode=mode, read_timeout_seconds=30) as client:
            expected_version = "2025-11-25" if mode == "legacy" else mode
            assert client.protocol_version == expected_version

            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == DEFAULT_TOOLS  # start_session is off by default; resume_session is on
            for tool in (tools["list_workflows"], tools["inspect_workflow"]):
                assert tool.annotations.read_only_hint is True
                assert tool.annotations.destructive_hint is False
                assert tool.annotations.idempotent_hint is True
                assert tool.annotations.open_world_hint is False
                assert tool.output_schema and tool.input_schema

            listing = await client.call_tool("list_workflows", {})
            assert not listing.is_error
            data = listing.structured_content
            Draft202012Validator(tools["list_workflows"].output_schema).validate(data)
            assert data["workflows"] == [] and data["overview"]["tags"]  # the overview; lists come filtered
            assert data["problems"]["errors"] >= 2 and data["problems"]["warnings"] >= 1  # JSON, wr.evil; LEGACY_ID
            assert listing.content[0].text.startswith(f"{data['count']} workflows and routines")
            listed = []
            for kind in ("workflow", "routine"):
                part = await client.call_tool("list_workflows", {"kind": kind, "includeExamples": True})
                Draft202012Validator(tools["list_workflows"].output_schema).validate(part.structured_content)
                listed += part.structured_content["workflows"]
            ids = {w["id"] for w in listed}
            assert corpus_ids <= ids
            assert {"project.mine", "wr.evidence_first_bug_fix", "wr.code_review"} <= ids
            assert "wr.evil" not in ids
            sources = {w["id"]: w["source"]["kind"] for w in listed}
            assert sources["project.mine"] == "project"

            details = await client.call_tool(
                "inspect_workflow", {"workflowId": "workrail.relocation-us", "mode": "preview"}
            )
            assert not details.is_error
            Draft202012Validator(tools["inspect_workflow"].output_schema).validate(details.structured_content)
            assert details.structured_content["workflow"]["stepCount"] == 9

            missing = await client.call_tool("inspect_workflow", {"workflowId": "nope.nothing"})
            assert missing.is_error
            assert missing.structured_content["error"]["code"] == "WORKFLOW_NOT_FOUND"
            assert "list_workflows" in missing.content[0].text

            malformed = await client.call_tool("inspect_workflow", {"mode": 3})
            assert malformed.is_error
            assert malformed.structured_content["error"]["code"] == "INVALID_INPUT"

    run(session)


def test_stdout_carries_only_json_rpc_and_stdin_eof_ends_the_server(tmp_path):
    # Many files to load and log about (at DEBUG): our fixtures always, the corpus when it is there.
    workflow_paths = [FIXTURE_WORKFLOWS, *([CORPUS_WORKFLOWS] if corpus_available() else [])]
    messages = [
        initialize_message(client="raw-test"),
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "list_workflows", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "no_such_tool", "arguments": {}},
        },
    ]
    # stderr to a file: at DEBUG it outgrows a pipe's buffer, and a server blocked writing its log would
    # never read the next request.
    log = (tmp_path / "stderr.log").open("wb")
    env = server_env(
        tmp_path / "home",
        WORKRAIL_WORKFLOW_PATHS=":".join(str(path) for path in workflow_paths),
        WORKRAIL_LOG_LEVEL="DEBUG",
    )
    process = spawn_mcp(env, tmp_path, log)
    assert process.stdin is not None and process.stdout is not None
    responses = []
    for message in messages:
        process.stdin.write((json.dumps(message) + "\n").encode())
        process.stdin.flush()
        if "id" in message:
            line = process.stdout.readline()
            responses.append(json.loads(line))
    process.stdin.close()  # the client goes away
    returncode = process.wait(timeout=120)  # a clean exit; bench/stdio_shutdown.py measures how soon
    rest = process.stdout.read().decode()
    log.close()
    stderr = (tmp_path / "stderr.log").read_text(errors="replace")

    assert returncode == 0, stderr
    assert rest == ""  # nothing after the last answer: no stray prints, no banners
    assert [r["id"] for r in responses] == [1, 2, 3, 4]
    assert all(r["jsonrpc"] == "2.0" for r in responses)
    assert responses[0]["result"]["serverInfo"]["name"] == "workrail"
    assert responses[2]["result"]["isError"] is False
    assert responses[3]["result"]["isError"] is True
    assert responses[3]["result"]["structuredContent"]["error"]["code"] == "INVALID_INPUT"
    # It migrated its own database on first launch (migrations log to stderr, never stdout).
    tables = (
        sqlite3.connect(tmp_path / "home" / "workrail.sqlite3")
        .execute("SELECT count(*) FROM django_migrations")
        .fetchone()[0]
    )
    assert tables > 0


@pytest.mark.parametrize("mode", MODES)
def test_replays_rewinds_and_bad_tokens_over_stdio(launch, mode):
    params = launch()

    async def session():
        async with Client(params, mode=mode, read_timeout_seconds=30) as client:
            start = await client.call_tool("start_workflow", {"workflowId": "wr.evidence_first_bug_fix"})
            first = start.structured_content
            ack = {
                "stateToken": first["stateToken"],
                "ackToken": first["ackToken"],
                "output": {"notesMarkdown": "Problem statement written."},
            }
            advanced = await client.call_tool("continue_workflow", ack)
            replayed = await client.call_tool("continue_workflow", ack)
            assert replayed.structured_content == advanced.structured_content
            assert replayed.content[0].text == advanced.content[0].text

            rewound = await client.call_tool("continue_workflow", {"stateToken": first["stateToken"]})
            fork = rewound.structured_content
            assert fork["branches"][0]["completedStepId"] == "triage-report"
            assert "Problem statement written." in rewound.content[0].text
            forked = await client.call_tool(
                "continue_workflow",
                {
                    "stateToken": first["stateToken"],
                    "ackToken": fork["ackToken"],
                    "output": {"notesMarkdown": "Another take on the problem."},
                },
            )
            assert forked.structured_content["stateToken"] != advanced.structured_content["stateToken"]

            token = first["stateToken"]
            tampered = token[:-1] + ("A" if token[-1] != "A" else "B")
            bad = await client.call_tool("continue_workflow", {"stateToken": tampered})
            assert bad.is_error
            assert bad.structured_content["error"]["code"] == "TOKEN_BAD_SIGNATURE"
            wrapped = await client.call_tool("continue_workflow", {"stateToken": f"`{token}` "})
            assert not wrapped.is_error

    run(session)
