"""A session's preferences as they changed: its recent preferences_changed events, for the session page's
Mode panel (moved here from the dashboard's view, which only prints what read models give it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from runs.contract.preferences import mode_of
from runs.models import Event, EventKind

HISTORY_SHOWN = 30


@dataclass(frozen=True)
class HistoryEntry:
    at: datetime
    source: str
    preferences: dict[str, str]
    mode: str
    changes: list[tuple[str, str, str]]
    scopes: list[str]  # "session" for the baseline, else the run ids whose open tips took it


def of_session(session_id: str) -> list[HistoryEntry]:
    """The session's recent preferences_changed events, newest first; the events one change recorded (the
    baseline and each open tip) are shown as one entry. One query."""
    rows = (
        Event.objects.filter(session__public_id=session_id[:40], kind=EventKind.PREFERENCES_CHANGED)
        .order_by("-seq")
        .values_list("data", "created_at")[: HISTORY_SHOWN * 4]
    )
    entries: list[HistoryEntry] = []
    for data, at in rows:
        preferences = {str(k): str(v) for k, v in (data.get("preferences") or {}).items()}
        previous = {str(k): str(v) for k, v in (data.get("previous") or {}).items()}
        source = str(data.get("source") or "agent")
        scope = str(data.get("runId") or "session")
        last = entries[-1] if entries else None
        if last and last.at == at and last.source == source and last.preferences == preferences:
            if scope not in last.scopes:
                last.scopes.append(scope)
            continue
        if len(entries) == HISTORY_SHOWN:
            break
        changes = [
            (key, previous.get(key, "—"), value) for key, value in preferences.items() if previous.get(key) != value
        ]
        entries.append(HistoryEntry(at, source, preferences, mode_of(preferences), changes, [scope]))
    return entries
