"""A scripted agent that knows nothing about workflows: it does what each response says.

It sends the arguments of `nextCall`, every `<fill in ...>` blank filled from the machine-readable
parts of the answer (harness/agent.py says how). A parallel step's delegated runs are carried out
first, as a subagent would. When a step comes back blocked, it writes notes that satisfy
`blocked.expectedOutputSchema` and retries with the new ackToken.
"""

from __future__ import annotations

from typing import Any

from mcp import Client

from harness.agent import next_arguments

MAX_CALLS = 400


async def run_to_completion(client: Client, workflow_id: str, context: dict[str, Any] | None = None) -> list[dict]:
    """Runs a workflow to the end; returns every structured response, in order (those of the runs its
    parallel steps delegate to are not included: they are carried out on the way, as a subagent would)."""
    arguments: dict[str, Any] = {"workflowId": workflow_id}
    if context:
        arguments["context"] = context
    return await drive(client, await client.call_tool("start_workflow", arguments), workflow_id)


async def drive(client: Client, result: Any, label: str) -> list[dict]:
    responses = []
    for _ in range(MAX_CALLS):
        assert not result.is_error, result.content[0].text
        data = result.structured_content
        assert data is not None
        assert data["stateToken"] in result.content[0].text  # text-first: the tokens are in the text too
        responses.append(data)
        if data["isComplete"]:
            return responses
        for delegation in data["pending"].get("delegations") or []:
            if delegation.get("stateToken") and delegation["status"] != "complete":
                rehydrated = await client.call_tool("continue_workflow", {"stateToken": delegation["stateToken"]})
                await drive(client, rehydrated, f"{label} delegation {delegation['index']}")
        arguments = next_arguments(data)
        result = await client.call_tool("continue_workflow", arguments)
    raise AssertionError(f"{label} did not complete within {MAX_CALLS} calls")
