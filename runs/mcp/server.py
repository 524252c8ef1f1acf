"""The stdio MCP server: the SDK's MCPServer with our tool registry in place of its decorator-made one.

The SDK derives tool schemas from Python signatures and turns argument errors into plain text. We
publish hand-written schemas (runs/mcp/schemas.py) and answer every failure as structured data, so
listing and calling tools goes through ToolSpec instead.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool

from runs.errors import ErrorCode, WorkRailError
from runs.mcp.resources import register_resources
from runs.mcp.tools import TOOLS, ToolOutcome, ToolSpec, error_outcome, execute

INSTRUCTIONS = (
    "WorkRail guides you through multi-step workflows. Call list_workflows to see what exists and "
    "inspect_workflow to read one before starting it."
)


class WorkRailServer(MCPServer[Any]):
    def __init__(self, tools: list[ToolSpec] = TOOLS, **kwargs: Any) -> None:
        from workrail_site.version import VERSION

        super().__init__(
            name="workrail",
            title="WorkRail",
            version=VERSION,
            instructions=INSTRUCTIONS,
            log_level="WARNING",
            **kwargs,
        )
        self._specs = {spec.name: spec for spec in tools}
        register_resources(self)

    async def list_tools(self) -> list[MCPTool]:
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
            for spec in self._specs.values()
            if spec.enabled
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
        spec = self._specs.get(name)
        if spec is not None and not spec.enabled:
            outcome = error_outcome(
                WorkRailError(
                    ErrorCode.FEATURE_DISABLED,
                    f"{name} is turned off on this server.",
                    f"Ask the user to set {spec.flag}=1 in the MCP server's environment and restart it.",
                )
            )
        elif spec is None:
            outcome = error_outcome(
                WorkRailError(
                    ErrorCode.INVALID_INPUT,
                    f"There is no tool named '{name}'.",
                    f"Call one of: {', '.join(n for n, s in self._specs.items() if s.enabled)}.",
                )
            )
        else:
            # Tools touch files and the database: keep them off the event loop.
            outcome = await anyio.to_thread.run_sync(execute, spec, arguments)
        return to_call_result(outcome)


def to_call_result(outcome: ToolOutcome) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=outcome.text)],
        structured_content=outcome.structured,
        is_error=outcome.is_error,
    )
