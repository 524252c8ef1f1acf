"""The stdio MCP server: the SDK's MCPServer with our tool registry in place of its decorator-made one.

The SDK derives tool schemas from Python signatures and turns argument errors into plain text. We
publish schemas generated from our own typed models (runs/contract) and answer every failure as
structured data that those schemas admit, so listing and calling tools goes through ToolSpec instead.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool

from runs.mcp.readiness import configuration_problem
from runs.mcp.resources import register_resources
from runs.mcp.tools import ToolOutcome, ToolSpec, call, tool_specs

INSTRUCTIONS = (
    "WorkRail guides you through multi-step workflows. Call list_workflows to see what exists and "
    "inspect_workflow to read one before starting it."
)


class WorkRailServer(MCPServer[Any]):
    def __init__(self, **kwargs: Any) -> None:
        from workrail_site.version import VERSION

        super().__init__(
            name="workrail",
            title="WorkRail",
            version=VERSION,
            instructions=INSTRUCTIONS,
            log_level="WARNING",
            **kwargs,
        )
        register_resources(self)

    async def list_tools(self) -> list[MCPTool]:
        # Building the registry (the typed models) is CPU work: off the event loop, like the calls.
        specs: list[ToolSpec] = await anyio.to_thread.run_sync(_listed_specs)
        return [
            MCPTool(
                name=spec.name,
                title=spec.title,
                description=spec.description,
                input_schema=spec.input_schema,
                output_schema=spec.output_schema,
                annotations=ToolAnnotations(
                    title=spec.title,
                    read_only_hint=spec.annotations.read_only,
                    destructive_hint=spec.annotations.destructive,
                    idempotent_hint=spec.annotations.idempotent,
                    open_world_hint=spec.annotations.open_world,
                ),
            )
            for spec in specs
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
        # Tools touch files and the database: keep them off the event loop.
        outcome = await anyio.to_thread.run_sync(call, name, arguments)
        return to_call_result(outcome)


def _listed_specs() -> list[ToolSpec]:
    specs = tool_specs().values()
    if configuration_problem() is not None:
        # The flags cannot be read: offer the tools that need none; every call explains the problem.
        return [spec for spec in specs if spec.feature is None]
    return [spec for spec in specs if spec.enabled]


def to_call_result(outcome: ToolOutcome) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=outcome.text)],
        structured_content=outcome.structured,
        is_error=outcome.is_error,
    )
