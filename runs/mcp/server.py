"""The stdio MCP server: the SDK's MCPServer with our tool registry in place of its decorator-made one.

The SDK derives tool schemas from Python signatures and turns argument errors into plain text. We
publish schemas generated from our own typed models (runs/contract) and answer every failure as
structured data that those schemas admit, so listing and calling tools goes through ToolSpec instead.

On stdio, every line passes runs/mcp/framing.py before the SDK reads it, so a request the SDK cannot
parse is answered with a JSON-RPC error instead of being dropped, and a request read before stdin
closes is answered before the server exits (runs/mcp/answers.py). Run and session resources can be
subscribed; a watcher task tells subscribers when any process changed them (runs/mcp/subscriptions.py).
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskStatus
from mcp.server import MCPServer
from mcp.server.mcpserver import server as sdk_mcpserver
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    NotificationParams,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    TextContent,
    ToolAnnotations,
    UnsubscribeRequestParams,
)
from mcp_types import Prompt as MCPPrompt
from mcp_types import Tool as MCPTool

from runs.mcp import deferred
from runs.mcp.boundary import guarded
from runs.mcp.framing import CheckedLines, wire_stdin
from runs.mcp.readiness import configuration_problem
from runs.mcp.resources import register_resources
from runs.mcp.roots import WORKSPACE_TOOLS, client_roots, roots_changed
from runs.mcp.subscriptions import ResourceWatcher
from runs.store import actors
from runs.store.actors import acting_as
from workflows_app.engine.jsontypes import JsonObject
from workrail_site.version import VERSION

if TYPE_CHECKING:
    from runs.mcp.prompts import PromptDescription, RenderedPrompt
    from runs.mcp.tool_spec import Listing, ToolOutcome, ToolSpec

logger = logging.getLogger("workrail.mcp")

INSTRUCTIONS = (
    "WorkRail guides you through multi-step workflows. Call list_workflows to see what exists and "
    "inspect_workflow to read one before starting it."
)


class WorkRailServer(MCPServer[Any]):
    def __init__(self, **kwargs: Any) -> None:
        bus = InMemorySubscriptionBus()
        with _logging_configured_already():
            super().__init__(
                name="workrail",
                title="WorkRail",
                version=VERSION,
                instructions=INSTRUCTIONS,
                log_level="WARNING",
                subscriptions=bus,
                **kwargs,
            )
        register_resources(self)
        # Run and session resources can be subscribed, in both protocol eras: registering the handlers is
        # what makes the SDK advertise resources.subscribe (runs/mcp/subscriptions.py).
        self.watcher = ResourceWatcher(bus)
        lowlevel = self._lowlevel_server
        lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, self.watcher.subscribe)
        lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, self.watcher.unsubscribe)
        lowlevel.add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams, self.watcher.listen)
        # The client's roots say where the agent works; a change of them is heard here (runs/mcp/roots.py).
        lowlevel.add_notification_handler("notifications/roots/list_changed", NotificationParams, roots_changed)

    async def run_stdio_async(self) -> None:
        """The SDK's own stdio transport and serving loop (as MCPServer.run_stdio_async does it), with
        stdin read through CheckedLines: a line the SDK cannot parse is answered through its write
        stream, never passed on and dropped, and stdin's EOF reaches the SDK only once every request it
        was given is answered (runs/mcp/answers.py). The SDK still claims stdout; stdin is claimed the
        same way."""
        with wire_stdin() as wire:
            stdin = CheckedLines(wire)
            stdin.when_reading_ends(self.watcher.close_streams)
            try:
                async with anyio.create_task_group() as background:
                    await background.start(_stop_reading_on_signal, stdin)
                    background.start_soon(self.watcher.run)  # idle until something is subscribed
                    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
                        answering = stdin.answer_through(write_stream)
                        lowlevel = self._lowlevel_server
                        await lowlevel.run(read_stream, answering, lowlevel.create_initialization_options())
                    background.cancel_scope.cancel()
            except* (BrokenPipeError, ConnectionResetError):
                # The client closed its end of stdout: nobody is left to answer, nothing to report.
                logger.info("the client closed the server's stdout; exiting")

    async def list_tools(self) -> list[MCPTool]:
        # Building the registry (the typed models) is CPU work: off the event loop, like the calls.
        listed: list[tuple[ToolSpec, Listing]] = await anyio.to_thread.run_sync(listed_tools)
        return [
            MCPTool(
                name=spec.name,
                title=spec.title,
                description=listing.description,
                input_schema=listing.input_schema,
                output_schema=listing.output_schema,
                annotations=ToolAnnotations(
                    title=spec.title,
                    read_only_hint=spec.annotations.read_only,
                    destructive_hint=spec.annotations.destructive,
                    idempotent_hint=spec.annotations.idempotent,
                    open_world_hint=spec.annotations.open_world,
                ),
            )
            for spec, listing in listed
        ]

    async def list_prompts(self) -> list[MCPPrompt]:
        listed: list[PromptDescription] = await anyio.to_thread.run_sync(_prompt_work, "prompts/list", None)
        return [MCPPrompt.model_validate(prompt) for prompt in listed]

    # Arguments arrive as the JSON-RPC request's params: JSON, checked by the use case behind them.
    async def get_prompt(self, name: str, arguments: JsonObject | None = None, context: Any = None) -> GetPromptResult:
        rendered: RenderedPrompt = await anyio.to_thread.run_sync(_prompt_work, name, arguments or {})
        return GetPromptResult.model_validate(rendered)

    async def call_tool(self, name: str, arguments: JsonObject, context: Any = None) -> CallToolResult:
        # A tool that works in the agent's project, told none, learns it from the client's roots: asked
        # here, on the event loop, since asking is a request to the client.
        chooses_itself = isinstance(arguments, dict) and arguments.get("workspacePath") is not None
        roots = await client_roots(context) if name in WORKSPACE_TOOLS and not chooses_itself else ()
        # Tools touch files and the database: keep them off the event loop. The events the call makes are
        # stamped with the client's declared name (actors.Actor.client_name); the thread copies the context.
        with acting_as(replace(actors.current(), client_name=declared_client(context))):
            outcome = await anyio.to_thread.run_sync(deferred.call_tool, name, arguments, roots)
        return to_call_result(outcome)


def declared_client(context: Any) -> str:
    """The name the client gave itself when it connected (initialize's clientInfo.name), as recorded
    (actors.client_name); "" without one (a direct call, or a client of the protocol era without initialize)."""
    request_context = getattr(context, "request_context", None) if context is not None else None
    params = getattr(getattr(request_context, "session", None), "client_params", None)
    return actors.client_name(getattr(getattr(params, "client_info", None), "name", None))


@contextmanager
def _logging_configured_already() -> Iterator[None]:
    """MCPServer.__init__ calls the SDK's configure_logging, which builds a rich handler (importing rich:
    about 15 ms of the handshake, and its memory for good) and gives it to logging.basicConfig, which
    ignores it when the root logger has handlers: it has, once runs/mcp/entry.py configured logging.
    Only then is the call skipped, so nothing changes but the import."""
    configure = getattr(sdk_mcpserver, "configure_logging", None)
    if configure is None or not logging.getLogger().handlers:
        yield
        return
    setattr(sdk_mcpserver, "configure_logging", lambda *args, **kwargs: None)  # noqa: B010 (a module's global)
    try:
        yield
    finally:
        setattr(sdk_mcpserver, "configure_logging", configure)  # noqa: B010


async def _stop_reading_on_signal(stdin: CheckedLines, *, task_status: TaskStatus[None]) -> None:
    """The first SIGTERM or SIGINT stops the reading of requests; the server exits once those already
    read are answered (a client's shutdown sends SIGTERM after closing stdin, and a call that committed
    must still be answered). A second signal has its default effect: the handlers are gone by then."""
    try:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as received:
            task_status.started()
            async for signum in received:
                logger.info("%s: reading no more requests; answering those in flight", signal.Signals(signum).name)
                stdin.stop_reading()
                return
    except NotImplementedError:  # Windows: the default handlers stay
        task_status.started()


def _prompt_work(name: str, arguments: JsonObject | None) -> Any:
    """Lists the prompts (`arguments` None) or renders prompt `name`, through the same boundary as tools
    and resources; an error becomes a JSON-RPC error whose data carries the error body (an unknown
    workflow is the caller's mistake: invalid params)."""
    from runs.contract.errors import ErrorCode, WorkRailError  # typed shapes: kept off the handshake path

    def work() -> Any:
        if arguments is None:
            return deferred.service("list_prompts")()
        return deferred.service("render_prompt")(name, arguments)

    try:
        return guarded(f"Prompt {name}", work, uses_database=True, changes=False)
    except WorkRailError as exc:
        caller = exc.code in {ErrorCode.WORKFLOW_NOT_FOUND, ErrorCode.WORKFLOW_INVALID, ErrorCode.INVALID_INPUT}
        raise MCPError(
            code=INVALID_PARAMS if caller else INTERNAL_ERROR,
            message=f"{exc.message} {exc.suggestion}",
            data={"prompt": name, "error": exc.as_dict()},
        ) from None


def listed_tools() -> list[tuple[ToolSpec, Listing]]:
    specs = deferred.tool_specs().values()
    if configuration_problem() is not None:
        # The flags cannot be read: offer the tools that need none (none of them has a part that does
        # either, so listing them reads no flag); every call explains the problem.
        return [(spec, spec.listed()) for spec in specs if spec.feature is None]
    return [(spec, spec.listed()) for spec in specs if spec.enabled]


def to_call_result(outcome: ToolOutcome) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=outcome.text)],
        structured_content=outcome.structured,
        is_error=outcome.is_error,
    )
