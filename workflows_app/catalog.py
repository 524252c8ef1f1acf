"""The workflow catalog: every source loaded, duplicates resolved, each workflow compiled and hashed.

Loading is cached twice: a file is parsed and validated again only when its size or mtime changes,
and the whole catalog is rebuilt only when some file under a source changed. A listing with nothing
changed costs one directory walk.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from workflows_app.builtins import ROUTINE_ID_PREFIX
from workflows_app.compiler import CompileError, RoutineDocument, RoutineMemo, compile_workflow
from workflows_app.diagnostics import Code, Diagnostic, Severity, pointer_of, warning
from workflows_app.engine import step_count
from workflows_app.engine.model import CompiledWorkflow, ResolvedReference
from workflows_app.examples import is_example
from workflows_app.hashing import workflow_hash
from workflows_app.ids import ParsedId
from workflows_app.loader import LoadedFile, load_failed, load_file
from workflows_app.sources import (
    ProjectBindings,
    Source,
    SourceKind,
    load_project_bindings,
    project_bindings_path,
)
from workflows_app.structure import walk_steps
from workflows_app.tags import Tag, TagFile, load_tag_file, merged_vocabulary, own_tags

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SameJob:
    """A workflow elsewhere (WorkRail's library, say) that does the same job, and when to take which."""

    workflow_id: str
    take_this_for: str
    take_other_for: str


@dataclass(frozen=True)
class WorkflowEntry:
    id: str
    parsed_id: ParsedId
    kind: str
    source: Source
    path: Path
    document: dict[str, Any]
    compiled: CompiledWorkflow
    workflow_hash: str
    warnings: tuple[Diagnostic, ...]
    # How the catalog lists it (workflows_app/tags.py, examples.py): its tags (its own and its source's
    # tag file's), whether it is an example or a test, the ids it had before, workflows doing the same job.
    tags: tuple[str, ...] = ()
    example: bool = False
    former_ids: tuple[str, ...] = ()
    same_job_as: tuple[SameJob, ...] = ()

    @property
    def sort_key(self) -> tuple[bool, str, bool, str]:
        namespace = self.parsed_id.namespace
        return (namespace is None, namespace or "", self.kind != "workflow", self.id)

    @property
    def step_count(self) -> int:
        """Steps an agent can be given (engine.step_count): the same count a run's progress uses."""
        return step_count(self.compiled)


@dataclass(frozen=True)
class Catalog:
    entries: tuple[WorkflowEntry, ...]
    diagnostics: tuple[Diagnostic, ...]
    invalid: dict[str, tuple[Diagnostic, ...]] = field(default_factory=dict)
    vocabulary: dict[str, Tag] = field(default_factory=dict)  # every tag defined by a tag file, by id
    aliases: dict[str, str] = field(default_factory=dict)  # a former id -> the id it is now (formerIds)
    # Views derived from this snapshot (listings, say), computed once: the snapshot never changes.
    views: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def view(self, key: Any, build: Callable[[], Any]) -> Any:
        if key not in self.views:
            self.views[key] = build()
        return self.views[key]

    def get(self, workflow_id: str) -> WorkflowEntry | None:
        return self._by_id.get(workflow_id)

    def resolve(self, workflow_id: str) -> WorkflowEntry | None:
        """The workflow of `workflow_id`, or of the id it was renamed to (a former id, never listed)."""
        entry = self._by_id.get(workflow_id)
        if entry is None and workflow_id in self.aliases:
            entry = self._by_id.get(self.aliases[workflow_id])
        return entry

    @cached_property
    def _by_id(self) -> dict[str, WorkflowEntry]:
        return {entry.id: entry for entry in self.entries}


# Sources that change while the process runs (a workflow repository's pinned commit), asked at each
# load, with the diagnostics of those that cannot be read yet.
MoreSources = Callable[[], tuple[list[Source], list[Diagnostic]]]


class CatalogLoader:
    """Loads the catalog from `sources`, then those `more_sources` gives at each load; safe to share
    between threads."""

    def __init__(self, sources: list[Source], more_sources: MoreSources | None = None) -> None:
        self.sources = sources
        self.more_sources = more_sources
        self._lock = threading.Lock()
        self._files: dict[tuple[Path, int, int, int], LoadedFile] = {}
        self._fingerprint: tuple[Any, ...] | None = None
        self._catalog: Catalog | None = None

    def load(self) -> Catalog:
        with self._lock:
            more, notes = self.more_sources() if self.more_sources is not None else ([], [])
            sources = [*self.sources, *more]
            listing = [(source, path, _stat(path)) for source in sources for path in source.files()]
            fingerprint: tuple[Any, ...] = tuple((str(path), stat) for _source, path, stat in listing)
            fingerprint += tuple(notes)  # a repository not synced yet, and why
            fingerprint += tuple((str(source.tag_file), _stat(source.tag_file)) for source in sources)
            bindings_path = project_bindings_path(sources)
            if bindings_path is not None:  # the project's bindings are compiled into its workflows
                fingerprint += ((str(bindings_path), _stat(bindings_path)),)
            if self._catalog is not None and fingerprint == self._fingerprint:
                return self._catalog
            files = []
            fresh: dict[tuple[Path, int, int, int], LoadedFile] = {}
            for source, path, stat in listing:
                key = (path, source.precedence, *stat)
                loaded = self._files.get(key) or load_file(path, source)
                fresh[key] = loaded
                files.append(loaded)
            self._files = fresh
            self._catalog = assemble(files, sources, notes=notes)
            self._fingerprint = fingerprint
            return self._catalog


def _stat(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (-1, -1)
    return (stat.st_mtime_ns, stat.st_size)


def assemble(
    files: list[LoadedFile],
    sources: list[Source],
    bindings: ProjectBindings | None = None,
    notes: list[Diagnostic] | tuple[Diagnostic, ...] = (),
) -> Catalog:
    """The catalog of `files`. `bindings` default to the project's `.workrail/bindings.json`, found
    from the project source among `sources` (sources.project_bindings_path); `notes` are diagnostics
    about sources that could not be read (a repository not fetched yet)."""
    if bindings is None:
        bindings = load_project_bindings(project_bindings_path(sources))
    diagnostics: list[Diagnostic] = [*notes, *(d for f in files for d in f.diagnostics)]
    diagnostics += _missing_sources(sources)
    diagnostics += bindings.diagnostics
    invalid: dict[str, list[Diagnostic]] = {}
    for loaded in files:
        if not loaded.is_valid and loaded.parsed_id is not None:
            invalid.setdefault(loaded.parsed_id.raw, []).extend(
                d for d in loaded.diagnostics if d.severity is Severity.ERROR
            )
    winners, shadow_notes = _resolve_duplicates([f for f in files if f.is_valid])
    diagnostics += [note for notes in shadow_notes.values() for note in notes]

    by_name: dict[str, RoutineDocument] = {}
    routines: dict[str, RoutineDocument] = {}
    for loaded in winners:  # winners are in precedence order: the first routine of a name is used
        assert loaded.parsed_id is not None and loaded.document is not None
        found = RoutineDocument(loaded.parsed_id.raw, loaded.document)
        by_name.setdefault(loaded.parsed_id.name, found)
        if loaded.kind == "routine":
            routines.setdefault(loaded.parsed_id.name, found)

    def resolve_routine(name: str) -> RoutineDocument | None:
        """`routine-<name>` is whatever workflow has that name (routine-named ids are routines, a legacy
        one may not be); a name without the prefix (WorkRail's second form) must be a routine."""
        return by_name.get(name) if name.startswith(ROUTINE_ID_PREFIX) else routines.get(name)

    tag_files = {source: load_tag_file(source.tag_file) for source in sorted(sources, key=lambda s: s.precedence)}
    diagnostics += [d for tag_file in tag_files.values() for d in tag_file.diagnostics]

    known = {loaded.parsed_id.raw for loaded in winners if loaded.parsed_id is not None}
    memo = RoutineMemo()  # each routine compiled once for the whole catalog, however many steps call it
    entries = []
    for loaded in winners:
        assert loaded.parsed_id is not None and loaded.document is not None
        delegation_notes = delegation_warnings(loaded, known, invalid)
        diagnostics += delegation_notes
        try:
            compiled = compile_workflow(
                loaded.document,
                kind=loaded.kind,
                resolve_routine=resolve_routine,
                bindings=bindings.for_workflow(loaded.parsed_id.raw),
                memo=memo,
            )
            hashed = workflow_hash(compiled)
        except CompileError as exc:
            located = [
                dataclasses.replace(d, file=str(loaded.path), workflow_id=loaded.parsed_id.raw) for d in exc.diagnostics
            ]
            diagnostics += located
            invalid.setdefault(loaded.parsed_id.raw, []).extend(located)
            continue
        except Exception as exc:  # one workflow must never take the catalog down
            logger.exception("Compiling workflow %s (%s) failed", loaded.parsed_id.raw, loaded.path)
            failed = load_failed(exc, file=str(loaded.path), workflow_id=loaded.parsed_id.raw)
            diagnostics.append(failed)
            invalid.setdefault(loaded.parsed_id.raw, []).append(failed)
            continue
        own_warnings = [*loaded.diagnostics, *shadow_notes.get(loaded.parsed_id.raw, []), *delegation_notes]
        entries.append(
            WorkflowEntry(
                id=loaded.parsed_id.raw,
                parsed_id=loaded.parsed_id,
                kind=loaded.kind,
                source=loaded.source,
                path=loaded.path,
                document=loaded.document,
                compiled=compiled,
                workflow_hash=hashed,
                warnings=tuple(own_warnings),
                **_listing(loaded, tag_files.get(loaded.source)),
            )
        )
    entries.sort(key=lambda e: e.sort_key)
    ids = {entry.id for entry in entries}
    aliases: dict[str, str] = {}
    for entry in entries:  # precedence order is not needed: a current id always wins over a former one
        for former in entry.former_ids:
            if former not in ids:
                aliases.setdefault(former, entry.id)
    return Catalog(
        tuple(entries),
        tuple(diagnostics),
        {k: tuple(v) for k, v in invalid.items()},
        vocabulary=merged_vocabulary(tag_files.values()),
        aliases=aliases,
    )


def _listing(loaded: LoadedFile, tag_file: TagFile | None) -> dict[str, Any]:
    """How the catalog lists the workflow of `loaded`: its tags, whether it is an example, former ids and
    workflows doing the same job (the document's own fields, checked by the schema, and its tag file)."""
    assert loaded.parsed_id is not None and loaded.document is not None
    document = loaded.document
    tagging = tag_file.workflows.get(loaded.parsed_id.raw) if tag_file is not None else None
    tags = tuple(dict.fromkeys([*(own_tags(document.get("tags", [])) or ()), *(tagging.tags if tagging else ())]))
    return {
        "tags": tags,
        "example": is_example(
            name=loaded.parsed_id.name,
            tags=tags,
            hidden=tagging.hidden if tagging is not None else None,
            path=loaded.path,
            root=loaded.source.root,
        ),
        "former_ids": tuple(document.get("formerIds", ())),
        "same_job_as": tuple(
            SameJob(item["workflowId"], item["takeThisFor"], item["takeOtherFor"])
            for item in document.get("sameJobAs", ())
        ),
    }


def delegation_warnings(loaded: LoadedFile, known: set[str], invalid: dict[str, list[Diagnostic]]) -> list[Diagnostic]:
    """A warning for each delegation (of a parallel step, or a delegated audit) whose workflow is not
    in the catalog: its run would show it as unavailable, so the author hears of it before any run."""
    assert loaded.parsed_id is not None and loaded.document is not None
    found = []
    for step, path, _loop in walk_steps(loaded.document["steps"]):
        for delegation, where, what in _delegations_of(step):
            target = delegation.get("workflowId")
            if not isinstance(target, str) or target in known:
                continue
            why = "failed to load (see its own diagnostics)" if target in invalid else "is in no workflow source"
            found.append(
                warning(
                    Code.UNKNOWN_DELEGATION,
                    f"{what} '{step['id']}' delegates to '{target}', which {why}; a run would show "
                    "that delegation as unavailable and leave it to the agent.",
                    f"Add the file that defines '{target}' to a workflow source (the project's .workrail/workflows, "
                    "$WORKRAIL_HOME/workflows, or a directory in WORKRAIL_WORKFLOW_PATHS), or fix the workflowId.",
                    pointer=pointer_of([*path, *where, "workflowId"]),
                    file=str(loaded.path),
                    workflow_id=loaded.parsed_id.raw,
                )
            )
    return found


def _delegations_of(step: dict[str, Any]) -> Iterator[tuple[dict[str, Any], list[str | int], str]]:
    """Each delegation a source step declares, with its path under the step and who declares it."""
    if step.get("type") == "parallel":
        for index, delegation in enumerate(step.get("parallelDelegations") or []):
            if isinstance(delegation, dict):
                yield delegation, ["parallelDelegations", index], "Parallel step"
    audit = step.get("audit")
    if isinstance(audit, dict) and isinstance(audit.get("delegate"), dict):
        yield audit["delegate"], ["audit", "delegate"], "The audit of step"


def _resolve_duplicates(valid: list[LoadedFile]) -> tuple[list[LoadedFile], dict[str, list[Diagnostic]]]:
    """The first file of an id in precedence order wins; every other copy is reported, never silently lost."""
    ordered = sorted(enumerate(valid), key=lambda pair: (pair[1].source.precedence, pair[0]))
    winners: dict[str, LoadedFile] = {}
    notes: dict[str, list[Diagnostic]] = {}
    for _, loaded in ordered:
        assert loaded.parsed_id is not None
        workflow_id = loaded.parsed_id.raw
        if workflow_id not in winners:
            winners[workflow_id] = loaded
            continue
        kept = winners[workflow_id]
        repo_copy_of_bundled = kept.source.kind is SourceKind.BUNDLED and loaded.source.kind is SourceKind.GIT
        notes.setdefault(workflow_id, []).append(
            warning(
                Code.DUPLICATE_ID,
                f"Workflow id '{workflow_id}' is defined more than once; using {kept.path} ({_origin(kept.source)}) "
                f"and ignoring {loaded.path} ({_origin(loaded.source)}).",
                "The workflow bundled with this version of WorkRail wins over a repository's copy of its id; "
                "nothing to do, unless you want the repository's version: then copy it under an id of your own."
                if repo_copy_of_bundled
                else "Give one of the files another id, or delete the copy you do not want. Precedence: "
                "bundled, then user, then project, then WORKRAIL_WORKFLOW_PATHS in order, then "
                "WORKRAIL_WORKFLOW_REPOS in order.",
                file=str(loaded.path),
                workflow_id=workflow_id,
                details={"kept": str(kept.path), "ignored": str(loaded.path)},
            )
        )
    return list(winners.values()), notes


def _origin(source: Source) -> str:
    if source.origin is not None:
        return f"repository {source.origin.name} at {source.origin.commit[:7]}"
    return str(source.kind)


def _missing_sources(sources: list[Source]) -> list[Diagnostic]:
    return [
        warning(
            Code.SOURCE_MISSING,
            f"Workflow path {source.root} (from WORKRAIL_WORKFLOW_PATHS) does not exist.",
            "Create the directory or remove it from WORKRAIL_WORKFLOW_PATHS.",
            file=str(source.root),
        )
        for source in sources
        if source.kind is SourceKind.EXTRA and not source.root.exists()
    ]


def resolved_references(entry: WorkflowEntry, project_dir: Path) -> list[ResolvedReference]:
    """The workflow's `references`, each with the path it resolves to and whether a file is there.

    A `workspace` reference (the default) is relative to the project directory; a `package` one ships
    with the workflow, so it is looked up beside the workflow file, then at the root of its source.
    Content is never read: the agent opens the file when it needs it. A missing file is reported,
    never an error."""
    found: list[ResolvedReference] = []
    for reference in entry.compiled.get("references") or []:
        source = Path(reference["source"]).expanduser()
        base = reference.get("resolveFrom", "workspace")
        if source.is_absolute():
            candidates = [source]
        elif base == "package":
            candidates = [entry.path.parent / source, entry.source.root / source]
        else:
            candidates = [project_dir / source]
        located = next((path for path in candidates if path.is_file()), None)
        found.append(
            {
                "id": reference["id"],
                "title": reference["title"],
                "source": reference["source"],
                "purpose": reference["purpose"],
                "authoritative": bool(reference.get("authoritative")),
                "resolveFrom": base,
                "path": str(located or candidates[0]),
                "found": located is not None,
            }
        )
    return found
