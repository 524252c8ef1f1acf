"""What the dashboard's "not found" page tells a person who followed a link to a session, run, node or
workflow that is not here: why it may be gone, and where to look for it instead (the sessions list with
its search box filled in with the id, the catalog). Never a URL pattern: people follow links, not paths.

The thing looked for is known from the URL's route (its name and the id it carried), never from the
error's own words; the API's 404s are JSON and say their own thing (runs/api/errors.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from django.conf import settings

from runs.models import Run

Kind = Literal["session", "run", "node", "workflow"]

# The dashboard's routes (runs/dashboard/urls.py, exports/urls.py) that name one thing, by route name: the
# kind of thing and the route's keyword argument that carries its id.
ROUTES: dict[str, tuple[Kind, str]] = {
    "session": ("session", "session_id"),
    "session_bundle": ("session", "session_id"),
    "session_report_md": ("session", "session_id"),
    "session_report_pdf": ("session", "session_id"),
    "session_preferences": ("session", "session_id"),
    "live_session": ("session", "session_id"),
    "run": ("run", "run_id"),
    "run_cancel": ("run", "run_id"),
    "node": ("node", "node_id"),
    "node_fork": ("node", "node_id"),
    "workflow": ("workflow", "workflow_id"),
}
_NAMES: dict[Kind, str] = {"session": "session", "run": "run", "node": "step", "workflow": "workflow"}
SEARCH_CHARS = 200  # the sessions search box's maxlength


@dataclass(frozen=True)
class LostHelp:
    """The "What to do" of the not-found page."""

    kind: Kind | None  # None: not one of the routes above
    looked_for: str  # the id the link carried, "" when unknown
    why: str  # why it may not be here, in words
    search: str  # the sessions search box's value ("" offers no search: the thing is not in a session)


def lost_help(route: str, kwargs: dict[str, object], tip: str = "") -> LostHelp | None:
    """The help for a not-found answer to the dashboard route `route` called with `kwargs` (and a run page's
    `tip`). None when what was not found is a run's tip while the run is here: the error's own suggestion
    (pick a step of this run from its graph) is the help then."""
    kind, key = ROUTES.get(route, (None, ""))
    if kind == "run" and tip and Run.objects.filter(public_id=str(kwargs.get(key, ""))[:40]).exists():
        return None
    looked_for = str(kwargs.get(key, ""))[:SEARCH_CHARS] if kind else ""
    if kind == "workflow":
        return LostHelp(
            kind,
            looked_for,
            "It may have been renamed or removed from its file, or its file or repository is not among the "
            "workflow sources of this dashboard.",
            "",
        )
    if kind is not None:
        days = settings.WORKRAIL_RETENTION_DAYS
        # A session is deleted itself; a run or a step goes with the session that holds it.
        deleted = "may have been deleted" if kind == "session" else "may have been deleted with its session"
        where = "it lives" if kind == "session" else "its session lives"
        return LostHelp(
            kind,
            looked_for,
            f"The {_NAMES[kind]} {deleted}: sessions with no activity for {days} days are removed. Or {where} on "
            "another dashboard (recorded or imported there) and was never imported into this one.",
            looked_for,
        )
    return LostHelp(None, "", "The link may be old, or mistyped.", "")
