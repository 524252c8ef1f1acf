"""Where workflow files come from, in precedence order, and how files are found in each."""

from __future__ import annotations

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
        """JSON files under the root (or the root itself when it is a file), in a stable order."""
        if self.root.is_file():
            return [self.root]
        if not self.root.is_dir():
            return []
        return sorted(
            (p for p in self.root.rglob("*.json") if p.is_file() and not _hidden(p, self.root)),
            key=lambda p: p.relative_to(self.root).as_posix(),
        )


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


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
