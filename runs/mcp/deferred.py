"""The one place the MCP server loads code late: by module name, on first use.

`initialize` is answered before Django has loaded its apps (runs/mcp/entry.py), so two parts of the
server are not imported on the way there:
- the tool registry (runs/mcp/tools.py), whose typed models and schemas cost tens of milliseconds:
  built on the first tools/list or call, or by the start-up thread, whichever comes first;
- the use cases behind tools, resources and prompts (runs/mcp/services.py), which import the ORM and
  can only load once Django's apps are ready (runs/mcp/readiness.py sets them up; calls that need
  them wait there first, in runs/mcp/boundary.py).
Every other module imports normally. Naming the modules as strings keeps the import graph honest:
nothing below the server imports back up to it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runs.mcp.tool_spec import ToolOutcome, ToolSpec

TOOLS = "runs.mcp.tools"
SERVICES = "runs.mcp.services"


def tool_specs() -> dict[str, ToolSpec]:
    specs: dict[str, ToolSpec] = importlib.import_module(TOOLS).tool_specs()
    return specs


def call_tool(name: str, arguments: Any, client_roots: Sequence[str] = ()) -> ToolOutcome:
    outcome: ToolOutcome = importlib.import_module(TOOLS).call(name, arguments, client_roots)
    return outcome


def service(name: str) -> Callable[..., Any]:
    """The function `name` of runs/mcp/services.py. Only after Django's apps are ready."""
    found: Callable[..., Any] = getattr(importlib.import_module(SERVICES), name)
    return found
