"""Where workflow files come from, in precedence order, and how files are found in each."""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

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
