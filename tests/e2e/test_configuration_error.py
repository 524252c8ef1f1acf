"""A server started with a bad environment answers, and every call says what to fix."""

from __future__ import annotations

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.shared.exceptions import MCPError


def test_every_call_returns_configuration_error_naming_the_variable(launch):
    params = launch(WORKRAIL_ENABLE_CHECKPOINTS="1")  # a typo of WORKRAIL_ENABLE_CHECKPOINT

    async def session():
        async with Client(params, read_timeout_seconds=30) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert {"list_workflows", "start_workflow", "continue_workflow"} <= set(tools)
            for name, arguments in [
                ("list_workflows", {}),
                ("start_workflow", {"workflowId": "wr.evidence_first_bug_fix"}),
                ("continue_workflow", {"stateToken": "st1_AAAAAAAAAAAAAAAAAAAAAAAA"}),
            ]:
                answer = await client.call_tool(name, arguments)
                assert answer.is_error
                error = answer.structured_content["error"]
                assert error["code"] == "CONFIGURATION_ERROR"
                assert "WORKRAIL_ENABLE_CHECKPOINTS (did you mean WORKRAIL_ENABLE_CHECKPOINT?)" in error["message"]
                assert "restart" in error["suggestion"]
                Draft202012Validator(tools[name].output_schema).validate(answer.structured_content)
            with pytest.raises(MCPError) as raised:
                await client.read_resource("workrail://workflows")
            assert raised.value.error.data["error"]["code"] == "CONFIGURATION_ERROR"

    anyio.run(session)
