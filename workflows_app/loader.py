"""Reads one workflow file into a validated document, or into diagnostics saying why it cannot run."""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workflows_app.diagnostics import Code, Diagnostic, Severity, error, warning
from workflows_app.ids import IdStatus, InvalidId, ParsedId, parse_id, suggest_namespaced
from workflows_app.schema import drop_legacy_fields, schema_diagnostics
from workflows_app.sources import (
    MAX_FILE_BYTES,
    MAX_JSON_DEPTH,
    SUGGESTED_NAMESPACE,
    FileTooLarge,
    NestedTooDeep,
    NotARegularFile,
    Source,
    check_json_depth,
    read_bounded,
)
from workflows_app.structure import structure_diagnostics

__all__ = ["MAX_FILE_BYTES", "MAX_JSON_DEPTH", "LoadedFile", "load_failed", "load_file"]

logger = logging.getLogger(__name__)
ROUTINE_NAME_PREFIX = "routine-"


@dataclass(frozen=True)
class LoadedFile:
    path: Path
    source: Source
    document: dict[str, Any] | None  # None when the file could not be read as a workflow at all
    parsed_id: ParsedId | None
    kind: str
    diagnostics: tuple[Diagnostic, ...]

    @property
    def is_valid(self) -> bool:
        return (
            self.document is not None
            and self.parsed_id is not None
            and not any(d.severity is Severity.ERROR for d in self.diagnostics)
        )


def load_file(path: Path, source: Source) -> LoadedFile:
    """The file read, checked and located; never raises. A file that makes a check fail unexpectedly
    (a bug, or a hostile document the bounds did not catch) becomes a LOAD_FAILED error of its own."""
    try:
        return _load(path, source)
    except Exception as exc:  # one file must never take the catalog down
        logger.exception("Loading workflow file %s failed", path)
        return LoadedFile(path, source, None, None, "workflow", (load_failed(exc, file=str(path)),))


def load_failed(exc: BaseException, *, file: str, workflow_id: str | None = None) -> Diagnostic:
    """The diagnostic of a file whose loading or compiling raised `exc` (the log has the trace)."""
    return dataclasses.replace(
        error(
            Code.LOAD_FAILED,
            f"Checking this file failed unexpectedly ({type(exc).__name__}: {str(exc)[:200]}); "
            "it is left out and the other workflows are not affected.",
            "Simplify the file (a very deep or very large structure is the usual cause); if it looks "
            "ordinary, report it with the server log (stderr), which has the details.",
        ),
        file=file,
        workflow_id=workflow_id,
    )


def _load(path: Path, source: Source) -> LoadedFile:
    document, found = _read(path)
    parsed: ParsedId | None = None
    kind = "workflow"
    if isinstance(document, dict):
        document, dropped = drop_legacy_fields(document)
        found += dropped
        parsed, id_found = _check_id(document.get("id"), source)
        found += id_found
        schema_found = schema_diagnostics(document)
        if parsed is None:  # the id problem is already explained better than the schema would
            schema_found = [d for d in schema_found if d.pointer != "/id"]
        found += schema_found
        if not schema_found:
            found += structure_diagnostics(document)
        if parsed is not None:
            kind = _kind(parsed, path, source)
    elif document is not None or not found:  # not an object; `null` too (None with nothing said)
        found.append(
            error(
                Code.SCHEMA_VIOLATION,
                "A workflow file must contain a JSON object.",
                "Wrap the workflow definition in { ... } with id, name, description, version, steps.",
            )
        )
        document = None
    workflow_id = parsed.raw if parsed else None
    located = tuple(dataclasses.replace(d, file=str(path), workflow_id=workflow_id) for d in found)
    return LoadedFile(path, source, document, parsed, kind, located)


def _read(path: Path) -> tuple[Any, list[Diagnostic]]:
    """The parsed JSON of the file, read within the bounds of sources.read_bounded and
    sources.check_json_depth, or the diagnostics saying why there is none."""
    try:
        data = read_bounded(path, MAX_FILE_BYTES)
        check_json_depth(data, MAX_JSON_DEPTH)
        text = data.decode("utf-8")
    except NotARegularFile as exc:
        return None, [
            warning(
                Code.NOT_A_REGULAR_FILE,
                f"This *.json entry is {exc.what}, not a regular file; it was not read.",
                "Remove it or rename it so that it does not end in .json; only regular files (or "
                "symbolic links to them) are workflow files.",
            )
        ]
    except FileTooLarge as exc:
        return None, [
            error(
                Code.FILE_UNREADABLE,
                f"File is larger than the limit of {exc.limit} bytes.",
                "Split the workflow or remove embedded data.",
            )
        ]
    except NestedTooDeep as exc:
        return None, [
            error(
                Code.FILE_UNREADABLE,
                f"The JSON is nested deeper than {exc.limit} levels (arrays and objects inside each other).",
                "Flatten the document; a workflow needs only a few levels.",
                details={"maxDepth": exc.limit},
            )
        ]
    except UnicodeDecodeError as exc:
        return None, [error(Code.FILE_UNREADABLE, f"File is not UTF-8 text ({exc.reason}).", "Save the file as UTF-8.")]
    except OSError as exc:
        return None, [
            error(
                Code.FILE_UNREADABLE,
                f"Cannot read file: {exc.strerror or exc}.",
                "Check the path and permissions.",
            )
        ]
    try:
        return json.loads(text), []
    except json.JSONDecodeError as exc:
        return None, [
            error(
                Code.INVALID_JSON,
                f"Invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}.",
                "Fix the JSON syntax (a trailing comma or a missing quote is the usual cause).",
                details={"line": exc.lineno, "column": exc.colno},
            )
        ]
    except ValueError:  # a number too long for Python to read (sys.get_int_max_str_digits, 4300 digits)
        return None, [
            error(
                Code.INVALID_JSON,
                "Invalid JSON: a number has more digits than can be read (4300 at most).",
                "Shorten the number, or write it as a string.",
            )
        ]


def _check_id(raw: Any, source: Source) -> tuple[ParsedId | None, list[Diagnostic]]:
    try:
        parsed = parse_id(raw)
    except InvalidId as exc:
        return None, [
            error(
                Code.INVALID_ID,
                f"Invalid workflow id: {exc}.",
                "Use namespace.name, e.g. 'project.release_checklist'.",
                pointer="/id",
            )
        ]
    if parsed.is_reserved and not source.allows_reserved_namespace:
        suggestion = suggest_namespaced(parsed.name, SUGGESTED_NAMESPACE[source.kind])
        return None, [
            error(
                Code.RESERVED_NAMESPACE,
                f"The 'wr.' namespace is reserved for workflows bundled with WorkRail; '{raw}' "
                f"comes from the {source.kind} directory.",
                f"Rename it, e.g. to '{suggestion}'.",
                pointer="/id",
                details={"suggestedId": suggestion},
            )
        ]
    if source.requires_reserved_namespace and not parsed.is_reserved:
        return None, [
            error(
                Code.INVALID_ID,
                f"Bundled workflow '{raw}' must use the 'wr.' namespace.",
                f"Rename it to 'wr.{parsed.name}'.",
                pointer="/id",
            )
        ]
    if parsed.status is IdStatus.LEGACY:
        suggestion = suggest_namespaced(parsed.raw, SUGGESTED_NAMESPACE[source.kind])
        return parsed, [
            warning(
                Code.LEGACY_ID,
                f"'{raw}' is a legacy id without a namespace; it runs, but new workflows need one.",
                f"Rename it to '{suggestion}'.",
                pointer="/id",
                details={"suggestedId": suggestion},
            )
        ]
    return parsed, []


def _kind(parsed: ParsedId, path: Path, source: Source) -> str:
    """A routine lives in a `routines` directory or has a namespaced id named `routine-*`.

    Legacy ids do not count by name: `routine-injection-example` is a workflow that calls a routine.
    """
    in_routines_dir = source.root.is_dir() and "routines" in path.relative_to(source.root).parts[:-1]
    named_routine = parsed.status is IdStatus.NAMESPACED and parsed.name.startswith(ROUTINE_NAME_PREFIX)
    return "routine" if in_routines_dir or named_routine else "workflow"
