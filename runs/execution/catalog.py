"""Use cases of the read-only catalog: list and inspect workflows.

Every door (MCP tools, HTTP API, dashboard) calls these functions and nothing below them, so the
answer to "which workflows exist and what do they do" is computed in exactly one place.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

from django.conf import settings

from runs.contract.catalog import (
    CatalogOverview,
    ListFilters,
    Problems,
    SameJob,
    SourceCount,
    StepOutline,
    TagCount,
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
from runs.execution import workspace
from workflows_app.catalog import Catalog, CatalogLoader, WorkflowEntry
from workflows_app.diagnostics import Code, Diagnostic, Severity
from workflows_app.engine import outline_length
from workflows_app.engine.jsontypes import as_json
from workflows_app.engine.model import CompiledStep, CompiledWorkflow
from workflows_app.engine.tree import agent_steps, top_steps, walk
from workflows_app.engine.workflow_refs import named_ids
from workflows_app.guidance import guidance
from workflows_app.repos.store import RepoStore
from workflows_app.repos.sync import fetch_unpinned
from workflows_app.sources import Source, configured_sources
from workflows_app.tags import UNTAGGED

PREVIEW_PROMPT_CHARS = 600


# One loader per workspace (a project's own .workrail/workflows differ), for the few a server sees.
@lru_cache(maxsize=16)
def catalog_loader(project_dir: Path) -> CatalogLoader:
    sources = configured_sources(
        workrail_home=settings.WORKRAIL_HOME,
        project_dir=project_dir,
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
    """The catalog as seen from the workspace of the call being run (runs/execution/workspace.py)."""
    return catalog_loader(workspace.current().path).load()


def list_workflows(filters: ListFilters | None = None, *, for_people: bool = False) -> WorkflowList:
    """What an agent's list_workflows answers: without a filter, the overview (tags, sources, counts);
    with one, the workflows that match. `for_people` (the dashboard, the HTTP API) also lists every
    workflow without a filter, examples included, with each problem in full and absolute paths.
    Built once per catalog for the few fixed filters (kind, namespace, examples)."""
    filters = filters or ListFilters()
    catalog = current_catalog()
    if filters.tags or filters.query or filters.namespace:  # free-form: computed each time, never kept unbounded
        return listing_of(catalog, filters, for_people=for_people)
    key = ("list_workflows", filters.model_dump_json(), for_people)
    listing: WorkflowList = catalog.view(key, lambda: listing_of(catalog, filters, for_people=for_people))
    return listing


# The command an agent is given to see the problems it is told the count of (no path: it finds the files).
VALIDATE_CONFIGURED = "python manage.py validate_workflow --configured"


def listing_of(catalog: Catalog, filters: ListFilters, *, for_people: bool = False) -> WorkflowList:
    shown = [entry for entry in catalog.entries if for_people or filters.include_examples or not entry.example]
    filtered = bool(filters.tags or filters.query or filters.kind or filters.namespace)
    matching = [entry for entry in shown if _matches(entry, filters, catalog)] if filtered else shown
    errors = sum(1 for d in catalog.diagnostics if d.severity is Severity.ERROR)
    warnings = len(catalog.diagnostics) - errors
    answer: dict[str, object] = {
        "count": len(matching),
        "filters": filters,
        "workflows": [summary(entry, catalog, for_people=for_people) for entry in matching]
        if filtered or for_people
        else [],
    }
    if not filtered:
        answer["overview"] = _overview(catalog, shown, hidden=len(catalog.entries) - len(shown))
    if errors or warnings:
        problems = Problems(errors=errors, warnings=warnings, command=VALIDATE_CONFIGURED)
        unsynced = [d for d in catalog.diagnostics if d.code is Code.REPO_NOT_SYNCED and d.details]
        if unsynced:
            problems.not_loaded = [str(d.details["repository"]) for d in unsynced if d.details]
        answer["problems"] = problems
    if for_people:
        answer["warnings"] = [d.as_dict() for d in catalog.diagnostics]
    return WorkflowList.model_validate(answer)


def _overview(catalog: Catalog, shown: list[WorkflowEntry], hidden: int) -> CatalogOverview:
    """Each tag with how many of `shown` it holds (defined tags first, in their vocabulary's order, then
    tags defined nowhere, then the untagged), and how many come from each source."""
    counts: dict[str, int] = {}
    for entry in shown:
        for tag in entry.tags or (UNTAGGED,):
            counts[tag] = counts.get(tag, 0) + 1
    ordered = [tag for tag in catalog.vocabulary if tag in counts]
    ordered += sorted(tag for tag in counts if tag not in catalog.vocabulary and tag != UNTAGGED)
    ordered += [UNTAGGED] if UNTAGGED in counts else []
    tags = []
    for tag_id in ordered:
        defined = catalog.vocabulary.get(tag_id)
        name = defined.display_name if defined else tag_id
        when = list(defined.when) if defined else (["workflows no tag names"] if tag_id == UNTAGGED else [])
        tags.append(TagCount(id=tag_id, name=name, when=when, count=counts[tag_id]))
    sources: dict[str, int] = {}
    for entry in sorted(shown, key=lambda entry: entry.source.precedence):
        label = source_label(entry.source)
        sources[label] = sources.get(label, 0) + 1
    return CatalogOverview(
        tags=tags,
        sources=[SourceCount(source=label, count=count) for label, count in sources.items()],
        examples_hidden=hidden,
    )


def source_label(source: Source) -> str:
    return f"git:{source.origin.name}" if source.origin is not None else source.kind.value


def _matches(entry: WorkflowEntry, filters: ListFilters, catalog: Catalog) -> bool:
    if filters.kind is not None and entry.kind != filters.kind:
        return False
    if filters.namespace is not None and entry.parsed_id.namespace != filters.namespace:
        return False
    if filters.tags and not set(entry.tags or (UNTAGGED,)) & set(filters.tags):
        return False
    if filters.query:
        names = [catalog.vocabulary[tag].display_name for tag in entry.tags if tag in catalog.vocabulary]
        text = _folded(" ".join([entry.id, entry.compiled["name"], entry.compiled["description"], *entry.tags, *names]))
        return all(word in text for word in _folded(filters.query).split())
    return True


def _folded(text: str) -> str:
    """Lower case, every run of punctuation a space: 'bug-investigation' finds 'wr.bug_investigation' too."""
    return " " + " ".join(re.split(r"[^0-9a-z]+", text.casefold())) + " "


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


def inspect_workflow(
    workflow_id: str, mode: Literal["metadata", "preview"] = "metadata", *, for_people: bool = False
) -> WorkflowInspection:
    """One workflow (by its id or a former one). An agent hears of its warnings as a count and the command
    that shows them; `for_people` (the dashboard, the HTTP API) also gives them in full."""
    catalog = current_catalog()
    entry = find_workflow(catalog, workflow_id)
    compiled = entry.compiled
    fields: Mapping[str, Any] = compiled  # read by name, DETAIL_KEYS
    asked = from_the_user(compiled)
    listed = summary(entry, catalog, for_people=for_people)
    problems: dict[str, object] = {}
    if for_people:
        problems["warnings"] = [d.as_dict() for d in entry.warnings]
    if entry.warnings:
        problems["validateCommand"] = f"{VALIDATE_CONFIGURED} --workflow {entry.id}"
    # The summary's fields by name, the file's own under its keys (the model accepts both).
    details = WorkflowDetails.model_validate(
        {
            **{name: getattr(listed, name) for name in listed.model_fields_set},
            **problems,
            **{key: fields[key] for key in DETAIL_KEYS if key in fields and key != "metaGuidance"},
            **({"metaGuidance": rules} if (rules := guidance(compiled)) else {}),  # as a run is given it
            **({"fromTheUser": asked} if asked else {}),
        }
    )
    inspection = WorkflowInspection(mode=mode, workflow=details, steps=[_outline(s, mode) for s in compiled["steps"]])
    if entry.id != workflow_id:
        inspection.renamed_from = workflow_id
        also = look_alike_note(workflow_id, catalog)
        if also:
            inspection.look_alike = also.strip()
    return inspection


def from_the_user(compiled: CompiledWorkflow) -> list[UserInput]:
    """Each user-only dependency of the workflow's steps, once per context key, in step order."""
    found: dict[str, UserInput] = {}
    for step in agent_steps(top_steps(compiled)):
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


def unknown_workflow_ids(compiled: CompiledWorkflow, catalog: Catalog) -> list[WarningDict]:
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
    words.update({_id_words(former): current for former, current in catalog.aliases.items()})
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


def renamed_workflow(asked: str, workflow_id: str, catalog: Catalog) -> list[WarningDict]:
    """A note when the workflow was asked for by a former id (its `formerIds`): the run is of the new id."""
    if asked == workflow_id:
        return []
    return [
        {
            "code": "WORKFLOW_RENAMED",
            "message": f"'{asked}' is the former id of {workflow_id}; this run is of {workflow_id}: use that id "
            f"from now on.{look_alike_note(asked, catalog)}",
        }
    ]


def look_alike_note(former: str, catalog: Catalog) -> str:
    """When a former id differs from a listed id only in case or punctuation (ours were renamed for that:
    wr.mr_review beside WorkRail's wr.mr-review), the listed one is named: the agent may have meant it."""
    folded = _folded_id(former)
    alike = [entry for entry in catalog.entries if _folded_id(entry.id) == folded]
    return "".join(f" {entry.id} ({entry.compiled['name']}) is another workflow." for entry in alike)


def _folded_id(workflow_id: str) -> str:
    return re.sub(r"[^0-9a-z]", "", workflow_id.casefold())


def _id_words(workflow_id: str) -> str:
    """An id's meaningful words, for matching 'mr-review-workflow.agentic.v2' with 'wr.risk_scaled_mr_review'."""
    noise = {"wr", "workrail", "workflow", "agentic", "v1", "v2", "v3"}
    return " ".join(word for word in re.split(r"[._\-\s]+", workflow_id.lower()) if word and word not in noise)


def find_workflow(catalog: Catalog, workflow_id: str) -> WorkflowEntry:
    """The workflow of `workflow_id`, or of the id it was renamed to (a former id keeps working)."""
    entry = catalog.resolve(workflow_id)
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


def summary(entry: WorkflowEntry, catalog: Catalog, *, for_people: bool = False) -> WorkflowSummary:
    outline = outline_length(entry.compiled)
    found = WorkflowSummary(
        id=entry.id,
        name=entry.compiled["name"],
        description=entry.compiled["description"],
        version=entry.compiled["version"],
        kind=entry.kind,
        id_status=entry.parsed_id.status.value,
        namespace=entry.parsed_id.namespace,
        source=workflow_source(entry.source, entry.path, with_path=for_people),
        step_count=entry.step_count,
        outline_length=outline,
        loop_body_steps=sum(1 for _ in walk(top_steps(entry.compiled))) - outline,
        workflow_hash=entry.workflow_hash,
        warning_count=len(entry.warnings),
        tags=list(entry.tags),
        example=entry.example,
    )
    same = same_job(entry, catalog)
    if same:
        found.same_job_as = same
    return found


def same_job(entry: WorkflowEntry, catalog: Catalog) -> list[SameJob]:
    """The workflows of `catalog` doing the same job as `entry`, from either side's `sameJobAs`: a pair
    is shown only when both are here."""
    found = [
        SameJob(workflow_id=item.workflow_id, take_this_for=item.take_this_for, take_other_for=item.take_other_for)
        for item in entry.same_job_as
        if catalog.get(item.workflow_id) is not None
    ]
    for other in catalog.entries:
        for item in other.same_job_as:
            if item.workflow_id == entry.id:
                found.append(
                    SameJob(workflow_id=other.id, take_this_for=item.take_other_for, take_other_for=item.take_this_for)
                )
    return found


def workflow_source(source: Source, path: Path, *, with_path: bool = False) -> WorkflowSource:
    """Where the workflow comes from: its file inside its source (never a path inside WORKRAIL_HOME in an
    agent's answer); the absolute path only `with_path`, for people."""
    origin = source.origin
    inside = path.relative_to(source.root).as_posix() if path.is_relative_to(source.root) else path.name
    shown = {"path": str(path)} if with_path else {}
    if origin is None:
        return WorkflowSource(kind=source.kind.value, file=inside, **shown)
    repository = WorkflowRepository(
        name=origin.name,
        url=origin.url,
        ref=origin.ref,
        commit=origin.commit,
        directory=origin.directory,
        file=f"{origin.directory}/{inside}" if origin.directory else inside,
    )
    return WorkflowSource(kind=source.kind.value, file=inside, repository=repository, **shown)


def _outline(step: CompiledStep, mode: str) -> StepOutline:
    """One entry of the outline; only what the step has is set (the answer leaves the rest out)."""
    item = StepOutline(id=step["id"], title=step["title"], kind=step["kind"])
    if "runCondition" in step:
        item.run_condition = as_json(step["runCondition"])
    rule = step.get("requireConfirmation")
    if rule:
        item.require_confirmation = rule if isinstance(rule, bool) else as_json(rule)
    if step["kind"] == "loop":
        item.loop = as_json(step["loop"])
        item.body = [_outline(child, mode) for child in step["body"]]
    elif mode == "preview":
        prompt = step["prompt"]
        truncated = len(prompt) > PREVIEW_PROMPT_CHARS
        item.prompt = prompt[:PREVIEW_PROMPT_CHARS].rstrip() + (" …" if truncated else "")
        item.prompt_truncated = truncated
        if "agentRole" in step:
            item.agent_role = step["agentRole"]
    return item
