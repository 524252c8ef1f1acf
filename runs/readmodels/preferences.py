"""Which preferences are in effect in a session, for the Mode panel: the session's baseline (what runs
started from now on take) and each open run whose next step takes something else.

The two differ when an agent changes a run's preferences in a call (recorded on that run's node only) or
when a run started before the baseline last changed: the panel then says so run by run, from the same
nodes the history's events were recorded on, instead of showing the baseline as if it held everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from runs.contract.preferences import MODES, STANCES, mode_of
from runs.models import Node, RunStatus, Session
from runs.store.pinned import compiled_workflow


@dataclass(frozen=True)
class RunPreferences:
    run_id: str
    workflow_name: str
    preferences: dict[str, str]
    mode: str  # a mode's name, or "custom"
    words: str  # mode_words(preferences)


@dataclass(frozen=True)
class InEffect:
    baseline: dict[str, str]  # what runs started from now on take
    mode: str
    words: str  # mode_words(baseline)
    does: str  # mode_does(baseline): what the agent does under it, one sentence
    runs: list[RunPreferences]  # open runs whose next step takes other preferences than the baseline


def in_effect(session: Session) -> InEffect:
    """The session's baseline and the open runs that differ from it, oldest run first."""
    baseline = {str(k): str(v) for k, v in (session.preferences or {}).items()}
    newest: dict[str, RunPreferences] = {}  # per run, its newest open tip's (the branch the agent works on)
    tips = (
        Node.objects.filter(run__session=session, latest_child__isnull=True, is_complete=False)
        .exclude(run__status__in=[RunStatus.COMPLETE, RunStatus.CANCELED])
        .order_by("run__created_at", "run__pk", "created_at", "pk")
        .values_list("run__public_id", "run__workflow_id", "run__pinned_id", "preferences")
    )
    for run_id, workflow_id, pinned_id, preferences in tips:
        said = {str(k): str(v) for k, v in (preferences or {}).items()}
        name = str(compiled_workflow(pinned_id).get("name") or workflow_id)
        newest[str(run_id)] = RunPreferences(str(run_id), name, said, mode_of(said), mode_words(said))
    differing = [run for run in newest.values() if run.preferences != baseline]
    return InEffect(
        baseline=baseline,
        mode=mode_of(baseline),
        words=mode_words(baseline),
        does=mode_does(baseline),
        runs=differing,
    )


def unusual_mode_words(preferences: object) -> str:
    """A node's preferences in words when they are not the server's default, else "": the default is not
    worth a line on every step's page ("Guided, balanced risk" each time reads as noise)."""
    if not isinstance(preferences, dict):
        return ""
    said = {str(k): str(v) for k, v in preferences.items()}
    default = {str(k): str(v) for k, v in settings.WORKRAIL_DEFAULT_PREFERENCES.items()}
    return "" if said == default else mode_words(said)


def mode_does(preferences: dict[str, str]) -> str:
    """What the agent does under `preferences`, one sentence ("The agent asks you at every confirmation, and
    weighs risk against speed."), from the typed values (STANCES: what each makes the agent do, in a
    person's words); "" when it knows none of them."""
    stances = [STANCES.get((key, preferences.get(key, ""))) for key in ("autonomy", "riskPolicy")]
    parts = [stance.does for stance in stances if stance is not None]
    return f"The agent {', and '.join(parts)}." if parts else ""


def mode_words(preferences: dict[str, str]) -> str:
    """Preferences as people say them: the mode that sets their autonomy, then the risk policy ("Guided,
    balanced risk", "Autopilot, stops for you, aggressive risk"), never the stored values (riskPolicy,
    full_auto_stop_on_user_deps); "Custom" before them when no mode sets exactly these."""
    said = stance_words(preferences)
    return said if mode_of(preferences) != "custom" else f"Custom: {said}"


def stance_words(preferences: dict[str, str]) -> str:
    """The autonomy by the mode label that sets it, then the risk policy ("Guided, balanced risk"; either alone
    when the other is not given): the words of the session's head, for a workflow's recommendation too."""
    autonomy = preferences.get("autonomy", "")
    label = next((m.label for m in MODES.values() if m.preferences["autonomy"] == autonomy), autonomy)
    risk = preferences.get("riskPolicy")
    return ", ".join(part for part in (label, f"{risk} risk" if risk else "") if part)
