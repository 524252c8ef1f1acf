"""Features behind flags: whether each is on, the error when it is off, and advice that names only
what is on. Every door asks here; no other module reads the flags."""

from __future__ import annotations

from enum import StrEnum

from django.conf import settings

from runs.contract.errors import ErrorCode, WorkRailError


class Feature(StrEnum):
    """Each feature, by the setting that turns it on."""

    CHECKPOINT = "WORKRAIL_ENABLE_CHECKPOINT"
    START_SESSION = "WORKRAIL_ENABLE_START_SESSION"
    RESUME_SESSION = "WORKRAIL_ENABLE_RESUME_SESSION"


# A feature that is useless without another: a notes-only session exists to be checkpointed into.
_NEEDS = {Feature.START_SESSION: Feature.CHECKPOINT}


def enabled(feature: Feature) -> bool:
    needed = _NEEDS.get(feature)
    return bool(getattr(settings, feature.value)) and (needed is None or enabled(needed))


def require(feature: Feature, what: str) -> None:
    """Refuses `what` (a tool, or one use of a tool) when its feature is off."""
    if not enabled(feature):
        flags = [flag for flag in (feature, _NEEDS.get(feature)) if flag is not None and not getattr(settings, flag)]
        raise WorkRailError(
            ErrorCode.FEATURE_DISABLED,
            f"{what} is turned off on this server.",
            f"Ask the user to set {' and '.join(f'{flag.value}=1' for flag in flags)} in the MCP server's "
            "environment and restart it.",
        )


def find_lost_run() -> str:
    """How an agent that lost its tokens gets back to a run, with only the tools this server offers."""
    if enabled(Feature.RESUME_SESSION):
        return "find the run with resume_session (it returns a fresh stateToken), or start_workflow again"
    return "ask the user for the latest stateToken of the run, or start_workflow again"
