"""The use cases behind the MCP tools, resources and prompts, as the server calls them.

They import the ORM, so this module loads only once Django's apps are ready, by name through
runs/mcp/deferred.py. Each function adapts a parsed request to a use case of runs/execution or a read
model of runs/readmodels. A tool's service answers the use case's model (runs/contract; the tool dumps
it and renders its text from it); a resource's answers JSON. None holds logic of its own.
"""

from __future__ import annotations

from pathlib import Path

from runs.contract.execution import ExecutionAnswer, ExecutionResult, RecordedAnswer
from runs.contract.inputs import (
    CheckpointInput,
    ContinueWorkflowInput,
    ResumeSessionInput,
    StartSessionInput,
    StartWorkflowInput,
)
from runs.contract.sessions import ResumeResult, SessionResult
from runs.execution import advance, catalog, checkpoint, resume, start, workspace
from runs.execution.catalog import current_catalog
from runs.execution.observe import git_observation
from runs.mcp import prompts, tools
from runs.readmodels import overview, resources, versions
from runs.store import actors, tool_calls
from runs.store.setup import ensure_migrated
from workflows_app.engine.jsontypes import JsonObject


def prepare() -> int:
    """Start-up work after django.setup(): pending migrations applied (returns how many), the tool
    registry and the catalog built, so the first calls do not pay for them."""
    applied = ensure_migrated()
    tools.tool_specs()
    current_catalog()
    return applied


def fetch_workflow_repos() -> None:
    """After start-up: each workflow repository never pinned is fetched and pinned (runs/execution/catalog.py)."""
    catalog.fetch_workflow_repos()


# --- tools ------------------------------------------------------------------------------------------


def start_workflow(request: StartWorkflowInput) -> ExecutionResult:
    return start.start_workflow(request)


def continue_workflow(request: ContinueWorkflowInput) -> ExecutionAnswer:
    return advance.continue_workflow(request)


def checkpoint_workflow(request: CheckpointInput) -> ExecutionResult | SessionResult | RecordedAnswer:
    return checkpoint.checkpoint_workflow(request)


def start_session(request: StartSessionInput) -> SessionResult:
    return checkpoint.start_session(request)


def resume_session(request: ResumeSessionInput) -> ResumeResult:
    if request.git_branch is None and request.git_head_sha is None and not actors.current().remote:
        # The agent named no branch, and works on this machine (over HTTP no directory here is its
        # project): use what git says of the directory it named, if that is here (a path recorded on
        # another machine is matched as it is), else of the call's workspace (the client's root or the
        # configured directory: runs/execution/workspace.py).
        named = Path(request.workspace_path) if request.workspace_path else None
        if named is not None and named.is_absolute() and named.is_dir():
            seen = git_observation(named)
        else:
            seen = git_observation(workspace.current().path) if named is None else None
        if seen is not None:
            request = request.model_copy(
                update={
                    "git_branch": seen["gitBranch"] or None,
                    "git_head_sha": seen["gitHeadSha"] or None,
                    "workspace_path": seen["workspacePath"] or None,
                }
            )
    return resume.resume_session(request)


# --- resources and prompts --------------------------------------------------------------------------


def read_workflows() -> JsonObject:
    """The catalog's overview: the list_workflows answer without filters, so the resource and the tool agree."""
    return catalog.list_workflows().dump()


def read_workflow(workflow_id: str) -> JsonObject:
    """One workflow: the inspect_workflow answer in mode 'metadata'."""
    return catalog.inspect_workflow(workflow_id, "metadata").dump()


def read_session(session_id: str) -> JsonObject:
    """One session: the HTTP API's GET /api/v1/sessions/{sessionId} answer."""
    return overview.session_detail(session_id).dump()


read_run = resources.read_run
read_run_notes = resources.read_run_notes
read_session_artifacts = resources.read_session_artifacts
list_prompts = prompts.list_prompts
render_prompt = prompts.render

# --- what subscriptions to resources watch -----------------------------------------------------------

session_of_run = versions.session_of_run
session_pk = versions.session_pk
session_versions = versions.versions

# --- tool-call timings ------------------------------------------------------------------------------

save_timings = tool_calls.save
