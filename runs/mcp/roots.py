"""The client's MCP roots: the directories it says the agent works in, asked for with `roots/list`.

Asked lazily, never on the handshake: on the first tool call that needs a workspace (runs/mcp/server.py)
from a client that declared the `roots` capability, then kept for the rest of its connection. A
`notifications/roots/list_changed` forgets them, so the next such call asks again. A client without
roots, one that answers with an error or not in time, or a call whose channel cannot carry a request
to the client (the 2026 protocol era, a stateless HTTP server's JSON answers) has none: the call's
workspace then falls back (runs/execution/workspace.py). Only `file://` roots name a directory.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

import anyio
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ListRootsRequest, ListRootsResult

logger = logging.getLogger("workrail.mcp")

# The tools whose answer depends on the directory the agent works in (the catalog's project workflows,
# the git branch recorded or matched). Their inputs say so too (runs/contract/inputs.py, InWorkspace).
WORKSPACE_TOOLS = frozenset(
    {"list_workflows", "inspect_workflow", "start_workflow", "continue_workflow", "resume_session"}
)
ASK_TIMEOUT_S = 5.0  # a client that does not answer costs one call this long, once per connection
_STATE_KEY = "workrail.roots"


async def client_roots(context: Any) -> tuple[str, ...]:
    """The client's roots as local directory paths, asked once per connection. `context` is the tool
    call's (the SDK's mcpserver Context); without one (a direct call) there are none."""
    request_context = getattr(context, "request_context", None) if context is not None else None
    if request_context is None:
        return ()
    session = request_context.session
    capabilities = session.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return ()
    if not session.can_send_request:
        # The call's channel cannot carry a request to the client: a JSON answer over stateless HTTP, or
        # the 2026 protocol era. Asking would only wait out the timeout.
        return ()
    state = _connection_state(session)
    known = state.get(_STATE_KEY)
    if known is not None:
        return tuple(known)
    roots = await _ask(session, request_context.request_id)
    state[_STATE_KEY] = roots
    return roots


async def roots_changed(context: Any, params: Any) -> None:
    """`notifications/roots/list_changed`: the roots kept for this connection are forgotten; the next
    tool call that needs them asks again."""
    _connection_state(context.session).pop(_STATE_KEY, None)


def _connection_state(session: Any) -> dict[str, Any]:
    """The connection's scratch state (mcp.server.connection.Connection.state), which lives as long as
    the client's connection. The SDK hands a handler a per-request ServerSession that holds its
    connection privately; without it, a throwaway dict: roots are then asked on every call."""
    connection = getattr(session, "_connection", None)
    state = getattr(connection, "state", None)
    return state if isinstance(state, dict) else {}


async def _ask(session: Any, request_id: Any) -> tuple[str, ...]:
    # On the request's own channel: over streamable HTTP it rides the tool call's response stream,
    # which the client is reading, rather than a stream it may never have opened.
    metadata = ServerMessageMetadata(related_request_id=request_id) if request_id is not None else None
    try:
        with anyio.fail_after(ASK_TIMEOUT_S):
            result = await session.send_request(
                ListRootsRequest(method="roots/list"), ListRootsResult, metadata=metadata
            )
    except Exception as exc:
        logger.info("the client declared roots but did not list them (%s); using the configured workspace", exc)
        return ()
    return tuple(path for path in (local_path(str(root.uri)) for root in result.roots) if path is not None)


def local_path(uri: str) -> str | None:
    """The local path a `file://` URI names; None for any other URI."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    path = url2pathname(unquote(parts.path))
    return str(Path(path)) if path else None
