"""Run status as an explicit state machine. Every status change goes through `transition`.

complete -> in_progress exists because tokens, not the run, are the truth: an agent rewound to an
older stateToken may fork a finished run and carry on down the new branch.
"""

from __future__ import annotations

from runs.models import RunStatus

TRANSITIONS: dict[RunStatus, frozenset[RunStatus]] = {
    RunStatus.IN_PROGRESS: frozenset({RunStatus.BLOCKED, RunStatus.COMPLETE, RunStatus.CANCELED}),
    RunStatus.BLOCKED: frozenset({RunStatus.IN_PROGRESS, RunStatus.COMPLETE, RunStatus.CANCELED}),
    RunStatus.COMPLETE: frozenset({RunStatus.IN_PROGRESS, RunStatus.BLOCKED}),
    RunStatus.CANCELED: frozenset(),
}


class IllegalTransition(Exception):
    """A bug: code asked for a status change the table does not allow."""


def transition(current: str, target: str) -> RunStatus | None:
    """The new status, or None when nothing changes. Raises IllegalTransition for a forbidden change."""
    source, goal = RunStatus(current), RunStatus(target)
    if source == goal:
        return None
    if goal not in TRANSITIONS[source]:
        raise IllegalTransition(f"run status cannot go from {source} to {goal}")
    return goal
