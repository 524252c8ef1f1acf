"""The pure workflow interpreter: compiled workflow + engine state + agent output -> next state.

No Django, database, I/O, clock or randomness here: the same inputs always give the same
Transition, which is what makes runs replayable and forkable. See state.py for the state format
and codes.py for the issue and warning codes.
"""

from workflows_app.engine.codes import IssueCode, WarningCode
from workflows_app.engine.interpreter import (
    advance,
    expected_context,
    outline_length,
    output_schema,
    pending_view,
    recordable_artifact_issues,
    start,
    step_count,
)
from workflows_app.engine.state import STATE_VERSION, StateError
from workflows_app.engine.transition import Transition

__all__ = [
    "STATE_VERSION",
    "IssueCode",
    "StateError",
    "Transition",
    "WarningCode",
    "advance",
    "expected_context",
    "outline_length",
    "output_schema",
    "pending_view",
    "recordable_artifact_issues",
    "start",
    "step_count",
]
