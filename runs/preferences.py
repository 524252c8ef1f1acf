"""Preferences: a closed, typed set of choices about how autonomous the agent is, and presets ("modes")
that name useful combinations. Global defaults come from settings and are copied into a session's
baseline when it starts; a change is attached to the node it creates and holds for its descendants,
so replaying an older token behaves as it did then."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

from runs.contract.inputs import Autonomy, Preferences, RiskPolicy

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


MODES = {
    mode.name: mode
    for mode in (
        Mode(
            "guided",
            "Guided",
            "The agent asks you at every confirmation and waits for what only you can give.",
            {"autonomy": "guided", "riskPolicy": "balanced"},
        ),
        Mode(
            "autopilot",
            "Autopilot, stops for you",
            "The agent confirms its own steps and stops only for something only you can provide.",
            {"autonomy": "full_auto_stop_on_user_deps", "riskPolicy": "balanced"},
        ),
        Mode(
            "unattended",
            "Unattended",
            "The agent never stops: it states its assumptions and records every gap for you to review.",
            {"autonomy": "full_auto_never_stop", "riskPolicy": "balanced"},
        ),
    )
}


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


def recommendation_warnings(compiled: dict[str, Any], preferences: dict[str, str]) -> list[dict[str, Any]]:
    """A warning, never a block, when the user chose more automation or risk than the workflow recommends."""
    recommended = compiled.get("recommendedPreferences") or {}
    warnings = []
    for key, field in (("autonomy", "recommendedAutonomy"), ("riskPolicy", "recommendedRiskPolicy")):
        if field in recommended and key in preferences:
            order = CHOICES[key]
            if order.index(preferences[key]) > order.index(recommended[field]):
                warnings.append(
                    {
                        "code": "PREFERENCES_EXCEED_RECOMMENDATION",
                        "message": f"This workflow recommends {key} '{recommended[field]}' at most; the run uses "
                        f"'{preferences[key]}'. It runs as chosen; consider '{recommended[field]}'.",
                    }
                )
    return warnings
