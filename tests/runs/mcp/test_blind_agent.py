"""An agent that copies nextCall.arguments unchanged, through the SDK's client and the server in this process: it never
completes a step that needs notes, and never gets past what only the user can give."""

from __future__ import annotations

import copy

import anyio
import pytest
from mcp import Client

from tests.support.paths import REPO

BUNDLED = sorted(p.stem for p in (REPO / "workflows_app" / "bundled").glob("*.json"))
COPIES = 4


async def copy_blindly(client: Client, answer: dict, times: int) -> list[dict]:
    answers = []
    for _ in range(times):
        result = await client.call_tool("continue_workflow", copy.deepcopy(answer["nextCall"]["arguments"]))
        assert not result.is_error, result.content[0].text
        answer = result.structured_content
        answers.append(answer)
    return answers


def test_copying_next_call_never_completes_a_step(mcp_server):
    async def session():
        async with mcp_server.client() as client:
            for workflow_id in BUNDLED:
                start = (await client.call_tool("start_workflow", {"workflowId": workflow_id})).structured_content
                assert start["pending"]["notesRequired"] or start["pending"]["outputContract"], workflow_id
                for answer in await copy_blindly(client, start, COPIES):
                    assert answer["kind"] == "blocked", workflow_id
                    assert answer["progress"]["completedSteps"] == 0
                    assert answer["pending"]["stepId"] == start["pending"]["stepId"]
                    assert "PLACEHOLDER_UNCHANGED" in {i["code"] for i in answer["blocked"]["issues"]}

    anyio.run(session)


@pytest.mark.parametrize("mode", ["guided", "autopilot"])
def test_copying_next_call_never_gets_past_a_user_only_dependency(mcp_server, mode):
    async def session():
        async with mcp_server.client() as client:
            start = (
                await client.call_tool(
                    "start_workflow",
                    {"workflowId": "wr.code_review", "context": {"reviewAreas": ["api"]}, "mode": mode},
                )
            ).structured_content
            assert start["pending"]["userDependencies"][0]["contextKey"] == "changeRef"
            # An agent that writes its own notes but copies the rest: the user is still never asked.
            arguments = copy.deepcopy(start["nextCall"]["arguments"])
            arguments["output"]["notesMarkdown"] = "Scoped the review to the API."
            answer = (await client.call_tool("continue_workflow", arguments)).structured_content
            for _ in range(COPIES):
                assert answer["kind"] == "blocked"
                assert [i["code"] for i in answer["blocked"]["issues"]] == ["USER_DEPENDENCY_UNMET"]
                assert answer["nextCall"]["arguments"]["context"]["changeRef"].startswith("<fill in from the user")
                arguments = copy.deepcopy(answer["nextCall"]["arguments"])
                arguments["output"]["notesMarkdown"] = "Scoped the review to the API."
                answer = (await client.call_tool("continue_workflow", arguments)).structured_content
            arguments = copy.deepcopy(answer["nextCall"]["arguments"])
            arguments["output"]["notesMarkdown"] = "Scoped the review to the API."
            arguments["context"]["changeRef"] = "MR !42"  # the user's real answer
            moved = (await client.call_tool("continue_workflow", arguments)).structured_content
            assert moved["kind"] == "step" and moved["progress"]["completedSteps"] == 1

    anyio.run(session)
