"""Durable memory through the SDK's client and the MCP server in this process: a chat checkpoints and is
rewound; a brand new chat finds the run again."""

from __future__ import annotations

import anyio
import pytest

from tests.support.client_calls import acknowledged, started

ALL_ON = {"WORKRAIL_ENABLE_START_SESSION": True, "WORKRAIL_ENABLE_RESUME_SESSION": True}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_rewound_chat_and_a_new_chat_recover_the_work(mcp_server, mode):
    server = mcp_server.configure(**ALL_ON)

    async def first_chat() -> str:
        async with mcp_server.client(server, mode=mode) as client:
            start = await started(client, "wr.evidence_first_bug_fix", {"ticketId": "PAY-881"})
            done = await acknowledged(client, start, "Refund webhook retries twice on 502.")
            saved = await client.call_tool(
                "checkpoint_workflow",
                {
                    "stateToken": done["stateToken"],
                    "output": {"notesMarkdown": "Found the idempotency key is dropped by the proxy."},
                },
            )
            assert not saved.is_error, saved.content[0].text
            assert saved.structured_content["kind"] == "checkpoint"
            # The user rewinds the chat: all that is left is the very first stateToken.
            rewound = await client.call_tool("continue_workflow", {"stateToken": start["stateToken"]})
            text = rewound.content[0].text
            assert "Refund webhook retries twice on 502." in text
            assert "idempotency key is dropped by the proxy" in text
            return saved.structured_content["stateToken"]

    async def new_chat(expected_token: str) -> None:
        async with mcp_server.client(server, mode=mode) as client:
            found = await client.call_tool("resume_session", {"query": "refund webhook idempotency"})
            assert not found.is_error, found.content[0].text
            best = found.structured_content["candidates"][0]
            assert best["stateToken"] == expected_token  # the tip: the checkpoint node
            recap = await client.call_tool("continue_workflow", {"stateToken": best["stateToken"]})
            data = recap.structured_content
            assert data["pending"]["stepId"] == "reproduce-bug"
            moved = await client.call_tool(
                "continue_workflow",
                {
                    "stateToken": data["stateToken"],
                    "ackToken": data["ackToken"],
                    "output": {"notesMarkdown": "Reproduced with a failing integration test."},
                },
            )
            assert moved.structured_content["pending"]["stepId"] == "gather-evidence"
            notes = await client.call_tool("start_session", {"title": "Proxy notes", "sessionKey": "proxy"})
            token = notes.structured_content["sessionToken"]
            kept = await client.call_tool(
                "checkpoint_workflow",
                {"sessionToken": token, "output": {"notesMarkdown": "Proxy strips custom headers."}},
            )
            assert not kept.is_error, kept.content[0].text

    token = anyio.run(first_chat)
    anyio.run(new_chat, token)


def test_flags_off_hide_the_tools_and_refuse_calls(mcp_server):
    server = mcp_server.configure(WORKRAIL_ENABLE_CHECKPOINT=False, WORKRAIL_ENABLE_RESUME_SESSION=False)

    async def chat() -> None:
        async with mcp_server.client(server, mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == {"list_workflows", "inspect_workflow", "start_workflow", "continue_workflow"}
            for name, arguments in (
                ("checkpoint_workflow", {"stateToken": "st1_x", "output": {"notesMarkdown": "x"}}),
                ("start_session", {}),
                ("resume_session", {"query": "x"}),
            ):
                refused = await client.call_tool(name, arguments)
                assert refused.is_error
                assert refused.structured_content["error"]["code"] == "FEATURE_DISABLED"

    anyio.run(chat)


def test_modes_change_what_the_agent_is_told(mcp_server):
    server = mcp_server.configure()

    async def chat() -> None:
        async with mcp_server.client(server, mode="2026-07-28") as client:
            for mode, expected in (("guided", "blocked"), ("autopilot", "blocked"), ("unattended", "step")):
                start = (
                    await client.call_tool("start_workflow", {"workflowId": "wr.code_review", "mode": mode})
                ).structured_content
                assert start["mode"] == mode
                acked = await client.call_tool(
                    "continue_workflow",
                    {
                        "stateToken": start["stateToken"],
                        "ackToken": start["ackToken"],
                        "output": {"notesMarkdown": "Scope understood."},
                    },
                )
                assert acked.structured_content["kind"] == expected, mode
                if expected == "blocked":
                    assert acked.structured_content["blocked"]["issues"][0]["code"] == "USER_DEPENDENCY_UNMET"
                else:
                    assert "USER_DEPENDENCY_GAP" in [w["code"] for w in acked.structured_content["warnings"]]

    anyio.run(chat)


def test_by_default_a_new_chat_finds_the_run_returns_to_a_branch_and_pages_its_notes(mcp_server):
    server = mcp_server.configure()  # default flags: resume_session is on

    async def chat() -> None:
        async with mcp_server.client(server, mode="legacy") as client:
            start = await started(client, "wr.evidence_first_bug_fix", {"ticketId": "PAY-912"})
            tip = await acknowledged(client, start, "Intake: refunds are sent twice when the webhook retries.")
            found = await client.call_tool("resume_session", {"query": "PAY-912 duplicate refunds"})
            assert not found.is_error, found.content[0].text
            assert found.structured_content["candidates"][0]["stateToken"] == tip["stateToken"]

            rewound = await client.call_tool("continue_workflow", {"stateToken": start["stateToken"]})
            text = rewound.content[0].text
            assert f'to return to this branch: continue_workflow {{"stateToken": "{tip["stateToken"]}"}}' in text
            assert rewound.structured_content["branches"][0]["tipStateToken"] == tip["stateToken"]

            run_id = start["session"]["runId"]
            page = await client.read_resource(f"workrail://runs/{run_id}/notes?stateToken={tip['stateToken']}")
            notes = page.contents[0].text
            assert notes.startswith(f"# Notes of run {run_id}: entry 1 of 1\n")
            assert "\nIntake: refunds are sent twice" in notes

    anyio.run(chat)
