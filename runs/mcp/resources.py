"""Read-only MCP resources, registered on the server with the SDK's resource API.

    workrail://workflows                       the catalog's overview (as list_workflows without arguments)
    workrail://workflows/{workflowId}          one workflow (as inspect_workflow, mode metadata)
    workrail://runs/{runId}                    a run: status, tip, recap, branches, gaps, synthesis
    workrail://runs/{runId}/notes{?stateToken,cursor}
                                               every note on the path to a node, a page at a time
    workrail://sessions/{sessionId}            a session (as GET /api/v1/sessions/{id}): status, mode, runs
    workrail://sessions/{sessionId}/artifacts  every artifact recorded in a session, oldest first

The run and session resources can be subscribed (runs/mcp/subscriptions.py).

Every read runs its service function (runs/readmodels/resources.py) on a worker thread, through the
same boundary as the tools (runs/mcp/boundary.py). Answers are JSON text, except the notes: Markdown
(runs/mcp/notes_text.py), since an agent reads them as it would read a document. A WorkRailError becomes a
JSON-RPC error (invalid params when the caller named something that does not exist) whose `data` is
{uri, error: {code, message, retryable, suggestion}}.

This module is imported at start-up: it must stay light. The read models load on first read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from runs.contract.errors import ErrorCode, WorkRailError
from runs.mcp import deferred
from runs.mcp.boundary import guarded
from runs.mcp.notes_text import MARKDOWN, notes_page_markdown
from runs.store import actors

if TYPE_CHECKING:
    from runs.readmodels.resources import NotesPageAnswer, RunAnswer, SessionArtifacts
    from workflows_app.engine.jsontypes import JsonObject

JSON = "application/json"
WORKFLOWS_URI = "workrail://workflows"
WORKFLOW_TEMPLATE = "workrail://workflows/{workflowId}"
RUN_TEMPLATE = "workrail://runs/{runId}"
RUN_NOTES_TEMPLATE = "workrail://runs/{runId}/notes{?stateToken,cursor}"
SESSION_TEMPLATE = "workrail://sessions/{sessionId}"
SESSION_ARTIFACTS_TEMPLATE = "workrail://sessions/{sessionId}/artifacts"

# The caller named something wrong: an invalid-params error. Anything else is on our side.
_CALLER_ERRORS = {
    ErrorCode.INVALID_INPUT,
    ErrorCode.NOT_YOUR_SESSION,
    ErrorCode.TOKEN_MALFORMED,
    ErrorCode.TOKEN_VERSION_UNSUPPORTED,
    ErrorCode.TOKEN_BAD_SIGNATURE,
    ErrorCode.NOT_FOUND,
    ErrorCode.WORKFLOW_NOT_FOUND,
    ErrorCode.WORKFLOW_INVALID,
}


def register_resources(server: MCPServer[Any]) -> None:
    @server.resource(
        WORKFLOWS_URI,
        name="workflows",
        title="Workflow catalog",
        description="The catalog's overview, as list_workflows answers it without arguments: its tags (what "
        "each is for, how many workflows), counts per source, and problems counted. list_workflows with tags or "
        "query lists the workflows themselves.",
        mime_type=JSON,
    )
    async def workflows() -> str:
        return await _read(WORKFLOWS_URI, _workflows)

    @server.resource(
        WORKFLOW_TEMPLATE,
        name="workflow",
        title="Workflow",
        description="One workflow (the inspect_workflow answer in mode 'metadata'): purpose, preconditions, "
        "questions to clarify and its step outline.",
        mime_type=JSON,
    )
    async def workflow(workflowId: str) -> str:
        return await _read(f"workrail://workflows/{workflowId}", _workflow, workflowId)

    @server.resource(
        RUN_TEMPLATE,
        name="run",
        title="Run",
        description="One run (session.runId of an execution answer): status, workflow id and hash, session, "
        "its latest tip (pending step, isComplete), a recap of the notes on the way there, how many points "
        "forked, the gaps it went past, and its synthesis once complete. Subscribe to hear when any process "
        "changes it.",
        mime_type=JSON,
    )
    async def run(runId: str) -> str:
        return await _read(f"workrail://runs/{runId}", _run, runId)

    @server.resource(
        RUN_NOTES_TEMPLATE,
        name="run_notes",
        title="Run notes",
        description="Every note and checkpoint recorded on the path from a run's start to one node, in path order, "
        "a page at a time (at most 20 entries), as Markdown: the node of stateToken (the run's latest tip without "
        "it), from position cursor (1 without it). Only that branch, not its siblings. The first line says which "
        "entries the page holds; the last names the next page's URI until the end. A recap that left entries out "
        "names the exact URI to read them.",
        mime_type=MARKDOWN,
    )
    async def run_notes(runId: str, stateToken: str = "", cursor: str = "") -> str:
        query = "&".join(f"{k}={v}" for k, v in (("stateToken", stateToken), ("cursor", cursor)) if v)
        uri = f"workrail://runs/{runId}/notes" + (f"?{query}" if query else "")
        return await _read(uri, _run_notes, runId, stateToken, cursor, render=notes_page_markdown)

    @server.resource(
        SESSION_TEMPLATE,
        name="session",
        title="Session",
        description="One session (session.sessionId of an execution answer), as the dashboard's API shows it: "
        "title, status, mode and preferences, its runs with their status, node and branch counts, its newest "
        "checkpoints and lastSeq (the newest event's number). Subscribe to hear when any process changes it.",
        mime_type=JSON,
    )
    async def session(sessionId: str) -> str:
        return await _read(f"workrail://sessions/{sessionId}", _session, sessionId)

    @server.resource(
        SESSION_ARTIFACTS_TEMPLATE,
        name="session_artifacts",
        title="Session artifacts",
        description="Every artifact recorded in a session (session.sessionId of an execution answer), by its "
        "runs' steps and by checkpoints, oldest first, each with runId, stepId, kind, data and recordedAt.",
        mime_type=JSON,
    )
    async def session_artifacts(sessionId: str) -> str:
        return await _read(f"workrail://sessions/{sessionId}/artifacts", _session_artifacts, sessionId)


# A resource's answer: a JSON object (one of the shapes its reader names), sent as JSON text unless the
# resource renders it as text of its own (the notes, as Markdown).
Reader = Callable[..., Mapping[str, Any]]
Render = Callable[[Any], str]


def _as_json(result: Mapping[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False)


async def _read(uri: str, reader: Reader, *args: str, render: Render = _as_json) -> str:
    # Readers touch files and the database: keep them off the event loop.
    text: str = await anyio.to_thread.run_sync(_read_sync, uri, reader, args, render)
    return text


def _read_sync(uri: str, reader: Reader, args: tuple[str, ...], render: Render) -> str:
    try:
        # Even the catalog views need the database set-up: the services import the models.
        with actors.asking(f"read {uri}"):
            result = guarded(f"Reading {uri}", lambda: reader(*args), uses_database=True, changes=False)
    except WorkRailError as exc:
        raise _as_mcp_error(uri, exc) from None
    return render(result)


def _as_mcp_error(uri: str, exc: WorkRailError) -> MCPError:
    code = INVALID_PARAMS if exc.code in _CALLER_ERRORS else INTERNAL_ERROR
    return MCPError(code=code, message=f"{exc.message} {exc.suggestion}", data={"uri": uri, "error": exc.as_dict()})


# The read models behind the resources (runs/mcp/services.py), looked up on each read: they need
# Django's apps, which are loaded after the handshake (runs/mcp/deferred.py).


def _workflows() -> JsonObject:
    answer: JsonObject = deferred.service("read_workflows")()
    return answer


def _workflow(workflow_id: str) -> JsonObject:
    answer: JsonObject = deferred.service("read_workflow")(workflow_id)
    return answer


def _run(run_id: str) -> RunAnswer:
    answer: RunAnswer = deferred.service("read_run")(run_id)
    return answer


def _run_notes(run_id: str, state_token: str, cursor: str) -> NotesPageAnswer:
    answer: NotesPageAnswer = deferred.service("read_run_notes")(run_id, state_token or None, cursor or None)
    return answer


def _session(session_id: str) -> JsonObject:
    answer: JsonObject = deferred.service("read_session")(session_id)
    return answer


def _session_artifacts(session_id: str) -> SessionArtifacts:
    answer: SessionArtifacts = deferred.service("read_session_artifacts")(session_id)
    return answer
