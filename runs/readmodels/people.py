"""Who did what, in words a developer reads at a glance. Every event records the owner a request acted for
and the door it came through (runs/store/actors.py); the pages, the API and the reports say it the same
way, from here, in one form: "by alice's agent (over HTTP)", "by alice (HTTP API)", "by bob (dashboard)".
Work done on this machine by its own agent (stdio, no owner) says nothing: there is only one person, and
saying so on every step is noise.
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.models import Event, EventKind, Session

# Each door in words, with an owner and without one.
_WITH_OWNER = {
    "http": "by {owner}'s agent (over HTTP)",
    "api": "by {owner} (HTTP API)",
    "dashboard": "by {owner} (dashboard)",
    "command": "by {owner} (a command)",
}
_WITHOUT_OWNER = {
    "http": "by an agent over HTTP",
    "api": "through the HTTP API",
    "dashboard": "in the dashboard",
    "command": "by a command on this machine",
}
_LOCAL_DOORS = ("", "stdio")  # this machine's own agent, or recorded before doors were


@dataclass(frozen=True, slots=True)
class Maker:
    owner: str  # "" on this machine
    door: str  # "stdio", "http", "api", "dashboard", "command"; "" before doors were recorded

    @property
    def words(self) -> str:
        return by_words(self.owner, self.door)


NOBODY = Maker("", "")


def by_words(owner: str, door: str) -> str:
    """ "by alice's agent (over HTTP)", 'by bob (dashboard)', 'in the dashboard'; '' for local work."""
    if not owner:
        return _WITHOUT_OWNER.get(door, "")
    # this machine's agent acting for someone (no door), or a door a later version recorded: the name alone
    return _WITH_OWNER.get(door, "by {owner}").format(owner=owner)


def started_by(session: Session) -> str:
    """The session page's words for its owner: 'Started by alice'; '' for a session made on this machine."""
    return f"Started by {session.owner}" if session.owner else ""


def _told(session_pk: int, kind: str) -> list[tuple[dict[str, object], str, str]]:
    """The `kind` events of a session that say who made them (not this machine's own agent)."""
    rows = (
        Event.objects.filter(session_id=session_pk, kind=kind)
        .exclude(actor="", door__in=_LOCAL_DOORS)
        .order_by("seq")
        .values_list("data", "actor", "door")
    )
    return list(rows)


def node_makers(session_pk: int) -> dict[int, Maker]:
    """Who made each node (a step answered, a checkpoint, a branch started by hand), by its public id;
    nodes made on this machine are left out. One indexed read of the session's node_created events, and
    only their node id: a rewound run's session holds thousands, each with a whole engine state."""
    rows = (
        Event.objects.filter(session_id=session_pk, kind=EventKind.NODE_CREATED)
        .exclude(actor="", door__in=_LOCAL_DOORS)
        .values_list("data__nodeId", "actor", "door")
    )
    return {int(node_id): Maker(actor, door) for node_id, actor, door in rows if node_id is not None}


def canceled_by(session_pk: int, run_id: str) -> Maker:
    """Who canceled the run (NOBODY when it was not canceled, or when no door recorded who)."""
    for data, actor, door in _told(session_pk, EventKind.RUN_STATUS_CHANGED):
        if data.get("runId") == run_id and data.get("to") == "canceled":
            return Maker(actor, door)
    return NOBODY


# A cancel recorded with no door that says who (recorded before doors were, or a process that set none). Said
# all the same: who stopped a run is what its canceled panel is read for (friction14: not "from this machine").
NOT_RECORDED_WHO = " (by whom was not recorded)"


def people(session_pk: int) -> list[str]:
    """Everyone who did something in the session, in the order they first did: ['alice', 'bob']."""
    rows = Event.objects.filter(session_id=session_pk).exclude(actor="").order_by("seq").values_list("actor", flat=True)
    return list(dict.fromkeys(rows))


def people_line(names: list[str]) -> str:
    """The reports' summary line: 'People: alice, bob'; '' when everything was done on this machine."""
    return f"People: {', '.join(names)}" if names else ""


def store_has_owners() -> bool:
    """Whether any session has an owner: the sessions list shows its Owner column only then."""
    return Session.objects.exclude(owner="").exists()
