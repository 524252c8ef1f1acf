"""Use cases of the read-only catalog: list and inspect workflows.

Every door (MCP tools, HTTP API, dashboard) calls these functions and nothing below them, so the
answer to "which workflows exist and what do they do" is computed in exactly one place.
"""

from __future__ import annotations

import difflib
import re
from functools import cache
from pathlib import Path
from typing import Literal

from django.conf import settings

from runs.contract.catalog import (
    StepOutline,
    UserInput,
    WorkflowDetails,
    WorkflowInspection,
    WorkflowList,
    WorkflowRepository,
    WorkflowSource,
    WorkflowSummary,
)
from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.execution import WarningDict
from workflows_app.catalog import Catalog, CatalogLoader, WorkflowEntry
from workflows_app.diagnostics import Diagnostic, Severity
from workflows_app.engine import outline_length
from workflows_app.engine.jsontypes import JsonObject, Step
from workflows_app.engine.tree import top_steps, walk
from workflows_app.engine.workflow_refs import named_ids
from workflows_app.repos.store import RepoStore
from workflows_app.repos.sync import fetch_unpinned
from workflows_app.sources import Source, configured_sources

PREVIEW_PROMPT_CHARS = 600


@cache
def catalog_loader() -> CatalogLoader:
    sources = configured_sources(
        workrail_home=settings.WORKRAIL_HOME,
        project_dir=settings.WORKRAIL_PROJECT_DIR,
        extra_paths=list(settings.WORKRAIL_WORKFLOW_PATHS),
    )
    repos = list(settings.WORKRAIL_WORKFLOW_REPOS)
    if not repos:
        return CatalogLoader(sources)
    store = repo_store(Path(settings.WORKRAIL_HOME))
    # Repositories come after every directory: a library fetched from elsewhere never shadows your own files.
    return CatalogLoader(sources, lambda: store.sources(repos, first_precedence=len(sources)))


@cache
def repo_store(home: Path) -> RepoStore:
    return RepoStore(home)


def fetch_workflow_repos() -> None:
    """Fetches and pins each repository of WORKRAIL_WORKFLOW_REPOS never pinned (a first start with it),
    then loads the catalog again; a pinned repository is left alone (sync_workflows moves pins). Slow (the
    network): the MCP server calls it on its set-up thread, after it is ready, never on the handshake."""
    repos = list(settings.WORKRAIL_WORKFLOW_REPOS)
    if not repos:
        return
    home = Path(settings.WORKRAIL_HOME)
    if fetch_unpinned(repos, repo_store(home), user_dir=home / "workflows"):
        current_catalog()


def current_catalog() -> Catalog:
    return catalog_loader().load()


def list_workflows(kind: str | None = None, namespace: str | None = None) -> WorkflowList:
    """The catalog, or the part of it of one kind or namespace; built once per catalog (and filters)."""
    catalog = current_catalog()

    def build() -> WorkflowList:
        entries = [
            entry
            for entry in catalog.entries
            if (kind is None or entry.kind == kind) and (namespace is None or entry.parsed_id.namespace == namespace)
        ]
        return WorkflowList.model_validate(
            {
                "count": len(entries),
                "workflows": [summary(entry) for entry in entries],
                "warnings": [d.as_dict() for d in catalog.diagnostics],
            }
        )

    listing: WorkflowList = catalog.view(("list_workflows", kind, namespace), build)
    return listing


# What inspect_workflow shows of the workflow file as it is (keys of the compiled workflow).
DETAIL_KEYS = (
    "about",
    "preconditions",
    "clarificationPrompts",
    "metaGuidance",
    "recommendedPreferences",
    "examples",
    "features",
)


def inspect_workflow(workflow_id: str, mode: Literal["metadata", "preview"] = "metadata") -> WorkflowInspection:
    catalog = current_catalog()
    entry = find_workflow(catalog, workflow_id)
    compiled = entry.compiled
    asked = from_the_user(compiled)
    # The summary's fields by name, the file's own under its keys (the model accepts both).
    details = WorkflowDetails.model_validate(
        {
            **dict(summary(entry)),
            "warnings": [d.as_dict() for d in entry.warnings],
            **{key: compiled[key] for key in DETAIL_KEYS if key in compiled},
            **({"fromTheUser": asked} if asked else {}),
        }
    )
    return WorkflowInspection(mode=mode, workflow=details, steps=[_outline(s, mode) for s in compiled["steps"]])


def from_the_user(compiled: JsonObject) -> list[UserInput]:
    """Each user-only dependency of the workflow's steps, once per context key, in step order."""
    found: dict[str, UserInput] = {}
    for step in walk(top_steps(compiled)):
        for dependency in step.get("userDependencies") or []:
            key = dependency.get("contextKey")
            if isinstance(key, str) and key not in found:
                found[key] = UserInput(
                    context_key=key,
                    description=str(dependency.get("description", "")),
                    step_id=step["id"],
                    step_title=step.get("title", step["id"]),
                )
    return list(found.values())


def unknown_workflow_ids(compiled: JsonObject, catalog: Catalog) -> list[WarningDict]:
    """A warning naming the workflow ids the workflow's prompts hand on that this server does not have,
    each with the closest id it does have: an agent told to recommend or run them should know."""
    named = named_ids(compiled)  # per workflow, memoized: most name no ids, and stop here
    if not named:
        return []
    known = {entry.id for entry in catalog.entries}
    missing = [item for item in named if item.workflow_id not in known]
    if not missing:
        return []
    words = {_id_words(entry_id): entry_id for entry_id in known}
    shown = []
    for item in missing:
        close = difflib.get_close_matches(_id_words(item.workflow_id), list(words), n=1, cutoff=0.6)
        shown.append(f"'{item.workflow_id}'" + (f" (closest here: {words[close[0]]})" if close else ""))
    steps = ", ".join(dict.fromkeys(f"'{item.step_title}'" for item in missing))
    return [
        {
            "code": "UNKNOWN_WORKFLOW_IDS",
            "message": f"Step {steps} names workflow ids this server does not have: {', '.join(shown)}. "
            "list_workflows shows the ones it has; say so where the step hands these ids on.",
        }
    ]


def _id_words(workflow_id: str) -> str:
    """An id's meaningful words, for matching 'mr-review-workflow.agentic.v2' with 'wr.risk_scaled_mr_review'."""
    noise = {"wr", "workrail", "workflow", "agentic", "v1", "v2", "v3"}
    return " ".join(word for word in re.split(r"[._\-\s]+", workflow_id.lower()) if word and word not in noise)


def find_workflow(catalog: Catalog, workflow_id: str) -> WorkflowEntry:
    entry = catalog.get(workflow_id)
    if entry is not None:
        return entry
    if workflow_id in catalog.invalid:
        problems = catalog.invalid[workflow_id]
        first = problems[0]
        raise WorkRailError(
            ErrorCode.WORKFLOW_INVALID,
            f"Workflow '{workflow_id}' exists but cannot run: {first.message}",
            f"Fix {first.file}{' at ' + first.pointer if first.pointer else ''}: {first.fix}",
            details={"diagnostics": [d.as_dict() for d in problems]},
        )
    known = [e.id for e in catalog.entries]
    close = difflib.get_close_matches(workflow_id, known, n=3, cutoff=0.5)
    hint = f"Did you mean {', '.join(close)}? " if close else ""
    unreadable = _unidentified_failures(catalog)
    message = f"No workflow has the id '{workflow_id}'."
    if unreadable:
        shown = "; ".join(f"{d.file}: {d.message}" for d in unreadable[:MAX_FAILURES_SHOWN])
        more = f" (and {len(unreadable) - MAX_FAILURES_SHOWN} more)" if len(unreadable) > MAX_FAILURES_SHOWN else ""
        message += (
            f" {len(unreadable)} workflow file(s) failed to load before their id could be read, and one of them "
            f"may define it: {shown}{more}."
        )
        hint += "Fix those files (list_workflows shows every problem with its fix), or "
    raise WorkRailError(
        ErrorCode.WORKFLOW_NOT_FOUND,
        message,
        f"{hint}{'c' if unreadable else 'C'}all list_workflows to see the available ids.",
        details={"didYouMean": close, "unloadedFiles": [d.as_dict() for d in unreadable]},
    )


MAX_FAILURES_SHOWN = 3


def _unidentified_failures(catalog: Catalog) -> list[Diagnostic]:
    """Files that failed to load without naming a workflow id (unreadable, invalid JSON, no id...):
    a workflow the caller asks for may be in one of them. One diagnostic per file."""
    seen: dict[str, Diagnostic] = {}
    for diagnostic in catalog.diagnostics:
        if diagnostic.severity == Severity.ERROR and diagnostic.workflow_id is None and diagnostic.file:
            seen.setdefault(diagnostic.file, diagnostic)
    return list(seen.values())


def summary(entry: WorkflowEntry) -> WorkflowSummary:
    return WorkflowSummary(
        id=entry.id,
        name=entry.compiled["name"],
        description=entry.compiled["description"],
        version=entry.compiled["version"],
        kind=entry.kind,
        id_status=entry.parsed_id.status.value,
        namespace=entry.parsed_id.namespace,
        source=workflow_source(entry.source, entry.path),
        step_count=entry.step_count,
        outline_length=outline_length(entry.compiled),
        workflow_hash=entry.workflow_hash,
        warning_count=len(entry.warnings),
    )


def workflow_source(source: Source, path: Path) -> WorkflowSource:
    origin = source.origin
    if origin is None:
        return WorkflowSource(kind=source.kind.value, path=str(path))
    inside = path.relative_to(source.root).as_posix() if path.is_relative_to(source.root) else path.name
    repository = WorkflowRepository(
        name=origin.name,
        url=origin.url,
        ref=origin.ref,
        commit=origin.commit,
        directory=origin.directory,
        file=f"{origin.directory}/{inside}" if origin.directory else inside,
    )
    return WorkflowSource(kind=source.kind.value, path=str(path), repository=repository)


def _outline(step: Step, mode: str) -> StepOutline:
    """One entry of the outline; only what the step has is set (the answer leaves the rest out)."""
    item = StepOutline(id=step["id"], title=step["title"], kind=step["kind"])
    if "runCondition" in step:
        item.run_condition = step["runCondition"]
    if step.get("requireConfirmation"):
        item.require_confirmation = step["requireConfirmation"]
    if step["kind"] == "loop":
        item.loop = step["loop"]
        item.body = [_outline(child, mode) for child in step["body"]]
    elif mode == "preview":
        prompt = step["prompt"]
        truncated = len(prompt) > PREVIEW_PROMPT_CHARS
        item.prompt = prompt[:PREVIEW_PROMPT_CHARS].rstrip() + (" …" if truncated else "")
        item.prompt_truncated = truncated
        if "agentRole" in step:
            item.agent_role = step["agentRole"]
    return item
