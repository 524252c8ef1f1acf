"""Preferences: a closed, typed set of choices about how autonomous the agent is, and presets ("modes")
that name useful combinations. Global defaults come from settings and are copied into a session's
baseline when it starts; a change is attached to the node it creates and holds for its descendants,
so replaying an older token behaves as it did then."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from runs.contract.execution import WarningDict
from runs.contract.inputs import MODE_PRESETS, Autonomy, Preferences, RiskPolicy
from workflows_app.engine.model import CompiledWorkflow

# Ordered from least to most automated / risky: the order is what "more than recommended" means.
AUTONOMY: tuple[str, ...] = get_args(Autonomy)
RISK_POLICY: tuple[str, ...] = get_args(RiskPolicy)
CHOICES = {"autonomy": AUTONOMY, "riskPolicy": RISK_POLICY}


@dataclass(frozen=True)
class Mode:
    name: str
    label: str
    description: str
    preferences: dict[str, str]


_FOR_PEOPLE = {  # the dashboard's label and description of each mode
    "guided": ("Guided", "The agent asks you at every confirmation and waits for what only you can give."),
    "autopilot": (
        "Autopilot, stops for you",
        "The agent confirms its own steps and stops only for something only you can provide.",
    ),
    "unattended": (
        "Unattended",
        "The agent never stops: it states its assumptions and records every gap for you to review.",
    ),
}
MODES = {name: Mode(name, *_FOR_PEOPLE[name], dict(preferences)) for name, (_, preferences) in MODE_PRESETS.items()}


def resolve(base: dict[str, str], *, mode: str | None = None, preferences: Preferences | None = None) -> dict[str, str]:
    """Effective preferences: `base`, then the mode's preset, then explicit preferences (both already
    checked against the closed set by their input models)."""
    effective = dict(base)
    if mode is not None:
        effective.update(MODES[mode].preferences)
    if preferences is not None:
        effective.update(preferences.as_dict())
    return effective


def mode_of(preferences: dict[str, str]) -> str:
    """The preset these preferences equal, or 'custom'."""
    return next((m.name for m in MODES.values() if m.preferences == preferences), "custom")


@dataclass(frozen=True)
class Stance:
    """What one preference value means, said to each reader from one row: to the agent as an instruction,
    to a person as what the agent does (the dashboard's Mode panel)."""

    asks: str  # to the agent: what the value asks of it
    does: str  # to a person, after "The agent ...": the same stance in their words


# The engine does not act on riskPolicy itself: it is the stance the agent is asked to take, recorded with
# every node so the dashboard and a later chat can see it.
STANCES: dict[tuple[str, str], Stance] = {
    ("riskPolicy", "conservative"): Stance(
        "take the safest option at each choice and check with the user before anything hard to undo",
        "takes the safest option at each choice",
    ),
    ("riskPolicy", "balanced"): Stance(
        "weigh risk against speed as a careful engineer would",
        "weighs risk against speed",
    ),
    ("riskPolicy", "aggressive"): Stance(
        "favour speed: take reasonable risks without stopping to check",
        "favours speed over caution",
    ),
    ("autonomy", "guided"): Stance(
        "ask the user at every confirmation and wait for what only they can give",
        "asks you at every confirmation",
    ),
    ("autonomy", "full_auto_stop_on_user_deps"): Stance(
        "confirm your own steps; stop only for what only the user can give",
        "confirms its own steps, stopping only for what only you can give",
    ),
    ("autonomy", "full_auto_never_stop"): Stance(
        "never stop: state assumptions and record every gap",
        "never stops for you, stating its assumptions and recording each gap",
    ),
}


def meaning(key: str, value: str) -> str:
    """What a value asks of the agent ("" for one outside the closed set)."""
    stance = STANCES.get((key, value))
    return stance.asks if stance is not None else ""


def in_words(key: str, value: str) -> str:
    """A preference's value as an agent reads it: an autonomy by the mode that sets it ("autopilot
    autonomy"), the name users know, rather than the value the API stores (full_auto_stop_on_user_deps)."""
    if key == "autonomy":
        mode = next((m.name for m in MODES.values() if m.preferences["autonomy"] == value), None)
        if mode is not None:
            return f"{mode} autonomy"
    return f"{key} '{value}'"


def how_to_send(key: str, value: str, preferences: dict[str, str]) -> str:
    """The argument that sets `key` to `value` and changes nothing else: a mode when one sets exactly
    that (in users' words), else the preference itself."""
    wanted = {**preferences, key: value}
    mode = next((m.name for m in MODES.values() if m.preferences == wanted), None)
    return f"mode '{mode}'" if mode is not None else f"preferences.{key} '{value}'"


RECOMMENDATION_FIELDS = (("autonomy", "recommendedAutonomy"), ("riskPolicy", "recommendedRiskPolicy"))


def _exceeding(compiled: CompiledWorkflow, preferences: dict[str, str]) -> list[tuple[str, str]]:
    """(key, recommended value) for each preference above what the workflow recommends."""
    recommended = compiled.get("recommendedPreferences") or {}
    found = []
    for key, field in RECOMMENDATION_FIELDS:
        value = recommended.get(field)
        order = CHOICES[key]
        if value in order and preferences.get(key) in order and order.index(preferences[key]) > order.index(value):
            found.append((key, value))
    return found


# What a server nobody configured starts sessions with (settings.WORKRAIL_DEFAULT_PREFERENCES is this
# unless WORKRAIL_AUTONOMY or WORKRAIL_RISK_POLICY say otherwise).
PRODUCT_DEFAULTS = {"autonomy": "guided", "riskPolicy": "balanced"}


def follow_recommendation(
    compiled: CompiledWorkflow, effective: dict[str, str], chosen: set[str]
) -> tuple[dict[str, str], list[WarningDict]]:
    """A new run's preferences, lowered to the workflow's recommendation where nobody chose them: the
    value is the product's own default (not one an operator configured or the dashboard set) and this
    call did not name it (`chosen`). Returns the preferences and a notice for each change, saying how
    to choose otherwise. A choice someone made is kept (recommendation_warnings then says what the
    workflow recommends and which preference to send)."""
    adjusted = dict(effective)
    notices: list[WarningDict] = []
    for key, value in _exceeding(compiled, effective):
        if key in chosen or effective[key] != PRODUCT_DEFAULTS.get(key):
            continue
        adjusted[key] = value
        notices.append(
            {
                "code": "PREFERENCES_FOLLOW_RECOMMENDATION",
                "message": f"This workflow recommends {in_words(key, value)}, so this run uses it instead of the "
                f"server default, {in_words(key, effective[key])}: {meaning(key, value)}. To run otherwise, send "
                f"another mode (or preferences.{key}) with continue_workflow (it applies from that step on).",
            }
        )
    return adjusted, notices


def recommendation_warnings(compiled: CompiledWorkflow, preferences: dict[str, str]) -> list[WarningDict]:
    """A warning, never a block, when someone chose more automation or risk than the workflow recommends."""
    return [
        {
            "code": "PREFERENCES_EXCEED_RECOMMENDATION",
            "message": f"This workflow recommends {in_words(key, value)} at most; the run uses "
            f"{in_words(key, preferences[key])}, as chosen. To follow the recommendation, send "
            f"{how_to_send(key, value, preferences)} with continue_workflow.",
        }
        for key, value in _exceeding(compiled, preferences)
    ]
