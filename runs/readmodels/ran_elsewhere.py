"""The workflows sessions here ran that the catalog does not hold, for the catalog page to say so.

A run keeps the workflow it started with (its pinned copy, runs.models.PinnedWorkflow), so the sessions list
can show runs of workflows the catalog no longer lists, or never did: one removed or renamed since, one from a
source this dashboard does not read, an imported session's. Without a word the catalog and the sessions seem
to disagree (friction19b 17: "6 workflows, all bundled" beside sessions running "Plan and build").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from runs.models import PinnedWorkflow
from runs.readmodels.listing import joined
from runs.store.staged import visible_sessions


@dataclass(frozen=True, slots=True)
class RanElsewhere:
    names: list[str]  # the workflows' names as their runs show them, each once, sorted

    @property
    def words(self) -> str:
        """'Sessions here also ran 2 workflows not in this catalog: “Plan and build” and “Verify the slices”.'
        (quoted: a name may hold an "and" of its own)."""
        count = len(self.names)
        what = "a workflow" if count == 1 else f"{count} workflows"
        return f"Sessions here also ran {what} not in this catalog: {joined([f'“{name}”' for name in self.names])}."


def ran_elsewhere(catalog_ids: Iterable[str]) -> RanElsewhere | None:
    """The workflows that runs of the listed sessions pinned and the catalog (its ids) does not hold, in one
    query; None when none. Only the sessions the sessions list shows: a session still being imported (staged)
    is not one yet."""
    listed = set(catalog_ids)
    names: dict[str, str] = {}
    rows = (
        PinnedWorkflow.objects.filter(runs__session__in=visible_sessions())
        .values_list("workflow_id", "compiled__name")
        .distinct()
    )
    for workflow_id, name in rows:
        if workflow_id not in listed:
            names.setdefault(workflow_id, str(name or workflow_id))
    return RanElsewhere(sorted(set(names.values()), key=str.casefold)) if names else None
