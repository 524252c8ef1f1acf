"""Checking workflow files exactly as the catalog loads them, outside any catalog: for
`manage.py validate_workflow` (authors and their CI) and for drafts an agent writes with the
`wr.workflow_authoring` workflow. Every file goes through `loader.load_file` and the lot through
`catalog.assemble` (duplicates, routine templates, compilation), beside the bundled workflows so that
calls to bundled routines resolve. Nothing is written and no database is needed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from workflows_app.catalog import Catalog, assemble
from workflows_app.diagnostics import Diagnostic, Severity
from workflows_app.loader import LoadedFile, load_file
from workflows_app.prose.advice import Advice, declaration_advice
from workflows_app.sources import BUNDLED_DIR, Source, SourceKind

PRECEDENCE = {SourceKind.BUNDLED: 0, SourceKind.USER: 1, SourceKind.PROJECT: 2, SourceKind.EXTRA: 3, SourceKind.GIT: 4}
REPOS_DIR = "workflow-repos"  # under WORKRAIL_HOME: workflows_app/repos/store.py


class PathsProblem(ValueError):
    """A path to check does not exist, or holds no workflow file."""


@dataclass(frozen=True)
class FileReport:
    path: str
    workflow_id: str | None
    diagnostics: tuple[Diagnostic, ...]
    # How to declare what the steps ask for in words (workflows_app/prose/advice.py): neither an error nor
    # a warning, so it changes no status; only `validate` gives it.
    advice: tuple[Advice, ...] = ()

    @property
    def errors(self) -> int:
        return sum(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity is Severity.WARNING for d in self.diagnostics)

    @property
    def status(self) -> str:
        return "errors" if self.errors else "warnings" if self.warnings else "ok"

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "workflowId": self.workflow_id,
            "status": self.status,
            "diagnostics": [d.as_dict() for d in self.diagnostics],
            "advice": [a.as_dict() for a in self.advice],
        }


def summarize(reports: list[FileReport]) -> dict[str, int]:
    return {
        "files": len(reports),
        "valid": sum(r.status != "errors" for r in reports),
        "withWarnings": sum(r.status == "warnings" for r in reports),
        "invalid": sum(r.status == "errors" for r in reports),
        "errors": sum(r.errors for r in reports),
        "warnings": sum(r.warnings for r in reports),
    }


def real_path(path: Path) -> Path:
    """`path` with its symlinks followed, or as given when they loop (the loader reports that file)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # RuntimeError: "Symlink loop" on Python 3.12
        return path.absolute()


def source_kind_of(path: Path, user_dir: Path) -> SourceKind:
    """The kind of source the catalog would read this file from (see HELP)."""
    real = real_path(path)
    if real.is_relative_to(BUNDLED_DIR):
        return SourceKind.BUNDLED
    if real.is_relative_to(user_dir.resolve()):
        return SourceKind.USER
    if real.is_relative_to((user_dir.parent / REPOS_DIR).resolve()):
        return SourceKind.GIT
    parts = real.parts
    if any(parts[i : i + 2] == (".workrail", "workflows") for i in range(len(parts) - 1)):
        return SourceKind.PROJECT
    return SourceKind.EXTRA


def collect_files(paths: list[Path], kind: SourceKind | None, user_dir: Path) -> list[tuple[Path, Source]]:
    """Every workflow file under `paths`, once each, sorted, with the source it is loaded as.

    Raises PathsProblem naming every path that does not exist or holds no *.json file.
    """
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise PathsProblem(f"No such file or directory: {', '.join(missing)}")
    found: list[tuple[Path, Source]] = []
    empty = []
    for root in paths:
        files = Source(SourceKind.EXTRA, root, 0).files()
        if not files:
            empty.append(str(root))
        for file in files:
            file_kind = kind or source_kind_of(file, user_dir)
            found.append((file, Source(file_kind, root, PRECEDENCE[file_kind])))
    if empty:
        raise PathsProblem(
            f"No *.json workflow file under: {', '.join(empty)} (hidden files and directories are skipped; "
            "pass a .workrail/workflows directory itself)."
        )
    unique: dict[Path, tuple[Path, Source]] = {}
    # A file reached through two PATHs is checked once, from the outermost (a routines/ directory counts).
    for file, source in sorted(found, key=lambda pair: (pair[0].parts, len(real_path(pair[1].root).parts))):
        unique.setdefault(real_path(file), (file, source))
    return list(unique.values())


def validate(paths: list[Path], *, kind: SourceKind | None = None, user_dir: Path) -> list[FileReport]:
    """One report per workflow file under `paths`, in sorted order, with what the catalog says of it and,
    for a workflow that compiled, the advice on declaring what its steps ask for in words."""
    reports, catalog = validate_with_catalog(paths, kind=kind, user_dir=user_dir)
    compiled = {str(entry.path): entry.compiled for entry in catalog.entries}
    return [
        replace(report, advice=declaration_advice(compiled[report.path])) if report.path in compiled else report
        for report in reports
    ]


def validate_with_catalog(
    paths: list[Path], *, kind: SourceKind | None = None, user_dir: Path
) -> tuple[list[FileReport], Catalog]:
    """validate's reports, and the catalog they were read from (the bundled workflows and the files
    checked): sync_workflows compares the workflows of two commits by it."""
    given = collect_files(paths, kind, user_dir)
    bundled = Source(SourceKind.BUNDLED, BUNDLED_DIR, PRECEDENCE[SourceKind.BUNDLED])
    checked = [load_file(file, source) for file, source in given]
    checked_files = {real_path(file) for file, _source in given}
    # The bundled workflows take part (their routines can be called) but are not reported, unless given.
    reference = [load_file(file, bundled) for file in bundled.files() if real_path(file) not in checked_files]
    sources = list(dict.fromkeys([bundled, *(source for _file, source in given)]))
    catalog = assemble([*reference, *checked], sources)

    found: dict[str, list[Diagnostic]] = {str(loaded.path): [] for loaded in checked}
    file_of_id = {entry.id: str(entry.path) for entry in catalog.entries}

    def file_of(diagnostic: Diagnostic) -> str | None:
        if diagnostic.file is None and diagnostic.workflow_id is not None:
            return file_of_id.get(diagnostic.workflow_id)
        return diagnostic.file

    for diagnostic in catalog.diagnostics:
        if (file := file_of(diagnostic)) in found:
            found[file].append(diagnostic)
    for entry in catalog.entries:  # a warning kept only on its workflow's entry is reported too
        for diagnostic in entry.warnings:
            if (file := file_of(diagnostic)) in found and diagnostic not in found[file]:
                found[file].append(diagnostic)
    reports = [FileReport(str(loaded.path), _workflow_id(loaded), tuple(found[str(loaded.path)])) for loaded in checked]
    return reports, catalog


def _workflow_id(loaded: LoadedFile) -> str | None:
    return loaded.parsed_id.raw if loaded.parsed_id is not None else None


def configured_reports(catalog: Catalog, workflow_id: str | None = None) -> list[FileReport]:
    """A report per file of the configured catalog that has something to say (what list_workflows counts
    as problems), or only the file of `workflow_id` (its current id or a former one) when given."""
    entry = catalog.resolve(workflow_id) if workflow_id is not None else None
    path_of = {item.id: str(item.path) for item in catalog.entries}
    found: dict[str, list[Diagnostic]] = {}
    ids: dict[str, str | None] = {}
    for diagnostic in [*catalog.diagnostics, *(d for item in catalog.entries for d in item.warnings)]:
        file = diagnostic.file or path_of.get(diagnostic.workflow_id or "") or ""
        if entry is not None and file != str(entry.path):
            continue
        if workflow_id is not None and entry is None and diagnostic.workflow_id != workflow_id:
            continue  # a workflow that failed to load: its own errors only
        if diagnostic not in found.setdefault(file, []):
            found[file].append(diagnostic)
            ids.setdefault(file, diagnostic.workflow_id)
    if entry is not None and str(entry.path) not in found:
        found[str(entry.path)] = []
        ids[str(entry.path)] = entry.id
    return [FileReport(file, ids.get(file), tuple(diagnostics)) for file, diagnostics in sorted(found.items())]
