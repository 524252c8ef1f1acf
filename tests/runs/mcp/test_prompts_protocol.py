"""Each workflow is offered as an MCP prompt: through the SDK's client and the server in this process, in
both protocol eras."""

from __future__ import annotations

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from tests.support.workflow_files import workflow_doc, write_json


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_client_lists_the_workflows_as_prompts_and_gets_one(mcp_server, tmp_path, mode):
    steps = [
        {"id": "size-it", "title": "Size it", "prompt": "Estimate the effort."},
        {"id": "split", "title": "Split", "prompt": "Split the work.", "runCondition": {"var": "effort", "gt": 3}},
    ]
    write_json(tmp_path / "flows" / "estimate.json", workflow_doc("team.estimate", name="Estimate", steps=steps))
    server = mcp_server.configure(WORKRAIL_WORKFLOW_PATHS=[tmp_path / "flows"])

    async def session():
        async with mcp_server.client(server, mode=mode) as client:
            prompts = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
            assert {"wr.evidence_first_bug_fix", "wr.code_review", "team.estimate"} <= set(prompts)
            assert "wr.routine-focused_plan" not in prompts
            estimate = prompts["team.estimate"]
            assert estimate.title == "Estimate"
            arguments = {argument.name: argument for argument in estimate.arguments}
            assert set(arguments) == {"task", "effort"}  # effort: read by the next step's condition
            assert "number" in arguments["effort"].description and not arguments["effort"].required
            got = await client.get_prompt("team.estimate", {"task": "Search page", "effort": "5"})
            text = got.messages[0].content.text
            assert '{"workflowId": "team.estimate", "context": {"task": "Search page", "effort": 5}}' in text
            with pytest.raises(MCPError) as raised:
                await client.get_prompt("team.estimate", {"colour": "red"})
            assert raised.value.error.data["error"]["code"] == "INVALID_INPUT"

    anyio.run(session)
