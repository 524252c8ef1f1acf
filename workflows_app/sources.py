"""Where workflow files come from, in precedence order, and how files are found in each; and the
project's binding overrides (`.workrail/bindings.json` in the project directory)."""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from workflows_app.diagnostics import Code, Diagnostic, pointer_of, warning

BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"


class SourceKind(StrEnum):
    BUNDLED = "bundled"
    USER = "user"
    PROJECT = "project"
    EXTRA = "extra"


# Namespace suggested when a legacy (dot-less) id from this source should be renamed.
SUGGESTED_NAMESPACE = {
    SourceKind.BUNDLED: "wr",
    SourceKind.USER: "user",
    SourceKind.PROJECT: "project",
    SourceKind.EXTRA: "team",
}


@dataclass(frozen=True)
class Source:
    kind: SourceKind
    root: Path
    precedence: int  # lower wins when two sources define the same id

    @property
    def allows_reserved_namespace(self) -> bool:
        return self.kind is SourceKind.BUNDLED

    def files(self) -> list[Path]:
        """JSON files under the root (or the root itself when it is a file), sorted by relative path.

        Hidden files and directories are skipped. os.walk with plain strings, because this runs on
        every listing and pathlib's per-path overhead dominated it.
        """
        root = str(self.root)
        if os.path.isfile(root):
            return [self.root]
        found: list[tuple[str, str]] = []
        for directory, subdirs, names in os.walk(root):
            subdirs[:] = [d for d in subdirs if not d.startswith(".")]
            relative_dir = os.path.relpath(directory, root)
            for name in names:
                if name.endswith(".json") and not name.startswith("."):
                    relative = name if relative_dir == "." else f"{relative_dir}/{name}"
                    found.append((relative.replace(os.sep, "/"), os.path.join(directory, name)))
        return [Path(full) for _relative, full in sorted(found)]


def configured_sources(
    *, workrail_home: Path, project_dir: Path, extra_paths: list[Path], bundled_dir: Path = BUNDLED_DIR
) -> list[Source]:
    sources = [
        Source(SourceKind.BUNDLED, bundled_dir, 0),
        Source(SourceKind.USER, workrail_home / "workflows", 1),
        Source(SourceKind.PROJECT, project_dir / ".workrail" / "workflows", 2),
    ]
    sources += [Source(SourceKind.EXTRA, path, 3 + index) for index, path in enumerate(extra_paths)]
    return sources


# --- Project bindings: .workrail/bindings.json -------------------------------------------------------

BINDINGS_FILE = "bindings.json"


def project_bindings_path(sources: list[Source]) -> Path | None:
    """`.workrail/bindings.json` of the project directory, known from the project source
    (`<project>/.workrail/workflows`); None when no source is a project's workflow directory."""
    for source in sources:
        root = source.root
        if source.kind is SourceKind.PROJECT and root.name == "workflows" and root.parent.name == ".workrail":
            return root.parent / BINDINGS_FILE
    return None


@dataclass(frozen=True)
class ProjectBindings:
    """A project's overrides of workflows' extension points, read as WorkRail reads them.

    The file is a JSON object. A key naming a workflow id holds that workflow's overrides
    (`{"wr.coding_task": {"design_review": "team.routine-design-review"}}`); when the file has no
    section for a workflow and every value in it is a string, the whole file is one set of
    overrides for every workflow (`{"design_review": "team.routine-design-review"}`). A value that is
    not a string is skipped. A missing file is the normal case: no overrides. A file that cannot be
    read, is not JSON or not an object is ignored with an INVALID_BINDINGS warning, as are the
    entries skipped."""

    path: Path | None = None
    content: dict[str, Any] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()

    def for_workflow(self, workflow_id: str) -> dict[str, str]:
        section = self.content.get(workflow_id)
        if section is not None:
            if not isinstance(section, dict):
                return {}
            return {slot: value for slot, value in section.items() if isinstance(value, str)}
        values = list(self.content.values())
        if values and all(isinstance(value, str) for value in values):
            return dict(self.content)
        return {}


def load_project_bindings(path: Path | None) -> ProjectBindings:
    if path is None:
        return ProjectBindings()
    fix = 'Make .workrail/bindings.json a JSON object: {"<workflowId>": {"<slotId>": "<routine or workflow id>"}}.'
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ProjectBindings(path)
    except (OSError, UnicodeDecodeError) as exc:
        return ProjectBindings(path, diagnostics=(_bindings_warning(path, f"Cannot read it ({exc}).", fix),))
    try:
        content = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"Invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}."
        return ProjectBindings(path, diagnostics=(_bindings_warning(path, message, fix),))
    if not isinstance(content, dict):
        return ProjectBindings(path, diagnostics=(_bindings_warning(path, "It is not a JSON object.", fix),))
    return ProjectBindings(path, content, tuple(_shape_problems(path, content)))


def _shape_problems(path: Path, content: dict[str, Any]) -> list[Diagnostic]:
    found = []
    flat = [key for key, value in content.items() if isinstance(value, str)]
    sections = [key for key, value in content.items() if isinstance(value, dict)]
    for key, value in content.items():
        if isinstance(value, dict):
            for slot, bound in value.items():
                if not isinstance(bound, str):
                    found.append(
                        _bindings_warning(
                            path,
                            f"The binding of slot '{slot}' for workflow '{key}' is not a string; skipped.",
                            "Bind the slot to a routine or workflow id (a string).",
                            pointer=pointer_of([key, slot]),
                        )
                    )
        elif not isinstance(value, str):
            found.append(
                _bindings_warning(
                    path,
                    f"'{key}' is neither a workflow's section (an object) nor a binding (a string); skipped.",
                    "Give a workflow id an object of slot bindings, or a slot id a routine or workflow id.",
                    pointer=pointer_of([key]),
                )
            )
    if flat and len(flat) != len(content):
        others = "per-workflow sections" if sections else "other values"
        found.append(
            _bindings_warning(
                path,
                f"Bindings for every workflow ({', '.join(flat)}) are ignored: they apply only when every "
                f"value of the file is a string, and this one also has {others}.",
                "Put those bindings into the section of each workflow that uses them.",
                pointer=pointer_of([flat[0]]),
            )
        )
    return found


def _bindings_warning(path: Path, message: str, fix: str, *, pointer: str = "") -> Diagnostic:
    return dataclasses.replace(
        warning(Code.INVALID_BINDINGS, f".workrail/bindings.json: {message}", fix, pointer=pointer), file=str(path)
    )
