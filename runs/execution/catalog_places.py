"""Where a catalog problem is, said as its source and the file inside it ("project: review.json", the
repository's file at its pinned commit), never as an absolute path: a repository's files sit in a cache
under WORKRAIL_HOME whose path says nothing to a reader and leaks the machine's layout."""

from __future__ import annotations

from pathlib import Path

from runs.contract.catalog import WorkflowSource
from runs.execution import catalog as catalog_service
from runs.execution import workspace
from workflows_app.catalog import Catalog
from workflows_app.sources import Source


def sources_of(catalog: Catalog) -> list[Source]:
    """Every source a problem may come from: the configured directories and the sources (repositories
    among them) of the workflows that loaded."""
    configured = catalog_service.catalog_loader(workspace.current().path).sources
    found = {source: None for source in [*configured, *(entry.source for entry in catalog.entries)]}
    return list(found)


def place_of(file: str | None, sources: list[Source]) -> WorkflowSource | None:
    """The source and the file inside it that `file` (an absolute path) is in; the deepest root wins.
    None when no source holds it (then only its name is shown)."""
    if not file:
        return None
    path = Path(file)
    holding = [source for source in sources if path.is_relative_to(source.root)]
    if not holding:
        return None
    source = max(holding, key=lambda s: len(s.root.parts))
    return catalog_service.workflow_source(source, path)


def placed(diagnostics: list[dict[str, object]], catalog: Catalog) -> list[dict[str, object]]:
    """The diagnostics as the catalog page shows them: each with `place` (a WorkflowSource without any
    absolute path) and `file_name` instead of its absolute `file`."""
    sources = sources_of(catalog)
    shown = []
    for diagnostic in diagnostics:
        file = diagnostic.get("file")
        text = file if isinstance(file, str) else None
        entry = {key: value for key, value in diagnostic.items() if key != "file"}
        entry["place"] = place_of(text, sources)
        entry["file_name"] = Path(text).name if text else ""
        shown.append(entry)
    return shown
