"""Where a run's workflow is in the catalog: its page, or a quiet word where the catalog does not hold it.

A run follows its pinned copy (runs.models.PinnedWorkflow), so it may run a workflow the catalog no longer
lists, or never did (removed, renamed, from a source this dashboard does not read, an imported session's).
The run page named it without a link, beside a catalog that did not list it (friction60a 15, 60b 16): now its
name links to the workflow's page when the catalog holds that id (or the id it was renamed to), and says once,
beside it, when it does not, or holds another version than the run's.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from runs.execution import catalog

NOT_IN_CATALOG = "pinned copy; not in this catalog now"
OTHER_VERSION = "pinned copy; the catalog's version differs"


@dataclass(frozen=True, slots=True)
class RunWorkflow:
    href: str  # the workflow's catalog page; "" when the catalog does not hold it
    note: str  # where the run's copy stands against the catalog; "" when it is the catalog's own version


def of_run(workflow_id: str, workflow_hash: str) -> RunWorkflow:
    """The catalog's page for the run's workflow, by its id (or the id it was renamed to), and the note."""
    entry = catalog.current_catalog().resolve(workflow_id)
    if entry is None:
        return RunWorkflow("", NOT_IN_CATALOG)
    href = reverse("workflow", args=[entry.id])
    return RunWorkflow(href, "" if entry.workflow_hash == workflow_hash else OTHER_VERSION)
