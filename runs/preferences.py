"""Preferences: a closed, typed set of choices about how autonomous the agent is, and presets ("modes")
that name useful combinations. Global defaults come from settings and are copied into a session's
baseline when it starts; a change is attached to the node it creates and holds for its descendants,
so replaying an older token behaves as it did then."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runs.errors import ErrorCode, WorkRailError

# Ordered from least to most automated / risky: the order is what "more than recommended" means.
AUTONOMY = ("guided", "full_auto_stop_on_user_deps", "full_auto_never_stop")
RISK_POLICY = ("conservative", "balanced", "aggressive")
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


def check(preferences: Any) -> dict[str, str]:
    """Validates a (partial) preferences object against the closed set."""
    if preferences is None:
        return {}
    if not isinstance(preferences, dict):
        raise _invalid("preferences must be an object")
    unknown = sorted(set(preferences) - set(CHOICES))
    if unknown:
        raise _invalid(f"unknown preference(s) {', '.join(unknown)}")
    for key, value in preferences.items():
        if value not in CHOICES[key]:
            raise _invalid(f"{key} must be one of {', '.join(CHOICES[key])}, not {value!r}")
    return dict(preferences)


def resolve(base: dict[str, str], *, mode: Any = None, preferences: Any = None) -> dict[str, str]:
    """Effective preferences: `base`, then the mode's preset, then explicit preferences."""
    effective = dict(base)
    if mode is not None:
        if mode not in MODES:
            raise _invalid(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        effective.update(MODES[mode].preferences)
    effective.update(check(preferences))
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


def _invalid(why: str) -> WorkRailError:
    modes = ", ".join(f"{m.name} ({m.label})" for m in MODES.values())
    return WorkRailError(
        ErrorCode.INVALID_INPUT,
        f"Invalid preferences: {why}.",
        f"Use a mode ({modes}) or preferences with autonomy in {AUTONOMY} and riskPolicy in {RISK_POLICY}.",
    )
