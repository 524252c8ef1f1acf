"""Each workflow is offered as an MCP prompt, over stdio with the Python client in both protocol eras."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.support.workflow_files import workflow_doc, write_json

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_client_lists_the_workflows_as_prompts_and_gets_one(launch, tmp_path, mode):
    steps = [
        {"id": "size-it", "title": "Size it", "prompt": "Estimate the effort."},
        {"id": "split", "title": "Split", "prompt": "Split the work.", "runCondition": {"var": "effort", "gt": 3}},
    ]
    write_json(tmp_path / "flows" / "estimate.json", workflow_doc("team.estimate", name="Estimate", steps=steps))
    params = launch(WORKRAIL_WORKFLOW_PATHS=str(tmp_path / "flows"))

    async def session():
        async with Client(params, mode=mode, read_timeout_seconds=30) as client:
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
